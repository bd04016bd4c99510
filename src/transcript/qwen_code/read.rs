//! Reading Qwen Code sessions. Every line is one record
//! (`packages/core/src/services/chatRecordingService.ts`, `createBaseRecord`): `uuid`,
//! `parentUuid` (`null` for the first), `sessionId`, `timestamp`, `type`, `cwd`, `version`, and
//! by type:
//!
//! - `user`, `assistant` and `tool_result`: a `message`, a Gemini `Content` (`role` `user` or
//!   `model`, `parts` read as Gemini CLI's are: text, thought text as thinking, `functionCall`,
//!   `functionResponse`, media). An assistant's `usageMetadata.totalTokenCount` is the context
//!   after its call. A record whose `subtype` is `realtime_message` is never sent
//!   (`session-api-history.ts`, `appendApiHistoryRecord`): bookkeeping;
//! - `system`, with a `subtype` and a `systemPayload`: bookkeeping named `qwen/<subtype>`, but
//!   for `chat_compression`, the compaction marker, whose `systemPayload.compressedHistory`
//!   (a list of `Content`) replaces the history (`isApiHistoryCompressionCandidate`). Its line
//!   is read as the first entry (the summary, a user message) marked as the compaction, then
//!   each further entry as a record of its own holding its object's bytes, with an id made
//!   from the marker's and no parent (every record of a line has one, `null` or a `uuid`):
//!   what [`super::live`] takes after the marker.
//!
//! `session_sources_snapshot`, `managed_session_*_v1` and `session_artifact_*` records are no
//! conversation records (`packages/core/src/utils/transcript-records.ts`,
//! `isTranscriptConversationRecord`): Qwen Code never walks its chain through them, so they are
//! read without an id.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::QwenCode;
use crate::transcript::blocks::{borrowed_str, LenientU64};
use crate::transcript::format::{Format, Tree};
use crate::transcript::gemini::read::{content_parts, Parts};
use crate::transcript::json::str_at;
use crate::transcript::model::{
    node_id, Entry, Event, Keep, Link, Message, NodeId, Parent, Record, Role, Usage,
};
use crate::transcript::sketch::Sketch;

/// The subtype of Qwen Code's compaction marker.
pub(super) const COMPRESSION: &str = "chat_compression";

/// The system subtypes that are no conversation records (`NON_CONVERSATION_RECORD_SUBTYPES`
/// and `ARTIFACT_RECORD_SUBTYPES` of `transcript-records.ts`).
const OFF_CHAIN: [&str; 6] = [
    "session_sources_snapshot",
    "managed_session_header_v1",
    "managed_session_event_v1",
    "managed_session_commit_v1",
    "session_artifact_event",
    "session_artifact_snapshot",
];

