//! ACF's Markdown document of a compacted session (pure; ACF heads it "Compacted Handoff"):
//! the session's original request and its current state kept verbatim within token budgets,
//! the compacted summary, and a marker saying how much lies between them. `inject --format
//! markdown` prints it instead of a transcript. ("Handoff" in condense means `--to`: a session
//! handed to another agent.)

use crate::extract::request_text;
use crate::tokens::Tokenizer;
use crate::transcript::{Part, Record};

/// The marker for text cut to fit its budget.
pub const TRUNCATED: &str = "[... truncated ...]";

/// What the document is made of.
pub struct MarkdownDocument<'h, 'a> {
    /// Every record of the session.
    pub records: &'h [Record<'a>],
    /// The positions of the records kept verbatim after the summary, in order.
    pub tail: Vec<usize>,
    /// Tokens of what was compacted, for the elision marker.
    pub compacted_tokens: u64,
    /// The summary.
    pub summary: &'h str,
    /// The original request's budget.
    pub head_tokens: u64,
    /// The current state's budget.
    pub tail_tokens: u64,
    /// How budgets are measured.
    pub tokenizer: Tokenizer,
}

/// Renders the document.
pub fn render(document: &MarkdownDocument) -> String {
    let tokenizer = document.tokenizer;
    // The user's first request in their own words, as the summaries read it: not a bare
    // harness command (`/mode`), an expanded slash-command prompt or a harness's context.
    let request = document
        .records
        .iter()
        .find_map(|r| r.message().and_then(|m| request_text(r, m)))
        .unwrap_or_default();
    let state: Vec<String> = document
        .tail
        .iter()
        .filter_map(|&position| document.records[position].message())
        .filter(|m| !m.sidechain)
        .filter_map(|m| {
            let text = visible_text(m);
            (!text.trim().is_empty()).then(|| format!("**{}:** {}", m.role.as_str(), text.trim()))
        })
        .collect();
    format!(
        "## Compacted Handoff\n\n\
         ### Original Request (preserved)\n\n{}\n\n\
         [... ~{} tokens compacted ...]\n\n\
         ### Current State (preserved)\n\n{}\n\n\
         ### Compacted Summary\n\n{}\n",
        keep_start(request.trim(), document.head_tokens, tokenizer),
        document.compacted_tokens,
        keep_end(&state.join("\n\n"), document.tail_tokens, tokenizer),
        document.summary.trim(),
    )
}

/// Text and tool output of a message, the parts a reader of the handoff needs.
fn visible_text(message: &crate::transcript::Message) -> String {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) | Part::ToolResult { text, .. } => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// The longest start of `text` within `budget` tokens, marked when cut.
pub fn keep_start(text: &str, budget: u64, tokenizer: Tokenizer) -> String {
    if tokenizer.text_tokens(text) <= budget {
        return text.to_owned();
    }
    let ends: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
    let fits = longest_fitting(ends.len(), |n| {
        tokenizer.text_tokens(&text[..ends[n - 1]]) <= budget
    });
    let kept = if fits == 0 {
        ""
    } else {
        &text[..ends[fits - 1]]
    };
    format!("{}\n{TRUNCATED}", kept.trim_end())
}

/// The longest end of `text` within `budget` tokens, marked when cut.
pub fn keep_end(text: &str, budget: u64, tokenizer: Tokenizer) -> String {
    if tokenizer.text_tokens(text) <= budget {
        return text.to_owned();
    }
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
    let count = starts.len();
    let fits = longest_fitting(count, |n| {
        tokenizer.text_tokens(&text[starts[count - n]..]) <= budget
    });
    let kept = if fits == 0 {
        ""
    } else {
        &text[starts[count - fits]..]
    };
    format!("{TRUNCATED}\n{}", kept.trim_start())
}

/// The largest `n` in `0..=max` with `fits(n)`, for a `fits` that holds up to some point and
/// fails after it (token counts grow with the text).
fn longest_fitting(max: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, max);
    while low < high {
        let mid = (low + high).div_ceil(2);
        if fits(mid) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Role;

    use crate::transcript::model::testing::text_record as record;

    #[test]
    fn the_document_has_the_acf_sections_in_order() {
        let records = [
            record(Role::User, "Build the importer"),
            record(Role::Assistant, "working"),
            record(Role::User, "now the tests"),
            record(Role::Assistant, "tests pass"),
        ];
        let text = render(&MarkdownDocument {
            records: &records,
            tail: vec![2, 3],
            compacted_tokens: 42,
            summary: "SUMMARY",
            head_tokens: 500,
            tail_tokens: 1000,
            tokenizer: Tokenizer::Chars4,
        });
        let order = [
            "## Compacted Handoff",
            "### Original Request (preserved)\n\nBuild the importer",
            "[... ~42 tokens compacted ...]",
            "### Current State (preserved)\n\n**user:** now the tests\n\n**assistant:** tests pass",
            "### Compacted Summary\n\nSUMMARY",
        ];
        let mut at = 0;
        for part in order {
            let found = text[at..]
                .find(part)
                .unwrap_or_else(|| panic!("{part} in {text}"));
            at += found + part.len();
        }
    }

    #[test]
    fn a_harness_command_is_not_the_original_request() {
        let records = [
            record(Role::User, "/mode"),
            record(
                Role::User,
                "<session_context>\nToday is Tuesday.\n</session_context>",
            ),
            record(Role::User, "Build the importer"),
            record(Role::Assistant, "working"),
        ];
        let text = render(&MarkdownDocument {
            records: &records,
            tail: vec![3],
            compacted_tokens: 1,
            summary: "S",
            head_tokens: 500,
            tail_tokens: 1000,
            tokenizer: Tokenizer::Chars4,
        });
        assert!(
            text.contains("### Original Request (preserved)\n\nBuild the importer\n"),
            "{text}"
        );
    }

    #[test]
    fn over_budget_text_is_cut_and_marked() {
        let long = "word ".repeat(1000);
        let head = keep_start(&long, 10, Tokenizer::Chars4);
        assert!(head.ends_with(TRUNCATED));
        assert!(Tokenizer::Chars4.text_tokens(head.trim_end_matches(TRUNCATED).trim_end()) <= 10);
        let tail = keep_end(&long, 10, Tokenizer::Chars4);
        assert!(tail.starts_with(TRUNCATED));
        assert_eq!(keep_start("short", 10, Tokenizer::Chars4), "short");
    }
}
