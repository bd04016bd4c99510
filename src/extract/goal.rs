//! Where the goal comes from when the first request is not it: the summary an earlier
//! compaction left at the head of the records (the live context of a compacted session starts
//! with it), and the document a short first request only points at ("read doc.md, it is my
//! take-home").
//!
//! A summary is recognised by the prefixes agents write (see
//! [`crate::transcript::classify::SUMMARY_PREFIXES`]) or by the record's compaction mark (pi,
//! Codex). Its goal is the section its format gives the goal (Claude Code's "Primary Request
//! and Intent", pi's "## Goal", kimi-cli's `<current_focus>`, headings named goal, task,
//! objective or request), else its first line of substance.

use super::paths::is_pathlike;
use super::said::weight;
use super::text::{has, without_gutter};
use crate::transcript::classify::SUMMARY_PREFIXES;

/// Headings (lowercase, without `#`, numbering, `*` or a trailing `:`) that open the goal
/// section of a summary.
const GOAL_HEADINGS: [&str; 10] = [
    "primary request and intent",
    "primary request",
    "goal",
    "goals",
    "user's goal",
    "original request",
    "task",
    "objective",
    "current task",
    "current focus",
];

/// Characters of a summary's goal section kept.
const SECTION_CHARS: usize = 600;

/// The goal a compaction summary states, on one line (see the module docs).
pub(super) fn summary_goal(summary: &str) -> Option<String> {
    if let Some(focus) = tag_body(summary, "current_focus") {
        return Some(focus.to_owned());
    }
    if let Some(goal) = section(summary, &GOAL_HEADINGS) {
        return Some(goal);
    }
    // No goal section: the first line of substance after the marker and any analysis preamble.
    summary
        .lines()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .find(|l| {
            !SUMMARY_PREFIXES.iter().any(|p| l.starts_with(p))
                && !l.to_ascii_lowercase().starts_with("analysis")
                && !l.starts_with("<system>")
                && weight(l) >= 12
        })
        .map(str::to_owned)
}

/// Headings of the sections where a summary says what was in hand when it was written, in the
/// order they are preferred.
const PENDING_HEADINGS: [&str; 8] = [
    "pending tasks",
    "current work",
    "in progress",
    "current state",
    "next steps",
    "optional next step",
    "next step",
    "remaining work",
];

/// The work a compaction summary says was in hand: its pending-tasks or current-work section
/// (Claude Code's "Pending Tasks", pi's "### In Progress", headings named next steps).
pub(super) fn summary_pending(summary: &str) -> Option<String> {
    PENDING_HEADINGS
        .iter()
        .find_map(|heading| section(summary, &[heading]))
}

/// The body of the first section of `summary` whose heading is one of `headings`, on one line.
fn section(summary: &str, headings: &[&str]) -> Option<String> {
    let lines: Vec<&str> = summary.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let (heading, rest) = heading(line);
        if !headings.contains(&heading.as_str()) {
            continue;
        }
        let mut body: Vec<&str> = Vec::new();
        if !rest.is_empty() {
            body.push(rest);
        }
        for next in &lines[i + 1..] {
            let t = next.trim();
            if t.is_empty() && !body.is_empty() {
                break;
            }
            if !t.is_empty() && is_heading(next) {
                break;
            }
            if !t.is_empty() {
                body.push(t);
            }
            if body.iter().map(|b| b.len()).sum::<usize>() > SECTION_CHARS {
                break;
            }
        }
        if !body.is_empty() {
            return Some(body.join(" "));
        }
    }
    None
}

/// Headings of the section where a summary quotes the user's own messages.
const USER_HEADINGS: [&str; 3] = ["all user messages", "user messages", "user requests"];

/// The user's first message as a summary quotes it (Claude Code's "All user messages"): the
/// goal in the user's own words, where the summary's goal section is its paraphrase.
pub(super) fn summary_first_words(summary: &str) -> Option<String> {
    let mut lines = summary.lines();
    lines.find(|line| USER_HEADINGS.contains(&heading(line).0.as_str()))?;
    let first = lines.map(str::trim).find(|l| !l.is_empty())?;
    let item = first.strip_prefix(['-', '*'])?.trim();
    let item = item.trim_matches('"').trim();
    (weight(item) >= 4).then(|| item.to_owned())
}

/// The text between `<tag>` and `</tag>`, trimmed, when there is some.
fn tag_body<'t>(text: &'t str, tag: &str) -> Option<&'t str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&close)? + start;
    Some(text[start..end].trim()).filter(|t| !t.is_empty())
}

/// A line as a heading: its words lowercased without markup and numbering, and any text after
/// a colon on the same line.
fn heading(line: &str) -> (String, &str) {
    let t = line
        .trim()
        .trim_start_matches(['#', '*', ' '])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', ' ', '*']);
    let (head, rest) = match t.split_once(':') {
        Some((head, rest)) => (head, rest.trim()),
        None => (t, ""),
    };
    let head = head
        .trim()
        .trim_end_matches(['*', ' '])
        .to_ascii_lowercase();
    (head, rest.trim_start_matches(['*', ' ']))
}

