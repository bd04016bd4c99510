//! The compaction request, built exactly as kimi-cli builds it (pure).
//!
//! The request is one synthetic user message made of text parts: for each compacted message a
//! header part `## Message {i}\nRole: {role}\nContent:\n` followed by that message's text parts
//! unchanged (thinking, media and tool calls are dropped; tool output is kept), and last the
//! prompt body, preceded by a newline, with the user's custom instruction appended to that same
//! last part. No separator is inserted between one message's text and the next header: joined,
//! the content runs straight into the next `## Message` line, as in kimi-cli.

pub mod body;
pub mod budget;

use crate::transcript::{Message, Part};

/// The compactor's system prompt (kimi-cli's `COMPACTION_SYSTEM_PROMPT`).
pub const SYSTEM_PROMPT: &str = "You are a helpful assistant that compacts conversation context.";

/// The line that marks the user's custom instruction (kimi-cli's marker).
pub const INSTRUCTION_MARKER: &str = "**User's Custom Compaction Instruction:**";

/// Our sentence between the marker and the instruction.
const INSTRUCTION_PRIORITY: &str = "The user asked for this focus. Where it conflicts with \
     the priorities above, follow it first:";

/// The text parts of the request's user message.
pub fn request_parts(messages: &[&Message], body: &str, instruction: Option<&str>) -> Vec<String> {
    let mut parts = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        parts.push(format!(
            "## Message {}\nRole: {}\nContent:\n",
            index + 1,
            message.role.as_str()
        ));
        for part in &message.parts {
            match part {
                Part::Text(text) => parts.push(text.to_string()),
                // kimi-cli keeps a tool message's output because it is text; formats that file
                // tool output as result blocks inside user messages keep it the same way.
                Part::ToolResult { text, .. } => parts.push(text.to_string()),
                _ => {}
            }
        }
    }
    let mut last = format!("\n{body}");
    if let Some(instruction) = instruction.filter(|i| !i.is_empty()) {
        last.push_str("\n\n");
        last.push_str(INSTRUCTION_MARKER);
        last.push('\n');
        last.push_str(INSTRUCTION_PRIORITY);
        last.push('\n');
        last.push_str(instruction);
    }
    parts.push(last);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{MediaKind, Role};

    const P: &str = "\n---\n\nBODY\n";

    fn message<'a>(role: Role, parts: Vec<Part<'a>>) -> Message<'a> {
        Message::new(role, parts)
    }

    fn text(s: &str) -> Part<'_> {
        Part::Text(s.into())
    }

    #[test]
    fn v3_headers_text_only_then_the_body() {
        let messages = [
            message(Role::System, vec![text("System note")]),
            message(
                Role::User,
                vec![
                    text("Old question"),
                    Part::Thinking("Hidden thoughts".into()),
                ],
            ),
            message(Role::Assistant, vec![text("Old answer")]),
        ];
        let refs: Vec<&Message> = messages.iter().collect();
        assert_eq!(
            request_parts(&refs, P, None),
            vec![
                "## Message 1\nRole: system\nContent:\n",
                "System note",
                "## Message 2\nRole: user\nContent:\n",
                "Old question",
                "## Message 3\nRole: assistant\nContent:\n",
                "Old answer",
                "\n\n---\n\nBODY\n",
            ]
        );
        assert!(request_parts(&refs, P, None)
            .concat()
            .starts_with("## Message 1\nRole: system\nContent:\nSystem note## Message 2\n"));
    }

    #[test]
    fn v11_media_and_thinking_are_dropped() {
        let messages = [message(
            Role::User,
            vec![
                text("Analyze these files:"),
                Part::Media(MediaKind::Image),
                Part::Media(MediaKind::Audio),
                Part::Media(MediaKind::Video),
                Part::Thinking("internal reasoning".into()),
            ],
        )];
        let refs: Vec<&Message> = messages.iter().collect();
        assert_eq!(
            request_parts(&refs, P, None),
            vec![
                "## Message 1\nRole: user\nContent:\n",
                "Analyze these files:",
                "\n\n---\n\nBODY\n"
            ]
        );
    }

    #[test]
    fn v8_v9_the_instruction_joins_the_last_part() {
        let messages = [message(Role::User, vec![text("Old question")])];
        let refs: Vec<&Message> = messages.iter().collect();
        let with = request_parts(
            &refs,
            P,
            Some("Preserve all discussions about the database"),
        );
        let last = with.last().unwrap();
        assert!(last.starts_with(&format!("\n{P}")));
        assert!(last.contains("BODY\n\n\n**User's Custom Compaction Instruction:**\n"));
        assert!(last.ends_with("\nPreserve all discussions about the database"));
        let without = request_parts(&refs, P, None);
        assert_eq!(without.last().unwrap(), &format!("\n{P}"));
    }
}
