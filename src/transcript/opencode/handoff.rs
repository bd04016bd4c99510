//! A new opencode session handed over from another agent: one line a turn, in the shape of
//! [`super::read`] (a user message with one `text` part; an assistant message with
//! `parentID`, `mode` and `agent` `"build"`, the working directory as `path.cwd`, zero
//! `tokens`, `finish: "stop"`, and one `text` part), a millisecond apart, under a session id
//! of opencode's descending shape (`Identifier.descending`, so the newest session sorts first).
//! The model of each message is left out: opencode knows its own providers, the source's model
//! is rarely one of them, and the rows written into the database take the model of the newest
//! message opencode wrote there ([`super::store`]). The working directory is required:
//! opencode runs a session in its `directory`.

use anyhow::Result;
use serde_json::{json, Value};

use super::ids::{ascending, descending};
use super::OpenCode;
use crate::transcript::handoff::{require, Field, Handoff, Session, Speaker};
use crate::transcript::write::{derived_uuid, push_line, Sink};

impl Handoff for OpenCode {
    fn needs(&self) -> &'static [Field] {
        &[Field::Cwd]
    }

    fn write_handoff(&self, session: &Session, out: &mut Sink) -> Result<()> {
        let cwd = require(&OpenCode, Field::Cwd, session.cwd)?;
        let id = session_id(session.id, session.start_ms);
        let mut user: Option<String> = None;
        for (n, turn) in session.turns.iter().enumerate() {
            let at = session.millis(n);
            let message = ascending("msg", at, &session.line_id(n).replace('-', ""));
            let part = ascending(
                "prt",
                at,
                &derived_uuid(session.seed, &format!("part-{n}")).replace('-', ""),
            );
            let info: Value = match turn.speaker {
                Speaker::User => {
                    user = Some(message.clone());
                    json!({"id": message, "sessionID": id, "role": "user",
                           "time": {"created": at}, "agent": "build"})
                }
                Speaker::Assistant => json!({
                    "id": message, "sessionID": id, "role": "assistant",
                    "parentID": user.clone().unwrap_or_default(),
                    "mode": "build", "agent": "build",
                    "path": {"cwd": cwd, "root": "/"}, "cost": 0,
                    "tokens": {"input": 0, "output": 0, "reasoning": 0,
                               "cache": {"read": 0, "write": 0}},
                    "time": {"created": at, "completed": at}, "finish": "stop",
                }),
            };
            let line = json!({
                "info": info,
                "parts": [{"id": part, "sessionID": id, "messageID": message,
                           "type": "text", "text": turn.text}],
            });
            push_line(out, &serde_json::to_vec(&line)?);
        }
        Ok(())
    }
}

/// The opencode id of the session handed over as `id` (condense's UUID of it) at `start_ms`.
pub(super) fn session_id(id: &str, start_ms: u64) -> String {
    descending("ses", start_ms, id)
}
