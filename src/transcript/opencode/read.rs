//! Reading an opencode session's lines (see [`super::store`] for where they come from): one
//! line a message, `{"info": {…}, "parts": […]}`, the shapes of
//! `packages/opencode/src/session/message-v2.ts`. What each part becomes follows what
//! `MessageV2.toModelMessages` sends of it:
//!
//! - a user `text` part (not `ignored`, not empty): text; a `file` part: media (a `text/plain`
//!   file or a directory is not sent: opencode sends its content as the text parts beside it);
//!   a `subtask` part: the text opencode sends for it; a `compaction` part: the request of a
//!   compaction (opencode sends it as `What did we do so far?`), named `compaction`;
//! - an assistant `text` part: text; `reasoning`: thinking; a `tool` part: the call and its
//!   result in one (`state.output`; `[Old tool result content cleared]` once opencode pruned it,
//!   `state.time.compacted`; the error of an `error` state; `[Tool execution was
//!   interrupted]` for one still `pending` or `running`);
//! - `step-start`, `step-finish`, `patch`, `snapshot`, `agent`, `retry`: not sent, left out.
//!
//! An assistant message with an `error` is not sent (unless an abort left content), and is
//! read as a message beside the chain. The compaction marker is the summary: the assistant
//! message with `summary: true`, a `finish` and no error, whose `parentID` is the compaction's
//! user message; that user message carries the first kept message's id (`tail_start_id`).
//! The context size an assistant message records is its step's `tokens` (`total`, else
//! `input + output + cache.read + cache.write`, the count of `SessionCompaction.isOverflow`).

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::Value;

use super::OpenCode;
use crate::transcript::blocks::{borrowed_str, raw_json};
use crate::transcript::format::Format;
use crate::transcript::json::str_at;
use crate::transcript::model::{
    node_id, Entry, Event, Keep, MediaKind, Message, Parent, Part, Record, Role, Usage,
};
use crate::transcript::sketch::Sketch;

/// The name a compaction's request part goes by in reports.
pub(super) const COMPACTION_PART: &str = "compaction";

/// What opencode sends for a pruned tool output (`toModelMessages`).
pub(super) const CLEARED: &str = "[Old tool result content cleared]";

/// What opencode sends for a tool call that never finished (`toModelMessages`).
const INTERRUPTED: &str = "[Tool execution was interrupted]";

/// What opencode sends for a `subtask` part (`toModelMessages`).
const SUBTASK: &str = "The following tool was executed by the user";

/// Whether a parsed line is one of opencode's messages: an `info` object with a `role` and an
/// `id`, beside a `parts` list.
fn is_message_line(line: &Sketch) -> bool {
    line.get("parts").is_some_and(Sketch::is_array)
        && line
            .get("info")
            .is_some_and(|info| info.has("role") && info.has("id"))
}

impl Format for OpenCode {
    fn name(&self) -> &'static str {
        "opencode"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(is_message_line)
    }

    fn envelope(&self, line: &Sketch) -> bool {
        is_message_line(line)
    }

    fn model(&self, raw: &[u8]) -> Option<String> {
        str_at(raw, &["info", "modelID"])
    }

    fn cwd(&self, raw: &[u8]) -> Option<String> {
        str_at(raw, &["info", "path", "cwd"])
    }

    fn has_ids(&self) -> bool {
        true
    }

    /// The summary message (`summary: true`) of a compaction, named by its `mode`.
    fn compaction_marker(&self) -> Option<&'static str> {
        Some(COMPACTION_PART)
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let message: Line<'a> = serde_json::from_str(text)?;
        let Some(info) = message.info else {
            bail!("line has no \"info\" object");
        };
        let Some(id) = info.id.clone() else {
            bail!("message has no \"id\"");
        };
        let role = match info.role.as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => bail!("message has no known \"role\" (expected user or assistant)"),
        };
        let mut tail_start = None;
        let mut parts = Vec::new();
        for part in message.parts {
            match part.kind.as_deref() {
                Some(COMPACTION_PART) if role == Role::User => {
                    tail_start = Some(part.tail_start_id.clone());
                    parts.push(Part::Other(Cow::Borrowed(COMPACTION_PART)));
                }
                _ => part.into_model(role, &mut parts),
            }
        }
        let errored = info.error.is_some();
        let summary = role == Role::Assistant
            && info.summary == Some(Value::Bool(true))
            && info.finish.is_some()
            && !errored;
        let sent = !errored || parts.iter().any(|p| !matches!(p, Part::Thinking(_)));
        let raw = text.as_bytes();
        if parts.is_empty() {
            // Only steps' bookkeeping: toModelMessages sends nothing of it.
            let mut record = Record::new(line, raw, Entry::Bookkeeping("empty message".into()));
            record.link.id = Some(node_id(&id));
            return Ok(record);
        }
        let message = Message {
            // An errored step is not sent (an abort that left content is).
            sidechain: errored && !(info.aborted() && sent),
            ..Message::new(role, parts)
        };
        let mut record = Record::new(line, raw, Entry::Message(message));
        record.link.id = Some(node_id(&id));
        if let Some(tail) = tail_start {
            record.link.event = Event::Compaction(match tail {
                Some(tail) => Keep::FromNode(node_id(&tail)),
                None => Keep::Nothing,
            });
        }
        if summary {
            record.compaction = true;
            record.link.parent = info
                .parent_id
                .as_deref()
                .map_or(Parent::Root, |parent| Parent::Node(node_id(parent)));
        } else if role == Role::Assistant {
            record.usage = info.tokens.and_then(Tokens::context).map(|tokens| Usage {
                context_tokens: tokens,
                response_key: None,
            });
        }
        Ok(record)
    }
}

