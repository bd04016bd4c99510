//! A new Claude Code session: one `user` or `assistant` line per turn, chained by `parentUuid`
//! from a root, each with the envelope Claude Code writes (`userType`, `cwd`, `sessionId`,
//! `version`) and `message` in the Anthropic Messages API shape. Assistant lines name the
//! source's model, or Claude Code's own `<synthetic>` for lines no model of this session wrote,
//! and a `usage` holding the size of the context up to them (the turns before as input, the
//! line's own as output, by condense's Claude estimate): Claude Code reads the last `usage` as
//! the context's size, so a status line shows what the new session holds before its first
//! reply, not 0. Where the file goes is [`super::home`]'s.

use anyhow::Result;
use serde::Serialize;

use super::ClaudeCode;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

/// The Claude Code version the lines claim: the one whose layout they copy.
const VERSION: &str = "2.1.332";

impl Handoff for ClaudeCode {
    /// The working directory: every line records it.
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        write(session, out)
    }
}

/// Writes `session` as Claude Code lines.
fn write(session: &Session, out: &mut Sink) -> Result<()> {
    let cwd = require(&ClaudeCode, Field::Cwd, session.cwd)?;
    let model = session.model.unwrap_or("<synthetic>");
    let mut parent: Option<String> = None;
    let mut context = 0;
    for (n, turn) in session.turns.iter().enumerate() {
        let uuid = session.line_id(n);
        let tokens = (session.claude_tokens)(&turn.text);
        let before = context;
        context += tokens;
        let message = match turn.speaker {
            Speaker::User => ApiMessage::User {
                role: "user",
                content: &turn.text,
            },
            Speaker::Assistant => ApiMessage::Assistant {
                id: format!("msg_condense_{}", &uuid.replace('-', "")[..24]),
                kind: "message",
                role: "assistant",
                model,
                content: [TextBlock {
                    kind: "text",
                    text: &turn.text,
                }],
                stop_reason: "end_turn",
                stop_sequence: None,
                usage: Usage {
                    input_tokens: before,
                    output_tokens: tokens,
                },
            },
        };
        let line = Line {
            parent_uuid: parent.as_deref(),
            is_sidechain: false,
            kind: match turn.speaker {
                Speaker::User => "user",
                Speaker::Assistant => "assistant",
            },
            message,
            uuid: &uuid,
            timestamp: session.timestamp(n),
            user_type: "external",
            entrypoint: "cli",
            cwd,
            session_id: session.id,
            version: VERSION,
        };
        push_line(out, &serde_json::to_vec(&line)?);
        parent = Some(uuid);
    }
    Ok(())
}

/// A message line, keys in Claude Code's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'l> {
    parent_uuid: Option<&'l str>,
    is_sidechain: bool,
    #[serde(rename = "type")]
    kind: &'static str,
    message: ApiMessage<'l>,
    uuid: &'l str,
    timestamp: String,
    user_type: &'static str,
    entrypoint: &'static str,
    cwd: &'l str,
    session_id: &'l str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum ApiMessage<'l> {
    User {
        role: &'static str,
        content: &'l str,
    },
    Assistant {
        id: String,
        #[serde(rename = "type")]
        kind: &'static str,
        role: &'static str,
        model: &'l str,
        content: [TextBlock<'l>; 1],
        stop_reason: &'static str,
        stop_sequence: Option<&'static str>,
        usage: Usage,
    },
}

#[derive(Serialize)]
struct TextBlock<'l> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'l str,
}

/// The context up to an assistant line: the turns before it, and its own.
#[derive(Serialize)]
struct Usage {
    input_tokens: u64,
    output_tokens: u64,
}

#[cfg(test)]
mod tests {
    use crate::tokens::{Family, Tokenizer};
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn lines_chain_from_a_root_in_one_session() {
        let lines = written(FormatId::ClaudeCode);
        assert_eq!(lines.len(), 3);
        assert!(lines[0]["parentUuid"].is_null());
        for pair in lines.windows(2) {
            assert_eq!(pair[1]["parentUuid"], pair[0]["uuid"]);
            assert!(pair[0]["timestamp"].as_str() < pair[1]["timestamp"].as_str());
        }
        for line in &lines {
            assert_eq!(line["sessionId"], "11111111-2222-4333-8444-555555555555");
            assert_eq!(line["cwd"], "/home/user/project");
        }
        assert_eq!(lines[1]["type"], "assistant");
        assert_eq!(lines[1]["message"]["model"], "claude-sonnet-4-5");
        assert_eq!(lines[1]["message"]["content"][0]["type"], "text");
        reads_back(FormatId::ClaudeCode);
    }

    #[test]
    fn an_assistant_line_records_the_context_up_to_it() {
        let lines = written(FormatId::ClaudeCode);
        let tokens = |line: &serde_json::Value| {
            let text = match &line["message"]["content"] {
                serde_json::Value::String(text) => text.clone(),
                blocks => blocks[0]["text"].as_str().unwrap().to_owned(),
            };
            Tokenizer::Fast(Family::Claude).text_tokens(&text)
        };
        let usage = &lines[1]["message"]["usage"];
        assert_eq!(usage["input_tokens"], tokens(&lines[0]));
        assert_eq!(usage["output_tokens"], tokens(&lines[1]));
        assert!(usage["input_tokens"].as_u64().unwrap() > 0);
    }
}