impl Format for QwenCode {
    fn name(&self) -> &'static str {
        "Qwen Code"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(|line| self.envelope(line))
    }

    /// A `uuid` and a `sessionId` (Claude Code's envelope) around a Gemini `Content`
    /// (`message.parts`), a `systemPayload` or a `tool_result` record, which Claude Code's
    /// lines never hold.
    fn envelope(&self, line: &Sketch) -> bool {
        let has = |key: &str| line.has(key);
        has("uuid")
            && has("sessionId")
            && (line.get("message").is_some_and(|m| m.has("parts"))
                || has("systemPayload")
                || line.str("type") == Some("tool_result"))
    }

    fn compaction_marker(&self) -> Option<&'static str> {
        Some(COMPRESSION)
    }

    /// Qwen Code walks `parentUuid` back from its last conversation record
    /// (`walkTranscriptUuidChain`).
    fn tree(&self) -> Option<Tree> {
        Some(Tree {
            parent: "parentUuid",
            id: "uuid",
            messages_only: false,
        })
    }

    /// An assistant record's `model`.
    fn model(&self, raw: &[u8]) -> Option<String> {
        if str_at(raw, &["type"]).as_deref() != Some("assistant") {
            return None;
        }
        str_at(raw, &["model"])
    }

    /// Every record's `cwd`, the project root.
    fn cwd(&self, raw: &[u8]) -> Option<String> {
        str_at(raw, &["cwd"])
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let record: Line<'a> = serde_json::from_str(text)?;
        let Some(kind) = record.kind else {
            bail!("line has no \"type\"");
        };
        let Some(uuid) = record.uuid else {
            bail!("line has no \"uuid\"");
        };
        let raw = text.as_bytes();
        let subtype = record.subtype.as_deref();
        let link = Link {
            id: Some(node_id(&uuid)),
            parent: match record.parent {
                Some(parent) => Parent::Node(node_id(&parent)),
                None => Parent::Root,
            },
            ..Link::default()
        };
        if kind == "system" {
            let subtype = subtype.unwrap_or("system");
            if subtype == COMPRESSION {
                if let Some(history) = compressed_history(record.payload)? {
                    return marker(line, raw, link, history.first().copied());
                }
            }
            let mut read = Record::new(
                line,
                raw,
                Entry::Bookkeeping(Cow::Owned(format!("qwen/{subtype}"))),
            );
            if !OFF_CHAIN.contains(&subtype) {
                read.link = link;
            }
            return Ok(read);
        }
        let (Some(content), false) = (record.message, subtype == Some("realtime_message")) else {
            let mut read = Record::new(line, raw, Entry::Bookkeeping(kind));
            read.link = link;
            return Ok(read);
        };
        let mut read = Record::new(line, raw, Entry::Message(content.into_message()?));
        if kind == "assistant" {
            read.usage = record.usage.and_then(context_size);
        }
        read.link = link;
        Ok(read)
    }

    /// A `chat_compression` line is the marker (its first entry), then each further entry of
    /// its `compressedHistory`.
    fn read_each<'a>(
        &self,
        line: usize,
        text: &'a str,
        each: &mut dyn FnMut(Record<'a>),
    ) -> Result<()> {
        let marker = self.read(line, text)?;
        let entries = match marker.link.id.filter(|_| marker.compaction) {
            Some(id) => later_entries(line, text, id)?,
            None => Vec::new(),
        };
        // Handed out once all are read: an entry that fails fails the whole line.
        each(marker);
        entries.into_iter().for_each(each);
        Ok(())
    }
}

/// The entries after the first of the `compressedHistory` of the compression line `text`,
/// whose marker has id `marker`, each a record holding its object's bytes.
fn later_entries(line: usize, text: &str, marker: NodeId) -> Result<Vec<Record<'_>>> {
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(rename = "systemPayload", borrow)]
        payload: Option<&'a RawValue>,
    }
    let payload: Line = serde_json::from_str(text)?;
    let history = compressed_history(payload.payload)?.unwrap_or_default();
    let mut records = Vec::new();
    for (k, entry) in history.into_iter().enumerate().skip(1) {
        let content: Content = serde_json::from_str(entry.get())?;
        let mut read = Record::new(
            line,
            entry.get().as_bytes(),
            Entry::Message(content.into_message()?),
        );
        read.link.id = Some(entry_id(marker, k));
        records.push(read);
    }
    Ok(records)
}

/// Whether a record with this link is a record of its own line on Qwen Code's chain (an id
/// and a parent, `null` or a `uuid`), not a later entry of a compression (an id, no parent)
/// nor a record Qwen Code never looks up (no id).
pub(super) fn on_chain(link: &Link) -> bool {
    link.id.is_some() && link.parent != Parent::Unlinked
}

/// The id condense gives entry `k` of the compression whose marker has id `marker`: its own,
/// so that two compressions' entries of the same bytes (Qwen Code's acknowledgement) are told
/// apart.
pub(super) fn entry_id(marker: NodeId, k: usize) -> NodeId {
    node_id(&format!("{marker:016x}#{k}"))
}