/// One line: a message's `info` and its `parts`.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    info: Option<Info<'a>>,
    #[serde(borrow, default)]
    parts: Vec<PartLine<'a>>,
}

#[derive(Deserialize)]
struct Info<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(
        rename = "parentID",
        borrow,
        default,
        deserialize_with = "borrowed_str"
    )]
    parent_id: Option<Cow<'a, str>>,
    /// `true` on a summary; a user message's is an object (its diffs).
    #[serde(default)]
    summary: Option<Value>,
    #[serde(default)]
    finish: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    tokens: Option<Tokens>,
}

impl Info<'_> {
    /// Whether the error is an abort (`MessageAbortedError`), which opencode still sends when
    /// the step left content.
    fn aborted(&self) -> bool {
        self.error
            .as_ref()
            .and_then(|e| e.get("name"))
            .and_then(Value::as_str)
            == Some("MessageAbortedError")
    }
}

/// An assistant step's token counts.
#[derive(Deserialize)]
struct Tokens {
    #[serde(default)]
    total: Option<u64>,
    #[serde(default)]
    input: u64,
    #[serde(default)]
    output: u64,
    #[serde(default)]
    cache: Cache,
}

#[derive(Deserialize, Default)]
struct Cache {
    #[serde(default)]
    read: u64,
    #[serde(default)]
    write: u64,
}

impl Tokens {
    /// The context the step filled, as `isOverflow` counts it; `None` for a step that counted
    /// nothing.
    fn context(self) -> Option<u64> {
        let count = match self.total {
            Some(total) if total > 0 => total,
            _ => self.input + self.output + self.cache.read + self.cache.write,
        };
        (count > 0).then_some(count)
    }
}

/// One part, with the fields any type of part has that condense reads.
#[derive(Deserialize)]
struct PartLine<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    ignored: bool,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    mime: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    tool: Option<Cow<'a, str>>,
    #[serde(rename = "callID", borrow, default, deserialize_with = "borrowed_str")]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    state: Option<ToolState<'a>>,
    #[serde(default)]
    tail_start_id: Option<String>,
}

#[derive(Deserialize)]
struct ToolState<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    input: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    output: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    error: Option<Cow<'a, str>>,
    #[serde(default)]
    time: Option<Value>,
}

impl<'a> PartLine<'a> {
    /// The model's parts for this part of a `role` message, as opencode sends it.
    fn into_model(self, role: Role, out: &mut Vec<Part<'a>>) {
        match (self.kind.as_deref(), role) {
            (Some("text"), _) => {
                let text = self.text.unwrap_or_default();
                if role == Role::Assistant || (!self.ignored && !text.is_empty()) {
                    out.push(Part::Text(text.into()));
                }
            }
            (Some("reasoning"), Role::Assistant) => {
                out.push(Part::Thinking(self.text.unwrap_or_default().into()));
            }
            (Some("file"), Role::User) => match self.mime.as_deref() {
                Some("text/plain" | "application/x-directory") => {}
                Some(mime) if mime.starts_with("image/") => out.push(Part::Media(MediaKind::Image)),
                _ => out.push(Part::Media(MediaKind::Document)),
            },
            (Some("subtask"), Role::User) => out.push(Part::Text(SUBTASK.into())),
            (Some("tool"), Role::Assistant) => self.tool_parts(out),
            _ => {}
        }
    }

