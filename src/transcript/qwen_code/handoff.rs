//! A new Qwen Code session: one `user` or `assistant` record a turn, each a `message` of one
//! text part, chained by `parentUuid` (`null` first), every record's `sessionId` the session's
//! id and `cwd` its working directory, `"uuid"` first as Qwen Code writes its records
//! (`chatRecordingService.ts`, `createBaseRecord`). What its resume needs of them
//! (`docs/agents/qwen-code.md`): a `sessionId` equal to the file's id on every record
//! (`session-transcript-reader.ts`, `sessionIdMatchesFile`), and the first record's `cwd` the
//! project it is resumed from (`sessionService.ts`, `sessionBelongsToCurrentProject`): so the
//! working directory is required.

use anyhow::Result;
use serde::Serialize;
use serde_json::json;

use super::QwenCode;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

impl Handoff for QwenCode {
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        let cwd = require(&QwenCode, Field::Cwd, session.cwd)?;
        let mut parent: Option<String> = None;
        for (n, turn) in session.turns.iter().enumerate() {
            let uuid = session.line_id(n);
            let (kind, provenance, role) = match turn.speaker {
                Speaker::User => ("user", "real_user", "user"),
                Speaker::Assistant => ("assistant", "assistant_output", "model"),
            };
            let record = QwenRecord {
                uuid: &uuid,
                parent_uuid: parent.as_deref(),
                session_id: session.id,
                timestamp: session.timestamp(n),
                kind,
                provenance,
                cwd,
                model: session.model.filter(|_| turn.speaker == Speaker::Assistant),
                message: json!({ "role": role, "parts": [{ "text": turn.text }] }),
            };
            push_line(out, &serde_json::to_vec(&record)?);
            parent = Some(uuid);
        }
        Ok(())
    }
}

/// A message record, in Qwen Code's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct QwenRecord<'r> {
    uuid: &'r str,
    parent_uuid: Option<&'r str>,
    session_id: &'r str,
    timestamp: String,
    #[serde(rename = "type")]
    kind: &'static str,
    provenance: &'static str,
    cwd: &'r str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'r str>,
    message: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn one_chained_record_a_turn() {
        let lines = written(FormatId::QwenCode);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["parentUuid"], serde_json::Value::Null);
        assert_eq!(lines[0]["type"], "user");
        assert_eq!(lines[0]["cwd"], "/home/user/project");
        assert_eq!(lines[1]["type"], "assistant");
        assert_eq!(lines[1]["message"]["role"], "model");
        assert_eq!(lines[1]["parentUuid"], lines[0]["uuid"]);
        for line in &lines {
            assert_eq!(line["sessionId"], "11111111-2222-4333-8444-555555555555");
        }
        reads_back(FormatId::QwenCode);
    }
}
