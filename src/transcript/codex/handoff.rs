//! A new Codex CLI rollout: a `session_meta` line (the session's `id`, `timestamp`, `cwd`, and
//! `originator`, `cli_version`, `source`, `model_provider`, which Codex requires), then one
//! `response_item` message per turn: the user's as `input_text`, the assistant's as
//! `output_text`. No `turn_context`: Codex writes its own when the next turn starts. `codex
//! resume ID` finds the file at `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-ID.jsonl`.

use anyhow::Result;
use serde::Serialize;

use super::Codex;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

/// The Codex version the header claims: the one whose layout it copies.
const CLI_VERSION: &str = "0.171.0";

impl Handoff for Codex {
    /// The working directory: the session header records it.
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        write(session, out)
    }
}

/// Writes `session` as a Codex rollout.
fn write(session: &Session, out: &mut Sink) -> Result<()> {
    let cwd = require(&Codex, Field::Cwd, session.cwd)?;
    let start = session.timestamp(0);
    let meta = Line {
        timestamp: &start,
        kind: "session_meta",
        payload: Payload::Meta {
            id: session.id,
            timestamp: &start,
            cwd,
            originator: "condense",
            cli_version: CLI_VERSION,
            // `cli`: the interactive `codex resume` picker lists these.
            source: "cli",
            model_provider: "openai",
        },
    };
    push_line(out, &serde_json::to_vec(&meta)?);
    for (n, turn) in session.turns.iter().enumerate() {
        let timestamp = session.timestamp(n + 1);
        let (role, kind) = match turn.speaker {
            Speaker::User => ("user", "input_text"),
            Speaker::Assistant => ("assistant", "output_text"),
        };
        let line = Line {
            timestamp: &timestamp,
            kind: "response_item",
            payload: Payload::Message {
                kind: "message",
                role,
                content: [Content {
                    kind,
                    text: &turn.text,
                }],
            },
        };
        push_line(out, &serde_json::to_vec(&line)?);
    }
    Ok(())
}

#[derive(Serialize)]
struct Line<'l> {
    timestamp: &'l str,
    #[serde(rename = "type")]
    kind: &'static str,
    payload: Payload<'l>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Payload<'l> {
    Meta {
        id: &'l str,
        timestamp: &'l str,
        cwd: &'l str,
        originator: &'static str,
        cli_version: &'static str,
        source: &'static str,
        model_provider: &'static str,
    },
    Message {
        #[serde(rename = "type")]
        kind: &'static str,
        role: &'static str,
        content: [Content<'l>; 1],
    },
}

#[derive(Serialize)]
struct Content<'l> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'l str,
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn a_header_then_one_message_item_per_turn() {
        let lines = written(FormatId::Codex);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["type"], "session_meta");
        assert_eq!(
            lines[0]["payload"]["id"],
            "11111111-2222-4333-8444-555555555555"
        );
        assert_eq!(lines[0]["payload"]["cwd"], "/home/user/project");
        assert_eq!(lines[2]["payload"]["role"], "assistant");
        assert_eq!(lines[2]["payload"]["content"][0]["type"], "output_text");
        assert_eq!(lines[3]["payload"]["content"][0]["type"], "input_text");
        for pair in lines.windows(2) {
            assert!(pair[0]["timestamp"].as_str() < pair[1]["timestamp"].as_str());
        }
        reads_back(FormatId::Codex);
    }
}
