//! A compaction written back as opencode writes its own (`packages/opencode/src/session/
//! compaction.ts`, `SessionCompaction.create` then `.process`): every line stays, and two
//! messages are appended:
//!
//! 1. a user message (`role`, `time.created`, the `agent` and `model` of the session's newest
//!    user message) with one part `{"type": "compaction", "auto": false, "tail_start_id"}`,
//!    `tail_start_id` the id of the first kept message (left out when nothing is kept, as
//!    `SessionCompaction.select` leaves it out);
//! 2. an assistant message with `summary: true`, `mode` and `agent` `"compaction"`,
//!    `parentID` that user message, `finish: "stop"`, zero `tokens` and `cost`, the `path`,
//!    `modelID` and `providerID` of the newest assistant message, and one `text` part holding
//!    the summary.
//!
//! Both are created one and two milliseconds after the session's newest message, with ids of
//! opencode's ascending shape (`Identifier.ascending`: the prefix, twelve hex digits of the
//! time times 4096, fourteen characters more), so they sort after every message in opencode's
//! order. opencode keeps every message from `tail_start_id` on: a tail that is not one stretch
//! to the end keeps what lies between too. A tail that reaches back before opencode's own
//! newest summary would send that summary again inside the tail: such a plan is refused.

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::ids::ascending;
use super::read::COMPACTION_PART;
use super::OpenCode;
use crate::transcript::json::str_at;
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

impl WriteBack for OpenCode {
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let first_kept = compacted.tail.iter().copied().min();
        if let Some(first) = first_kept {
            if let Some(marker) = (first..records.len()).find(|&i| records[i].compaction) {
                bail!(
                    "the kept tail reaches back before opencode's own compaction (line {}): keep \
                     fewer messages",
                    records[marker].line
                );
            }
        }
        let infos: Vec<Map<String, Value>> = records
            .iter()
            .filter_map(|record| {
                let line: Value = serde_json::from_slice(record.raw).ok()?;
                match line.get("info") {
                    Some(Value::Object(info)) => Some(info.clone()),
                    _ => None,
                }
            })
            .collect();
        let newest = |role: &str| {
            infos
                .iter()
                .rev()
                .find(|info| info.get("role").and_then(Value::as_str) == Some(role))
        };
        let session = infos
            .iter()
            .find_map(|info| info.get("sessionID").and_then(Value::as_str))
            .context("no opencode message names its session")?;
        let last = infos
            .iter()
            .filter_map(|info| info.get("time")?.get("created")?.as_u64())
            .max()
            .unwrap_or(0);
        let (user_at, summary_at) = (last + 1, last + 2);
        let user_id = ascending(
            "msg",
            user_at,
            &derived_uuid(&compacted.seed, "opencode-user"),
        );
        let summary_id = ascending(
            "msg",
            summary_at,
            &derived_uuid(&compacted.seed, "opencode-summary"),
        );
        let user = newest("user");
        let assistant = newest("assistant");
        let field = |info: Option<&Map<String, Value>>, key: &str| {
            info.and_then(|info| info.get(key)).cloned()
        };
        let mut part = json!({"type": COMPACTION_PART, "auto": false});
        if let Some(tail) = first_kept.and_then(|i| str_at(records[i].raw, &["info", "id"])) {
            part["tail_start_id"] = tail.into();
        }
        let request = json!({
            "info": {
                "id": user_id,
                "sessionID": session,
                "role": "user",
                "time": {"created": user_at},
                "agent": field(user, "agent").unwrap_or_else(|| "build".into()),
                "model": field(user, "model"),
            },
            "parts": [with_ids(part, "prt", user_at, &user_id, session, &compacted.seed, "request")],
        });
        let model = field(user, "model");
        let summary = json!({
            "info": {
                "id": summary_id,
                "sessionID": session,
                "role": "assistant",
                "parentID": user_id,
                "mode": "compaction",
                "agent": "compaction",
                "summary": true,
                "path": field(assistant, "path"),
                "cost": 0,
                "tokens": {"total": 0, "input": 0, "output": 0, "reasoning": 0,
                           "cache": {"write": 0, "read": 0}},
                "modelID": field(assistant, "modelID")
                    .or_else(|| model.as_ref().and_then(|m| m.get("modelID").cloned())),
                "providerID": field(assistant, "providerID")
                    .or_else(|| model.as_ref().and_then(|m| m.get("providerID").cloned())),
                "time": {"created": summary_at, "completed": summary_at},
                "finish": "stop",
            },
            "parts": [with_ids(
                json!({"type": "text", "text": compacted.summary,
                       "time": {"start": summary_at, "end": summary_at}}),
                "prt", summary_at, &summary_id, session, &compacted.seed, "summary",
            )],
        });
        push_kept(out, &compacted.all_lines());
        push_line(out, &serde_json::to_vec(&without_nulls(request))?);
        push_line(out, &serde_json::to_vec(&without_nulls(summary))?);
        Ok(())
    }
}

/// A part with its `id`, `sessionID` and `messageID`, as opencode's readers hand parts out.
fn with_ids(
    mut part: Value,
    prefix: &str,
    at: u64,
    message: &str,
    session: &str,
    seed: &str,
    tag: &str,
) -> Value {
    part["id"] = ascending(
        prefix,
        at,
        &derived_uuid(seed, &format!("opencode-part-{tag}")),
    )
    .into();
    part["sessionID"] = session.into();
    part["messageID"] = message.into();
    part
}

/// `value` without the `null` members of its `info` (a field the session never had).
fn without_nulls(mut value: Value) -> Value {
    if let Some(Value::Object(info)) = value.get_mut("info") {
        info.retain(|_, v| !v.is_null());
    }
    value
}
