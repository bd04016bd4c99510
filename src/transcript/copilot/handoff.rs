//! A new Copilot CLI session, written as Copilot's own `events.jsonl` (E1 of
//! `docs/agents/copilot.md`: these events alone resume): a `session.start` (`sessionId`,
//! `version` 1, `producer` "copilot-agent", `copilotVersion`, `startTime`, and the working
//! directory when known; no `selectedModel`, since the source's model may be one Copilot does
//! not offer, and Copilot then runs its own choice), then a `user.message` (`content`) or an
//! `assistant.message` (`messageId`, `content`, no `toolRequests`) per turn, each event with an
//! `id`, a `timestamp` and the `parentId` of the event before it, as Copilot chains its own.
//! The file goes to `session-state/<sessionId>/events.jsonl`; `copilot --resume ID` resumes it.

use anyhow::Result;
use serde::Serialize;
use serde_json::{json, Value};

use super::Copilot;
use crate::transcript::handoff::{Handoff, Session, Speaker};
use crate::transcript::write::{derived_uuid, push_line, Sink};

/// The Copilot CLI version whose `session.start` the new session imitates.
const VERSION: &str = "1.0.102";

impl Handoff for Copilot {
    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        let mut start = json!({
            "sessionId": session.id,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": VERSION,
            "startTime": session.timestamp(0),
        });
        if let Some(cwd) = session.cwd {
            start["context"] = json!({ "cwd": cwd });
        }
        let mut parent: Option<String> = None;
        let mut event = |kind: &'static str, data: Value, n: usize, out: &mut Sink| -> Result<()> {
            let id = session.line_id(n);
            let line = Event {
                kind,
                data,
                id: &id,
                timestamp: session.timestamp(n),
                parent_id: parent.as_deref(),
            };
            push_line(out, &serde_json::to_vec(&line)?);
            parent = Some(id);
            Ok(())
        };
        event("session.start", start, 0, out)?;
        for (n, turn) in session.turns.iter().enumerate() {
            let (kind, data) = match turn.speaker {
                Speaker::User => ("user.message", json!({ "content": turn.text })),
                Speaker::Assistant => (
                    "assistant.message",
                    json!({
                        "messageId": derived_uuid(session.seed, &format!("message-{n}")),
                        "content": turn.text,
                        "toolRequests": [],
                    }),
                ),
            };
            event(kind, data, n + 1, out)?;
        }
        Ok(())
    }
}

/// One event, its keys in the order Copilot writes them.
#[derive(Serialize)]
struct Event<'e> {
    #[serde(rename = "type")]
    kind: &'static str,
    data: Value,
    id: &'e str,
    timestamp: String,
    #[serde(rename = "parentId")]
    parent_id: Option<&'e str>,
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn a_start_then_one_event_a_turn_chained() {
        let lines = written(FormatId::Copilot);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["type"], "session.start");
        assert_eq!(
            lines[0]["data"]["sessionId"],
            "11111111-2222-4333-8444-555555555555"
        );
        assert_eq!(lines[0]["data"]["context"]["cwd"], "/home/user/project");
        assert_eq!(lines[0]["parentId"], serde_json::Value::Null);
        assert_eq!(lines[1]["type"], "user.message");
        assert_eq!(lines[2]["type"], "assistant.message");
        for pair in lines.windows(2) {
            assert_eq!(pair[1]["parentId"], pair[0]["id"]);
        }
        reads_back(FormatId::Copilot);
    }
}
