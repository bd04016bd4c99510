//! Telling a person's own request apart from everything else a harness files under `user`:
//! tool results, injected reminders and instructions, slash-command echoes, and earlier
//! compaction summaries.
//!
//! Agents mark these differently or not at all, so the rules below recognise them by the fixed
//! strings each harness writes (the markers listed in the formats spec): kimi-cli's `<system>`
//! wrapper and `<system-reminder>` injections, Claude Code's command tags and compact summary,
//! Codex's environment, AGENTS.md and summary prefixes.

use super::{Message, Part, Role};

/// The first words of summaries that agents inject after their own compaction.
pub const SUMMARY_PREFIXES: [&str; 4] = [
    // kimi-cli (and condense's own injected summaries)
    "<system>Previous context has been compacted.",
    // Claude Code
    "This session is being continued from a previous conversation",
    // Codex
    "Another language model started to solve this problem",
    // kimi-code
    "The conversation so far has been compacted",
];

/// Prefixes of user-role text that a harness injected rather than a person typed.
const INJECTED_PREFIXES: [&str; 12] = [
    "<system-reminder>",
    "<system>",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<command-name>",
    "<command-message>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<bash-input>",
    "<task-notification>",
];

/// The message's visible text parts joined with newlines.
pub fn text_of(message: &Message) -> String {
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_ref()),
            _ => None,
        })
        .collect();
    texts.join("\n")
}

/// True when the message is an earlier compaction's summary.
pub fn is_compaction_summary(message: &Message) -> bool {
    first_text(message).is_some_and(|text| {
        SUMMARY_PREFIXES
            .iter()
            .any(|prefix| text.trim_start().starts_with(prefix))
    })
}

/// True for a request a person wrote: a main-chain user message with visible text that is not a
/// tool result, an injected instruction or reminder, a slash-command echo, or a summary.
pub fn is_real_user_request(message: &Message) -> bool {
    if message.role != Role::User || message.sidechain {
        return false;
    }
    if message
        .parts
        .iter()
        .any(|part| matches!(part, Part::ToolResult { .. }))
    {
        return false;
    }
    let Some(text) = first_text(message) else {
        return false;
    };
    let text = text.trim_start();
    !text.is_empty()
        && !INJECTED_PREFIXES
            .iter()
            .any(|prefix| text.starts_with(prefix))
        && !is_compaction_summary(message)
}

fn first_text<'m>(message: &'m Message) -> Option<&'m str> {
    message.parts.iter().find_map(|part| match part {
        Part::Text(text) if !text.trim().is_empty() => Some(text.as_ref()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Message<'static> {
        Message::new(Role::User, vec![Part::Text(text.to_owned().into())])
    }

    #[test]
    fn people_write_requests_harnesses_write_the_rest() {
        assert!(is_real_user_request(&user(
            "fix the failing test in parser.rs"
        )));
        assert!(!is_real_user_request(&user(
            "<system-reminder>\nTodo list empty"
        )));
        assert!(!is_real_user_request(&user(
            "<command-name>/compact</command-name>"
        )));
        assert!(!is_real_user_request(&user(
            "<environment_context>\n  <cwd>/repo</cwd>"
        )));
        assert!(!is_real_user_request(&user(
            "This session is being continued from a previous conversation that ran out of context."
        )));
        assert!(!is_real_user_request(&user("   ")));
        let assistant = Message::new(Role::Assistant, vec![Part::Text("hi".into())]);
        assert!(!is_real_user_request(&assistant));
    }

    #[test]
    fn summaries_are_recognised_by_their_prefix() {
        assert!(is_compaction_summary(&user(
            "<system>Previous context has been compacted. Here is the compaction output:</system>"
        )));
        assert!(!is_compaction_summary(&user("summarise this file")));
    }
}