/// The marker of a `chat_compression` line: its first entry (the summary) as a message, or
/// bookkeeping when the history it restarts from is empty.
fn marker<'a>(
    line: usize,
    raw: &'a [u8],
    link: Link,
    first: Option<&'a RawValue>,
) -> Result<Record<'a>> {
    let entry = match first {
        Some(entry) => {
            let content: Content<'a> = serde_json::from_str(entry.get())?;
            Entry::Message(content.into_message()?)
        }
        None => Entry::Bookkeeping(Cow::Borrowed("qwen/chat_compression")),
    };
    let mut read = Record::new(line, raw, entry);
    read.compaction = true;
    read.link = Link {
        event: Event::Compaction(Keep::Nothing),
        ..link
    };
    Ok(read)
}

/// The entries of a `systemPayload.compressedHistory`; `None` when the payload has none (a
/// compression that failed, which Qwen Code does not replay).
pub(super) fn compressed_history(payload: Option<&RawValue>) -> Result<Option<Vec<&RawValue>>> {
    #[derive(Deserialize)]
    struct Payload<'a> {
        #[serde(rename = "compressedHistory", borrow, default)]
        history: Option<Vec<&'a RawValue>>,
    }
    let Some(payload) = payload else {
        return Ok(None);
    };
    let payload: Payload = serde_json::from_str(payload.get())?;
    Ok(payload.history)
}

/// One line: the fields every record kind read here uses.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    uuid: Option<Cow<'a, str>>,
    #[serde(
        rename = "parentUuid",
        borrow,
        default,
        deserialize_with = "borrowed_str"
    )]
    parent: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Content<'a>>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(rename = "usageMetadata", borrow, default)]
    usage: Option<&'a RawValue>,
    #[serde(rename = "systemPayload", borrow, default)]
    payload: Option<&'a RawValue>,
}

/// A Gemini `Content`: a role and its parts.
#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parts: Parts<'a>,
}

impl<'a> Content<'a> {
    fn into_message(self) -> Result<Message<'a>> {
        let role = match self.role.as_deref() {
            Some("user") => Role::User,
            Some("model") => Role::Assistant,
            _ => bail!("message has no known \"role\" (expected user or model)"),
        };
        Ok(Message::new(role, content_parts(self.parts)))
    }
}

