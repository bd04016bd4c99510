//! A new Droid session (E4 of `docs/agents/droid.md`: these records alone resume): a
//! `session_start` (`id`, `title`, `owner`, without which Droid does not take the file for a
//! session, `version` 2, `cwd`), then one `message` record per turn (`id`, `parentId` of the
//! message before, `timestamp`, an Anthropic-shaped `message` of one text block), `"type"`
//! first as Droid writes its lines. The working directory decides the folder Droid keeps the
//! session in, so it is required.

use anyhow::Result;
use serde::Serialize;
use serde_json::json;

use super::Droid;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

/// The `owner` Droid records when no one is logged in.
const OWNER: &str = "unknown";

/// The most characters of the first request taken as the session's title.
const TITLE_CHARS: usize = 80;

impl Handoff for Droid {
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        let cwd = require(&Droid, Field::Cwd, session.cwd)?;
        let title: String = session
            .turns
            .iter()
            .find(|turn| turn.speaker == Speaker::User)
            .and_then(|turn| turn.text.lines().find(|line| !line.trim().is_empty()))
            .unwrap_or("Handed over by condense")
            .chars()
            .take(TITLE_CHARS)
            .collect();
        let start = json!({
            "type": "session_start",
            "id": session.id,
            "title": title,
            "owner": OWNER,
            "version": 2,
            "cwd": cwd,
        });
        push_line(out, &serde_json::to_vec(&start)?);
        let mut parent: Option<String> = None;
        for (n, turn) in session.turns.iter().enumerate() {
            let id = session.line_id(n);
            let record = MessageRecord {
                kind: "message",
                id: &id,
                parent_id: parent.as_deref(),
                timestamp: session.timestamp(n + 1),
                message: json!({
                    "role": turn.speaker.role(),
                    "content": [{ "type": "text", "text": turn.text }],
                }),
            };
            push_line(out, &serde_json::to_vec(&record)?);
            parent = Some(id);
        }
        Ok(())
    }
}

/// A `message` record, in Droid's key order.
#[derive(Serialize)]
struct MessageRecord<'r> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'r str,
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'r str>,
    timestamp: String,
    message: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn a_session_start_then_one_message_a_turn() {
        let lines = written(FormatId::Droid);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["type"], "session_start");
        assert_eq!(lines[0]["owner"], "unknown");
        assert_eq!(lines[0]["cwd"], "/home/user/project");
        assert_eq!(lines[1]["message"]["role"], "user");
        assert_eq!(lines[2]["message"]["role"], "assistant");
        assert_eq!(lines[2]["parentId"], lines[1]["id"]);
        reads_back(FormatId::Droid);
    }
}
