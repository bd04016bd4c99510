//! The kept tail of one agent's live context as plain turns another agent can read: user and
//! assistant text as it was, and every tool call and result written out as text in the
//! assistant's turn.
//!
//! Tools are never replayed as tool calls: each agent has its own tools (Claude Code `Bash`,
//! Codex `exec_command`, pi `bash` …), so a call carried over would name a tool the target does
//! not have, and one whose result fell outside the tail would leave the target a call to pair
//! with nothing. Written as text, the new agent still reads what ran and what came back.
//! Thinking is left out (another provider's reasoning, signed or encrypted, cannot be sent
//! again, and the checkpoint guidance keeps conclusions, not reasoning), and so are the
//! harness's own injections (environment, instructions, reminders): the target writes its own.

use std::collections::HashMap;

use crate::transcript::model::{MediaKind, Message, Part, Role};

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    /// The person (or, for the summary, the harness speaking for them).
    User,
    /// The model.
    Assistant,
}

impl Speaker {
    /// The speaker's role in a chat message list (and in Claude Code's line types).
    pub fn role(self) -> &'static str {
        match self {
            Speaker::User => "user",
            Speaker::Assistant => "assistant",
        }
    }
}

/// One turn of the new conversation: a speaker and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who speaks.
    pub speaker: Speaker,
    /// What they say.
    pub text: String,
}

/// The most characters of one tool result carried over: its start and its end, half each. A
/// tool's output is what the agent read, not what it needs to go on (it can run the tool again).
pub const RESULT_CHARS: usize = 2000;

/// User text a harness injects for its own model (Codex's environment and AGENTS.md, Claude
/// Code's reminders, Gemini CLI's session context): the target agent sends its own.
const HARNESS_PREFIXES: [&str; 7] = [
    "<environment_context>",
    "# AGENTS.md instructions",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<system-reminder>",
    "<session_context>",
    "<skills_instructions>",
];

/// The turns of these messages (the tail, in the order of the live context), consecutive text
/// of one speaker joined into one turn. Sidechain and system messages are left out.
pub fn turns<'m, 'a: 'm>(messages: impl IntoIterator<Item = &'m Message<'a>>) -> Vec<Turn> {
    let mut out = Turns::default();
    for message in messages {
        if message.sidechain || message.role == Role::System {
            continue;
        }
        for part in &message.parts {
            out.part(message, part);
        }
    }
    out.turns
}

#[derive(Default)]
struct Turns {
    turns: Vec<Turn>,
    /// Tool names by call id, so a result can say which tool it came from.
    names: HashMap<String, String>,
}

impl Turns {
    fn part(&mut self, message: &Message, part: &Part) {
        let own = match message.role {
            Role::User => Speaker::User,
            _ => Speaker::Assistant,
        };
        match part {
            Part::Text(text) if message.role == Role::Tool => {
                let name = self.name_of(message.call_id.as_deref());
                self.push(Speaker::Assistant, result_text(&name, text));
            }
            Part::Text(text) => {
                let trimmed = text.trim();
                let injected =
                    own == Speaker::User && HARNESS_PREFIXES.iter().any(|p| trimmed.starts_with(p));
                if !trimmed.is_empty() && !injected {
                    self.push(own, trimmed.to_owned());
                }
            }
            Part::ToolCall {
                id,
                name,
                arguments,
            } => {
                if let Some(id) = id {
                    self.names.insert(id.to_string(), name.to_string());
                }
                self.push(
                    Speaker::Assistant,
                    format!("[ran the tool `{name}` with {}]", arguments.trim()),
                );
            }
            Part::ToolResult { call_id, text } => {
                let id = call_id.as_deref().or(message.call_id.as_deref());
                let name = self.name_of(id);
                self.push(Speaker::Assistant, result_text(&name, text));
            }
            Part::Media(kind) => {
                self.push(own, format!("[{} left out]", media_name(*kind)));
            }
            Part::Thinking(_) | Part::Other(_) => {}
        }
    }

    fn name_of(&self, id: Option<&str>) -> String {
        id.and_then(|id| self.names.get(id))
            .map_or_else(|| "a tool".to_owned(), |name| format!("`{name}`"))
    }

    fn push(&mut self, speaker: Speaker, text: String) {
        match self.turns.last_mut() {
            Some(last) if last.speaker == speaker => {
                last.text.push_str("\n\n");
                last.text.push_str(&text);
            }
            _ => self.turns.push(Turn { speaker, text }),
        }
    }
}

/// A tool result as text: which tool, and what it returned, cut to [`RESULT_CHARS`].
fn result_text(name: &str, output: &str) -> String {
    let output = output.trim();
    if output.is_empty() {
        return format!("[{name} returned nothing]");
    }
    format!("[{name} returned:]\n{}", cut_middle(output, RESULT_CHARS))
}