/// The context an assistant's `usageMetadata` reports: `totalTokenCount` (the prompt and the
/// answer), when it is a positive number.
fn context_size(raw: &RawValue) -> Option<Usage> {
    #[derive(Deserialize)]
    struct Counts {
        #[serde(rename = "totalTokenCount", default)]
        total: LenientU64,
    }
    let counts: Counts = serde_json::from_str(raw.get()).ok()?;
    let context_tokens = counts.total.0.filter(|&total| total > 0)?;
    Some(Usage {
        context_tokens,
        response_key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};
    use crate::transcript::Part;

    fn read(text: &str) -> Record<'_> {
        QwenCode.read(1, text).unwrap()
    }

    #[test]
    fn reads_messages_tool_results_and_bookkeeping() {
        let user = read(
            r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"Q1"}]}}"#,
        );
        assert_eq!(user.message().unwrap().parts, [Part::Text("Q1".into())]);
        assert_eq!(user.link.id, Some(node_id("u1")));
        assert_eq!(user.link.parent, Parent::Root);
        let answer = read(
            r#"{"uuid":"a1","parentUuid":"u1","sessionId":"s","type":"assistant","model":"m","message":{"role":"model","parts":[{"text":"think","thought":true},{"functionCall":{"id":"c1","name":"read_file","args":{"file_path":"x"}}}]},"usageMetadata":{"promptTokenCount":90,"totalTokenCount":100}}"#,
        );
        let message = answer.message().unwrap();
        assert_eq!(message.role, Role::Assistant);
        assert!(matches!(message.parts[0], Part::Thinking(_)));
        assert!(matches!(&message.parts[1], Part::ToolCall { id: Some(id), .. } if id == "c1"));
        assert_eq!(answer.usage.unwrap().context_tokens, 100);
        assert_eq!(answer.link.parent, Parent::Node(node_id("u1")));
        let result = read(
            r#"{"uuid":"r1","parentUuid":"a1","sessionId":"s","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"text"}}}]}}"#,
        );
        assert!(result.message().unwrap().answers_a_call());
        let telemetry = read(
            r#"{"uuid":"t","parentUuid":"r1","sessionId":"s","type":"system","subtype":"ui_telemetry","systemPayload":{}}"#,
        );
        assert!(telemetry.message().is_none() && telemetry.link.id.is_some());
        let snapshot = read(
            r#"{"uuid":"n","parentUuid":"t","sessionId":"s","type":"system","subtype":"session_sources_snapshot","systemPayload":{}}"#,
        );
        assert_eq!(snapshot.link.id, None);
        let realtime = read(
            r#"{"uuid":"v","parentUuid":"t","sessionId":"s","type":"user","subtype":"realtime_message","message":{"role":"user","parts":[{"text":"x"}]}}"#,
        );
        assert!(realtime.message().is_none());
        for bad in [
            r#"{"uuid":"x","sessionId":"s"}"#,
            r#"{"type":"user","sessionId":"s"}"#,
            r#"{"uuid":"x","type":"user","message":{"role":"tool","parts":[]}}"#,
        ] {
            assert!(QwenCode.read(1, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_compression_is_its_summary_then_its_other_entries() {
        let line = r#"{"uuid":"c","parentUuid":"a1","sessionId":"s","type":"system","subtype":"chat_compression","systemPayload":{"info":{"compressionStatus":1},"compressedHistory":[{"role":"user","parts":[{"text":"SUMMARY"}]},{"role":"model","parts":[{"text":"Got it."}]}]}}"#;
        let mut records = Vec::new();
        QwenCode
            .read_each(7, line, &mut |r| records.push(r))
            .unwrap();
        assert_eq!(records.len(), 2);
        assert!(records[0].compaction);
        assert_eq!(records[0].link.event, Event::Compaction(Keep::Nothing));
        assert_eq!(records[0].raw, line.as_bytes());
        assert_eq!(
            records[1].raw,
            br#"{"role":"model","parts":[{"text":"Got it."}]}"#
        );
        assert_eq!(records[1].link.id, Some(entry_id(node_id("c"), 1)));
        assert_eq!(records[1].link.parent, Parent::Unlinked);
        assert_eq!(records[1].message().unwrap().role, Role::Assistant);
    }

    #[test]
    fn detection() {
        assert!(QwenCode.detect(&head(&[
            r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"x"}]}}"#
        ])));
        // A Claude Code line has the envelope but an Anthropic message.
        assert!(!QwenCode.detect(&head(&[
            r#"{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"x"}}"#
        ])));
    }

    /// The sessions Qwen Code 0.24.4 wrote against the mock (`fixtures/agents/qwen-code/`).
    #[test]
    fn reads_the_sessions_qwen_code_wrote() {
        // Counted with jq:
        //   messages: jq -c 'select(.message != null or .subtype == "chat_compression")' FILE | wc -l
        //   compactions: jq -c 'select(.subtype == "chat_compression")' FILE | wc -l
        //   usage: jq -c 'select(.usageMetadata.totalTokenCount > 0)' FILE | wc -l
        // (`read` gives a compression line's first entry; `read_each` its others too.)
        for (file, counts) in [
            ("turns.jsonl", (9, 0, 4)),
            ("compressed.jsonl", (9, 1, 4)),
            ("compressed-twice.jsonl", (10, 2, 4)),
        ] {
            let lines = corpus(&format!("../agents/qwen-code/{file}"));
            assert!(QwenCode.detect(&corpus_head(&lines)), "{file}");
            let (_, read) = read_all(&QwenCode, &lines);
            assert_eq!(read, counts, "{file}");
        }
    }
}
