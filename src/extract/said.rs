//! The words that matter in messages: a user message that is a request (and the user's words
//! on a rejected tool use), and the sentence where the agent states its next step.

use serde_json::Value;

use super::prompt_command::command_request;
use super::text::has;
use super::tools::argument_paths;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::{Message, Record};

/// A plan sentence lighter than this ("Let me fix that:") comes with the sentence before it.
const VAGUE_PLAN: usize = 24;

/// Bytes of text a plan sentence may be followed by in the agent's last message.
const PLAN_TAIL: usize = 200;

/// The user's own words in a user message, when it is a request: a real request, or a slash
/// command that asks for work (see `prompt_command`). Claude Code's `isMeta` lines (a slash
/// command's expanded prompt, caveats), bare harness commands (`/mode`) and Gemini CLI's
/// session context are not requests.
pub fn request_text(record: &Record, message: &Message) -> Option<String> {
    if memchr::memmem::find(record.raw, b"\"isMeta\":true").is_some() {
        return None;
    }
    let text = text_of(message);
    if has(&text, "<command-name>") {
        return command_request(&text);
    }
    if !is_real_user_request(message) {
        return None;
    }
    let trimmed = text.trim();
    if HARNESS_TEXT.iter().any(|p| trimmed.starts_with(p)) {
        return None;
    }
    let harness_command = trimmed.starts_with('/') && !trimmed.contains(char::is_whitespace);
    if harness_command || trimmed.starts_with("[Request interrupted") {
        return None;
    }
    Some(trimmed.to_owned())
}

/// Openings of user text a harness injects that [`is_real_user_request`] does not know yet:
/// Gemini CLI's `<session_context>` (the date, the OS, the directory tree) opens every session.
pub(super) const HARNESS_TEXT: [&str; 1] = ["<session_context>"];

/// What the user said when rejecting a tool use, in Claude Code's wording.
pub(super) fn rejection_words(text: &str) -> Option<String> {
    const MARK: &str = "To tell you how to proceed, the user said:";
    let at = memchr::memmem::find(text.as_bytes(), MARK.as_bytes())?;
    let words = text[at + MARK.len()..].trim();
    (!words.is_empty()).then(|| words.to_owned())
}

/// A text's length in columns, roughly: CJK and other wide characters count two.
pub(super) fn weight(text: &str) -> usize {
    text.trim()
        .chars()
        .map(|c| if (c as u32) >= 0x2E80 { 2 } else { 1 })
        .sum()
}

/// The sentence of `text` that states a next step, the last such one.
pub(super) fn plan_sentence(text: &str) -> Option<&str> {
    const MARKS: [&str; 13] = [
        "next, ",
        "next i ",
        "next step",
        "next up",
        "now let me ",
        "now let's ",
        "now i'll ",
        "now i will ",
        "let me ",
        "let's ",
        "i'll ",
        "i will ",
        "then i'll ",
    ];
    let mut best: Option<(usize, usize)> = None;
    let spans = sentences(text);
    for (n, &(start, end)) in spans.iter().enumerate() {
        let sentence = text[start..end].trim_start_matches(|c: char| !c.is_alphanumeric());
        let lower = sentence
            .get(..sentence.len().min(24))
            .unwrap_or(sentence)
            .to_ascii_lowercase();
        // A promise the same text goes on to keep ("Let me summarize: …" and the summary) is
        // not a next step: only a sentence near the end counts.
        let near_end = text[end..].trim().len() <= PLAN_TAIL;
        // The text's last words, ending in a colon, announce the calls that follow them
        // ("Now run fmt, lint, and tests:").
        let announces = n + 1 == spans.len() && sentence.trim_end().ends_with(':');
        if announces || (near_end && MARKS.iter().any(|m| lower.starts_with(m))) {
            // "Let me fix this:" says what only with the sentence before it.
            let from = match n.checked_sub(1) {
                Some(previous) if weight(sentence) < VAGUE_PLAN => spans[previous].0,
                _ => end - sentence.len(),
            };
            best = Some((from, end));
        }
    }
    best.map(|(start, end)| text[start..end].trim())
}

/// Byte ranges of the sentences of a text: split after `.`, `!`, `?`, `:` followed by
/// whitespace, and at newlines.
pub(super) fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let boundary = b == b'\n'
            || (matches!(b, b'.' | b'!' | b'?' | b':')
                && bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()));
        if boundary {
            let end = if b == b'\n' { i } else { i + 1 };
            if text[start..end].trim().len() > 1 {
                out.push((start, end));
            }
            start = i + 1;
        }
    }
    if text[start..].trim().len() > 1 {
        out.push((start, text.len()));
    }
    out
}
/// True for a call that writes the agent's plan: Claude Code's `ExitPlanMode`, a `plan` tool, a
/// write to a file named like a plan or a todo list (`PLAN.md`, `todo.md`), or to Claude Code's
/// plan file (`~/.claude/plans/<slug>.md`, named after the session, not the plan; see
/// `plan_file`).
pub(super) fn is_plan_call(name: &str, arguments: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "exitplanmode" | "exit_plan_mode" | "plan" | "write_plan"
    ) {
        return true;
    }
    argument_paths(arguments)
        .iter()
        .any(|path| is_plan_path(path))
}

/// True for a Markdown file named like a plan or a todo list, or kept in a `plans` folder (Claude
/// Code's `~/.claude/plans/`, a project's `docs/plans/`).
pub(super) fn is_plan_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let named = file.contains("plan") || file.contains("todo");
    let filed = path.split('/').rev().skip(1).any(|dir| dir == "plans");
    (named || filed) && file.ends_with(".md")
}

/// The plan text of a plan call's arguments: `plan`, or a written file's `content`.
pub(super) fn plan_text(arguments: &str) -> Option<String> {
    let value: Value = serde_json::from_str(arguments).ok()?;
    ["plan", "content", "file_text", "text"]
        .iter()
        .find_map(|k| value.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The unchecked items of a Markdown task list (`- [ ] wire X into Y`), in order.
pub(super) fn unchecked_items(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| {
            let t = line.trim_start();
            let t = t
                .strip_prefix("- [ ]")
                .or_else(|| t.strip_prefix("* [ ]"))?
                .trim();
            (!t.is_empty()).then_some(t)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_sentence_is_a_step_stated_near_the_end_or_the_last_words_before_the_calls() {
        let stated = "The parser is fixed. Next, I'll wire the flag into the CLI.";
        assert_eq!(
            plan_sentence(stated),
            Some("Next, I'll wire the flag into the CLI.")
        );
        // Last words ending in a colon announce the calls that follow them.
        let announced = "All green locally.\nNow run fmt, lint, and tests:";
        assert_eq!(
            plan_sentence(announced),
            Some("Now run fmt, lint, and tests:")
        );
        // A colon followed by what it introduces is no announcement.
        assert_eq!(
            plan_sentence("Summary:\n- parser fixed\n- tests pass"),
            None
        );
        assert_eq!(plan_sentence("The build passes."), None);
    }
}