/// True for a line that opens a section: Markdown `#`, a bold line, or `N. Title:`.
fn is_heading(line: &str) -> bool {
    let t = line.trim();
    if t.starts_with('#') || (t.starts_with("**") && t.ends_with("**")) {
        return true;
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0
        && t[digits..].starts_with(". ")
        && t.ends_with(':')
        && !line.starts_with(char::is_whitespace)
}

/// Requests at most this heavy may only point at a document.
const POINTER_WEIGHT: usize = 160;

/// Extensions of documents a request may point at.
const DOC_EXTENSIONS: [&str; 6] = [".md", ".txt", ".rst", ".adoc", ".org", ".pdf"];

/// The file name of the document a short request points at, when it names one.
pub(super) fn pointed_document(request: &str) -> Option<String> {
    if weight(request) > POINTER_WEIGHT {
        return None;
    }
    request
        .split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | ',' | '(' | ')'))
        .map(|w| w.trim_end_matches(['.', ':', ';', '!', '?']))
        .filter(|w| is_pathlike(w))
        .find(|w| {
            let lower = w.to_ascii_lowercase();
            DOC_EXTENSIONS.iter().any(|e| lower.ends_with(e))
        })
        .map(|w| w.rsplit('/').next().unwrap_or(w).to_owned())
}

/// Characters of a document's gist.
const GIST_CHARS: usize = 400;

/// The gist of a document as a read tool returned it: its title and first paragraph of prose,
/// line-number gutters (`  12→`, `12\t`) and front matter left out.
pub(super) fn gist(document: &str) -> Option<String> {
    let mut title: Option<&str> = None;
    let mut prose: Vec<&str> = Vec::new();
    let mut front_matter = false;
    for (n, raw) in document.lines().enumerate() {
        let line = without_gutter(raw).trim();
        if n < 2 && line == "---" {
            front_matter = !front_matter;
            continue;
        }
        if front_matter {
            front_matter = line != "---";
            continue;
        }
        // A lone lead-in ("here's a comprehensive summary:") announces the paragraph after it.
        let lead_in = prose.len() == 1 && prose[0].ends_with(':');
        if line.is_empty() {
            if !prose.is_empty() && !lead_in {
                break;
            }
            continue;
        }
        if line.starts_with('#') {
            if title.is_none() && prose.is_empty() {
                title = Some(line.trim_start_matches('#').trim());
                continue;
            }
            if !prose.is_empty() && !lead_in {
                break;
            }
            continue;
        }
        if line.starts_with("```") || line.starts_with("<system>") {
            continue;
        }
        // A report's opening cheer ("Perfect! I found …") says nothing.
        let line = match line.split_once("! ") {
            Some((cheer, rest)) if prose.is_empty() && cheer.len() <= 12 && !rest.is_empty() => {
                rest
            }
            _ => line,
        };
        prose.push(line);
        if prose.iter().map(|p| p.len()).sum::<usize>() > GIST_CHARS {
            break;
        }
    }
    let mut out = String::new();
    if let Some(title) = title.filter(|t| !t.is_empty()) {
        out.push_str(title);
    }
    if !prose.is_empty() {
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&prose.join(" "));
    }
    (!out.is_empty() && !has(&out, "\u{1b}")).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_states_its_goal_in_its_own_section() {
        let claude = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis:\nLet me look back.\n\nSummary:\n1. Primary Request and Intent:\n   - Fix the RangeError on start\n   - Surface hook errors to the user\n\n2. Key Technical Concepts:\n   - hooks";
        assert_eq!(
            summary_goal(claude).unwrap(),
            "- Fix the RangeError on start - Surface hook errors to the user"
        );
        assert_eq!(summary_pending(claude), None);
        let with_pending = format!("{claude}\n\n7. Pending Tasks:\n   - Surface the hook errors\n");
        assert_eq!(
            summary_pending(&with_pending).unwrap(),
            "- Surface the hook errors"
        );
        let pi = "## Goal\nPort the theme system to the selectors.\n\n## Progress\n- done";
        assert_eq!(
            summary_goal(pi).unwrap(),
            "Port the theme system to the selectors."
        );
        let kimi = "<system>Previous context has been compacted. Here is the compaction output:</system>\n<current_focus>\nFix set_output for remainder\n</current_focus>";
        assert_eq!(summary_goal(kimi).unwrap(), "Fix set_output for remainder");
        let plain = "<system>Previous context has been compacted. Here is the compaction output:</system>\nWe were making the parser handle nested quotes.";
        assert_eq!(
            summary_goal(plain).unwrap(),
            "We were making the parser handle nested quotes."
        );
    }

    #[test]
    fn a_summary_quotes_the_users_first_words() {
        let claude = "Summary:\n1. Primary Request and Intent:\n   - Fix it\n\n6. All user messages:\n   - \"I now get this error when starting claude\"\n   - \"Option A\"\n\n7. Pending Tasks:";
        assert_eq!(
            summary_first_words(claude).unwrap(),
            "I now get this error when starting claude"
        );
        assert_eq!(summary_first_words("## Goal\nx"), None);
    }

    #[test]
    fn a_short_request_may_point_at_a_document_whose_gist_is_the_goal() {
        assert_eq!(
            pointed_document("read docs/take-home.md, it is my take-home").as_deref(),
            Some("take-home.md")
        );
        assert_eq!(pointed_document("fix the bug in src/main.rs"), None);
        let read = "     1→# Take-home: a rate limiter\n     2→\n     3→Build a token bucket\n     4→that allows 10 requests/s.\n     5→\n     6→## Details";
        assert_eq!(
            gist(read).unwrap(),
            "Take-home: a rate limiter: Build a token bucket that allows 10 requests/s."
        );
        assert_eq!(
            gist("---\ntitle: x\n---\nPlain text.").unwrap(),
            "Plain text."
        );
        assert_eq!(
            gist("Here is what I found:\n\n## Layout\n\nTwo trees, one in todo-app/.\n\nMore.")
                .unwrap(),
            "Here is what I found: Two trees, one in todo-app/."
        );
        assert_eq!(
            gist("Perfect! I found it in a.rs.").unwrap(),
            "I found it in a.rs."
        );
    }
}
