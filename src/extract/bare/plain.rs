//! The prose bare quotes, without what only decorates it: Markdown emphasis (`**`), code
//! spans' backticks, heading marks (`## `), a leading list mark (`- `) or table bar (`| `) and
//! the lead Claude Code puts before an accepted plan
//! ("Implement the following plan:" and its `# Plan:` title). In a hundred tokens each of these
//! costs a token or two and says nothing the words do not; the words they wrap stay whole.

use std::borrow::Cow;

use super::super::model::{Extract, Said};
use super::fences::without_code_blocks;

/// What Claude Code writes ahead of a plan the user accepted, as the user's request.
const PLAN_LEAD: &str = "Implement the following plan:";

/// The title a plan document starts with, which repeats that it is a plan.
const PLAN_TITLE: &str = "Plan:";

/// The mark of a list item, which a summary's pending task keeps.
const BULLET: &str = "- ";

/// The bar a Markdown table row opens with (a pasted table as the request): after bare's own
/// ` | ` separator it would read as an empty part. The bars between cells stay.
const TABLE_ROW: &str = "| ";

/// `text` without decoration (see the module doc). Spaces it leaves doubled become one.
pub(super) fn undecorated(text: &str) -> Cow<'_, str> {
    let decorated = text.contains("**")
        || text.contains('`')
        || text.contains("# ")
        || text.starts_with(PLAN_LEAD)
        || text.starts_with(BULLET)
        || text.starts_with(TABLE_ROW);
    if !decorated {
        return Cow::Borrowed(text);
    }
    let text = text.strip_prefix(PLAN_LEAD).unwrap_or(text);
    let text = text.strip_prefix(BULLET).unwrap_or(text);
    let text = match text.strip_prefix(TABLE_ROW) {
        Some(row) => row.strip_suffix(" |").unwrap_or(row),
        None => text,
    };
    let headed = text.trim_start().starts_with('#');
    let text = text.replace("**", "").replace('`', "");
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        // A heading mark is a word of `#` alone; `#10` (an issue) and `C#` stay.
        if word.chars().all(|c| c == '#') {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    match out.strip_prefix(PLAN_TITLE) {
        Some(rest) if headed => Cow::Owned(rest.trim_start().to_owned()),
        _ => Cow::Owned(out),
    }
}

/// The extract with the prose bare quotes undecorated: the requests, the agent's words (without
/// their code blocks, see `fences`), its plan and its todos. Indices and everything else stay as
/// they are.
pub(super) fn undecorated_extract(ex: &Extract) -> Extract {
    let said = |s: &Option<Said>| {
        s.as_ref().map(|s| Said {
            text: undecorated(&s.text).into_owned(),
            index: s.index,
        })
    };
    let mut plain = ex.clone();
    plain.task = said(&ex.task);
    plain.context = said(&ex.context);
    // The agent's words lose their code blocks (see `fences`); a request keeps what it pastes.
    let prose = |s: &Option<Said>| {
        s.as_ref().map(|s| Said {
            text: undecorated(&without_code_blocks(&s.text)).into_owned(),
            index: s.index,
        })
    };
    plain.doing = prose(&ex.doing);
    plain.closing = prose(&ex.closing);
    plain.plan = prose(&ex.plan);
    plain.pending = said(&ex.pending);
    plain.goal = said(&ex.goal);
    for todo in &mut plain.todos {
        todo.text = undecorated(&todo.text).into_owned();
        todo.detail = todo.detail.as_deref().map(|d| undecorated(d).into_owned());
    }
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoration_goes_and_the_words_stay() {
        assert_eq!(
            undecorated("**Fix 1: `discardSession` idempotency (sessions_fix.go)**"),
            "Fix 1: discardSession idempotency (sessions_fix.go)"
        );
        assert_eq!(
            undecorated("## Review Results ### Bug fixed: see #10 in C# code"),
            "Review Results Bug fixed: see #10 in C# code"
        );
        assert_eq!(
            undecorated("Implement the following plan: # Plan: Change numbering to 1-based"),
            "Change numbering to 1-based"
        );
        // A pointer type keeps its star; a plan lead with no title keeps the rest.
        assert_eq!(undecorated("Telemetry *bool"), "Telemetry *bool");
        assert_eq!(
            undecorated("Implement the following plan: fix the logging"),
            "fix the logging"
        );
        assert_eq!(undecorated("- Surface the error"), "Surface the error");
        assert_eq!(
            undecorated("| messagesToSummarize | Messages to discard |"),
            "messagesToSummarize | Messages to discard"
        );
        assert!(matches!(undecorated("plain words"), Cow::Borrowed(_)));
    }
}