    /// A tool part: its call, then its result.
    fn tool_parts(self, out: &mut Vec<Part<'a>>) {
        let Some(state) = self.state else {
            return;
        };
        let call_id = self.call_id;
        out.push(Part::ToolCall {
            id: call_id.clone(),
            name: self.tool.unwrap_or_default(),
            arguments: Cow::Borrowed(state.input.unwrap_or("{}")).into(),
        });
        let compacted = state
            .time
            .as_ref()
            .and_then(|time| time.get("compacted"))
            .is_some_and(|c| !c.is_null());
        let text: Cow<'a, str> = match state.status.as_deref() {
            Some("completed") if compacted => Cow::Borrowed(CLEARED),
            Some("completed") => state.output.unwrap_or_default(),
            Some("error") => state.error.unwrap_or_default(),
            _ => Cow::Borrowed(INTERRUPTED),
        };
        out.push(Part::ToolResult {
            call_id,
            text: text.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::classify::text_of;
    use crate::transcript::opencode::testing::session;

    #[test]
    fn reads_messages_tools_and_the_compaction() {
        let user = r#"{"info":{"id":"msg_1","sessionID":"s","role":"user","time":{"created":1}},"parts":[{"id":"prt_1","type":"text","text":"Q1"},{"id":"prt_2","type":"text","text":"","synthetic":true}]}"#;
        let record = OpenCode.read(1, user).unwrap();
        assert_eq!(record.message().unwrap().parts, [Part::Text("Q1".into())]);
        assert_eq!(record.link.id, Some(node_id("msg_1")));
        let tools = r#"{"info":{"id":"msg_2","role":"assistant","parentID":"msg_1","finish":"tool-calls","tokens":{"total":17,"input":12,"output":5,"cache":{"read":0,"write":0}}},"parts":[{"type":"step-start"},{"type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"a"},"output":"A","time":{"start":1,"end":2}}},{"type":"tool","tool":"read","callID":"c2","state":{"status":"completed","input":{},"output":"B","time":{"start":1,"end":2,"compacted":3}}},{"type":"step-finish"}]}"#;
        let record = OpenCode.read(2, tools).unwrap();
        let message = record.message().unwrap();
        assert_eq!(message.parts.len(), 4);
        assert!(
            matches!(&message.parts[0], Part::ToolCall { name, arguments, .. } if name == "read" && arguments == r#"{"filePath":"a"}"#)
        );
        assert!(
            matches!(&message.parts[3], Part::ToolResult { text, .. } if text.as_str() == CLEARED)
        );
        assert!(!message.answers_a_call());
        assert_eq!(record.usage.unwrap().context_tokens, 17);
        let request = r#"{"info":{"id":"msg_3","role":"user"},"parts":[{"type":"compaction","auto":false,"tail_start_id":"msg_1"}]}"#;
        let record = OpenCode.read(3, request).unwrap();
        assert!(!record.compaction);
        assert_eq!(
            record.link.event,
            Event::Compaction(Keep::FromNode(node_id("msg_1")))
        );
        let summary = r#"{"info":{"id":"msg_4","role":"assistant","parentID":"msg_3","summary":true,"mode":"compaction","finish":"stop"},"parts":[{"type":"step-start"},{"type":"text","text":"S"}]}"#;
        let record = OpenCode.read(4, summary).unwrap();
        assert!(record.compaction);
        assert_eq!(record.link.parent, Parent::Node(node_id("msg_3")));
        assert_eq!(text_of(record.message().unwrap()), "S");
        let failed = r#"{"info":{"id":"msg_5","role":"assistant","error":{"name":"APIError"}},"parts":[{"type":"text","text":"x"}]}"#;
        assert!(
            OpenCode
                .read(5, failed)
                .unwrap()
                .message()
                .unwrap()
                .sidechain
        );
        let steps = r#"{"info":{"id":"msg_6","role":"assistant"},"parts":[{"type":"step-start"}]}"#;
        assert!(OpenCode.read(6, steps).unwrap().message().is_none());
        assert!(OpenCode.read(7, r#"{"parts":[]}"#).is_err());
        assert!(OpenCode
            .read(7, r#"{"info":{"id":"m","role":"system"},"parts":[]}"#)
            .is_err());
    }

    /// The three sessions opencode 1.18.33 wrote against the mock (`fixtures/agents/opencode/`).
    #[test]
    fn reads_the_sessions_opencode_wrote() {
        for (id, messages, compactions) in [
            // sqlite3 opencode.db "select count(*) from message where session_id='…'": 7, 10, 12
            // messages, each with text or tool parts; one summary message per /compact.
            ("ses_dbdc535e8ffe5HFN9TBZwRoHKG", 7, 0),
            ("ses_dbdc40a00ffedRji45t55ZECSd", 10, 1),
            ("ses_dbdc1f885ffe1ifA1JLs4Mr0aM", 12, 2),
        ] {
            let lines = session(id);
            let text = String::from_utf8(lines).unwrap();
            let head: Vec<Sketch> = text
                .lines()
                .take(5)
                .map(|l| Sketch::of(l).unwrap())
                .collect();
            assert!(OpenCode.detect(&head), "{id}");
            let records: Vec<Record> = text
                .lines()
                .enumerate()
                .map(|(n, l)| OpenCode.read(n + 1, l).unwrap())
                .collect();
            assert_eq!(
                records.iter().filter(|r| r.message().is_some()).count(),
                messages,
                "{id}"
            );
            assert_eq!(
                records.iter().filter(|r| r.compaction).count(),
                compactions,
                "{id}"
            );
        }
    }
}
