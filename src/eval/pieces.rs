//! The texts of a session `eval` looks for entities in (pure): a record cut into pieces, each
//! with the line it came from and whether it is a command line or a person's words.
//!
//! Before a cut everything in the live context counts, tool outputs included: a path the agent
//! only saw in a listing is still something the context held. After a cut only what the user
//! and the agent wrote counts (text, thinking, tool-call arguments: the paths read, the
//! commands run, the edits), never what a tool printed, which no summary could have known.

use serde_json::Value;

use crate::transcript::classify::is_real_user_request;
use crate::transcript::{Message, Part, Record, Role};

/// A text to look for entities in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The 1-based line of the session it comes from.
    pub line: usize,
    /// The text.
    pub text: String,
    /// True for a shell command line a tool ran.
    pub shell: bool,
    /// True for the words of a request a person typed.
    pub user: bool,
}

/// The pieces of a record of the live context before a cut: every part of a main-chain
/// message, tool results included.
pub fn context_pieces(record: &Record, out: &mut Vec<Piece>) {
    let Some(message) = record.message().filter(|m| !m.sidechain) else {
        return;
    };
    // A pi or Codex marker is a user-role message holding the earlier summary: the summary's
    // words are not the user's constraints.
    let user = is_real_user_request(message) && !record.compaction;
    message_pieces(record.line, message, true, user, out);
}

/// The pieces of a record after a cut: what the user typed and what the agent wrote and
/// called tools with. Tool results, tool-role messages, sub-agents and the text a harness
/// injects under `user` (reminders, command echoes, summaries) are left out.
pub fn written_pieces(record: &Record, out: &mut Vec<Piece>) {
    let Some(message) = record.message().filter(|m| !m.sidechain) else {
        return;
    };
    match message.role {
        Role::Assistant => message_pieces(record.line, message, false, false, out),
        Role::User if is_real_user_request(message) => {
            message_pieces(record.line, message, false, true, out);
        }
        _ => {}
    }
}

fn message_pieces(line: usize, message: &Message, results: bool, user: bool, out: &mut Vec<Piece>) {
    let text = |text: &str, shell: bool| Piece {
        line,
        text: text.to_owned(),
        shell,
        user,
    };
    for part in &message.parts {
        match part {
            Part::Text(t) | Part::Thinking(t) => out.push(text(t, false)),
            Part::ToolResult { text: t, .. } if results => out.push(text(t, false)),
            Part::ToolCall { arguments, .. } => match serde_json::from_str(arguments) {
                Ok(value) => arguments_pieces(line, &value, false, out),
                // apply_patch and other free-form tools take plain text.
                Err(_) => out.push(text(arguments, false)),
            },
            _ => {}
        }
    }
}

/// The strings inside tool-call arguments; those under a `command` or `cmd` key are shell
/// command lines. An argv (Codex `["bash", "-lc", "…"]`) is its script, or its words joined.
fn arguments_pieces(line: usize, value: &Value, shell: bool, out: &mut Vec<Piece>) {
    let piece = |text: String, shell: bool| Piece {
        line,
        text,
        shell,
        user: false,
    };
    match value {
        Value::String(s) => out.push(piece(s.clone(), shell)),
        Value::Array(items) if shell => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let script = match words.as_slice() {
                [sh, flag, script, ..] if sh.ends_with("sh") && flag.starts_with('-') => {
                    (*script).to_owned()
                }
                _ => words.join(" "),
            };
            out.push(piece(script, true));
        }
        Value::Array(items) => {
            for item in items {
                arguments_pieces(line, item, false, out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                arguments_pieces(line, item, key == "command" || key == "cmd", out);
            }
        }
        _ => {}
    }
}
