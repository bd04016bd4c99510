//! A new Gemini CLI session (the JSONL layout): the metadata line (`sessionId`, `projectHash`:
//! the SHA-256 of the project directory, as Gemini CLI names it, `startTime`, `lastUpdated`,
//! `kind`), then one record per turn: `user` with a list of text parts, `gemini` with the text
//! and the source's model. `gemini --session-file FILE` resumes it.

use anyhow::Result;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::Gemini;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{push_line, Sink};

impl Handoff for Gemini {
    /// The working directory, whose hash the metadata records: a session without one does not
    /// load.
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        write(session, out)
    }
}

/// Writes `session` as Gemini CLI records.
fn write(session: &Session, out: &mut Sink) -> Result<()> {
    let cwd = require(&Gemini, Field::Cwd, session.cwd)?;
    let last = session.turns.len();
    let metadata = json!({
        "sessionId": session.id,
        "projectHash": project_hash(cwd),
        "startTime": session.timestamp(0),
        "lastUpdated": session.timestamp(last),
        "kind": "main",
    });
    push_line(out, &serde_json::to_vec(&metadata)?);
    for (n, turn) in session.turns.iter().enumerate() {
        let mut record = json!({
            "id": session.line_id(n),
            "timestamp": session.timestamp(n + 1),
        });
        match turn.speaker {
            Speaker::User => {
                record["type"] = json!("user");
                record["content"] = json!([{ "text": turn.text }]);
            }
            Speaker::Assistant => {
                record["type"] = json!("gemini");
                record["content"] = json!(turn.text);
                if let Some(model) = session.model {
                    record["model"] = json!(model);
                }
            }
        }
        push_line(out, &serde_json::to_vec(&record)?);
    }
    Ok(())
}

/// Gemini CLI's `projectHash`: the SHA-256 of the project directory, in lowercase hex
/// (its `getProjectHash`).
fn project_hash(cwd: &str) -> String {
    Sha256::digest(cwd.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::handoff::testing::{reads_back, written};
    use crate::transcript::FormatId;

    #[test]
    fn metadata_then_user_and_gemini_records() {
        let lines = written(FormatId::Gemini);
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[0]["sessionId"],
            "11111111-2222-4333-8444-555555555555"
        );
        assert_eq!(
            lines[0]["projectHash"],
            project_hash("/home/user/project").as_str()
        );
        assert_eq!(lines[1]["type"], "user");
        assert_eq!(lines[2]["type"], "gemini");
        assert_eq!(lines[2]["model"], "claude-sonnet-4-5");
        reads_back(FormatId::Gemini);
    }

    /// The hash Gemini CLI gives the project directory of the handoff tests (Node's
    /// `crypto.createHash('sha256').update('/home/user/project').digest('hex')`).
    #[test]
    fn the_project_hash_is_gemini_clis() {
        assert_eq!(
            project_hash("/home/user/project"),
            "9dad1e4e08b0b11cbcd860257e8bdfa6b8e5f01790e10a6a0b1f4870c13e686b"
        );
    }
}