/// `text` with its middle left out when it has more than `max` characters, saying how much:
/// the first and the last lines that fit in half of `max` each are kept whole (a line longer
/// than that is cut within it only when no whole line fits), so a reader never gets half a
/// line of output.
pub fn cut_middle(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let half = max / 2;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let head_end = kept_lines(lines.iter().copied(), half)
        .unwrap_or_else(|| text.char_indices().nth(half).map_or(text.len(), |(i, _)| i));
    let tail_len = kept_lines(lines.iter().rev().copied(), half).unwrap_or_else(|| {
        text.char_indices()
            .rev()
            .nth(half.saturating_sub(1))
            .map_or(0, |(i, _)| text.len() - i)
    });
    let tail_start = (text.len() - tail_len).max(head_end);
    let (head, middle, tail) = (
        &text[..head_end],
        &text[head_end..tail_start],
        &text[tail_start..],
    );
    let left_out = middle.chars().count();
    let line_count = middle.lines().count();
    let head_break = if head.ends_with('\n') { "" } else { "\n" };
    format!(
        "{head}{head_break}[... {left_out} characters in {line_count} {} left out ...]\n{tail}",
        if line_count == 1 { "line" } else { "lines" }
    )
}

/// The bytes of the whole lines, taken in order from `lines`, that fit in `budget` characters;
/// `None` when not even the first fits.
fn kept_lines<'t>(lines: impl Iterator<Item = &'t str>, budget: usize) -> Option<usize> {
    let (mut chars, mut bytes) = (0, 0);
    for line in lines {
        let n = line.chars().count();
        if chars + n > budget {
            break;
        }
        chars += n;
        bytes += line.len();
    }
    (bytes > 0).then_some(bytes)
}

fn media_name(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Image => "an image",
        MediaKind::Audio => "an audio clip",
        MediaKind::Video => "a video",
        MediaKind::Document => "a document",
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::transcript::MediaKind;

    fn text(role: Role, text: &'static str) -> Message<'static> {
        Message::new(role, vec![Part::Text(text.into())])
    }

    #[test]
    fn tools_become_text_in_the_assistant_turn() {
        let messages = [
            text(Role::User, "fix the test"),
            Message::new(
                Role::Assistant,
                vec![
                    Part::Thinking("secret reasoning".into()),
                    Part::Text("Running it.".into()),
                    Part::ToolCall {
                        id: Some(Cow::Borrowed("c1")),
                        name: "Bash".into(),
                        arguments: r#"{"command":"cargo test"}"#.into(),
                    },
                ],
            ),
            // Anthropic shape: the result in a user message.
            Message::new(
                Role::User,
                vec![Part::ToolResult {
                    call_id: Some(Cow::Borrowed("c1")),
                    text: "1 passed".into(),
                }],
            ),
            // OpenAI shape: a tool message keyed by its call id.
            text(Role::Tool, "done").answering(Some("c1".into())),
            text(Role::Assistant, "All green."),
            Message::new(Role::User, vec![Part::Media(MediaKind::Image)]),
        ];
        let turns = turns(&messages);
        let speakers: Vec<Speaker> = turns.iter().map(|t| t.speaker).collect();
        assert_eq!(speakers, [Speaker::User, Speaker::Assistant, Speaker::User]);
        let assistant = &turns[1].text;
        assert!(assistant
            .starts_with("Running it.\n\n[ran the tool `Bash` with {\"command\":\"cargo test\"}]"));
        assert!(assistant.contains("[`Bash` returned:]\n1 passed"));
        assert!(assistant.contains("[`Bash` returned:]\ndone"));
        assert!(assistant.ends_with("All green."));
        assert!(!assistant.contains("secret"));
        assert_eq!(turns[2].text, "[an image left out]");
    }

    #[test]
    fn harness_injections_sidechains_and_system_messages_are_left_out() {
        let mut side = text(Role::User, "sub-agent");
        side.sidechain = true;
        let messages = [
            text(Role::System, "You are Codex."),
            text(Role::User, "<environment_context>\n<cwd>/x</cwd>"),
            side,
            text(Role::User, "the real question"),
        ];
        let turns = turns(&messages);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].text, "the real question");
    }

    #[test]
    fn long_results_lose_their_middle() {
        // One long line: cut within it, as nothing else can be kept.
        let long = "a".repeat(3000) + &"b".repeat(3000);
        let cut = cut_middle(&long, 100);
        assert!(cut.starts_with(&"a".repeat(50)) && cut.ends_with(&"b".repeat(50)));
        assert!(cut.contains("[... 5900 characters in 1 line left out ...]"));
        assert_eq!(cut_middle("short", 100), "short");
        // Many lines: whole lines are kept at both ends, and the cut says how many went.
        let output: String = (0..100).map(|i| format!("line {i:03}\n")).collect();
        let cut = cut_middle(output.trim_end(), 100);
        assert!(cut.starts_with("line 000\n"), "{cut}");
        assert!(cut.ends_with("\nline 099"), "{cut}");
        let lines: Vec<&str> = cut.lines().collect();
        for line in &lines {
            assert!(
                line.starts_with("line ") && line.len() == 8 || line.starts_with("[... "),
                "{line}"
            );
        }
        let marker = lines.iter().find(|l| l.starts_with("[... ")).unwrap();
        let kept = lines.len() - 1;
        assert_eq!(
            *marker,
            format!(
                "[... {} characters in {} lines left out ...]",
                (100 - kept) * 9,
                100 - kept
            )
        );
        let unknown = result_text("a tool", "");
        assert_eq!(unknown, "[a tool returned nothing]");
    }
}
