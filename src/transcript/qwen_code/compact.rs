//! A compaction written back as Qwen Code records its own (`packages/core/src/core/llm-chat.ts`,
//! `LlmChat.tryCompress` → `ChatRecordingService.recordChatCompression`): every line stays, and
//! one `system` record of subtype `chat_compression` is appended to the chain (its `parentUuid`
//! the leaf's `uuid`, its `sessionId`, `cwd` and `version` the leaf's, the timestamp of the
//! file's last line that has one), in Qwen Code's key order. Its `systemPayload`:
//!
//! - `compressedHistory`: the history Qwen Code restarts from when it resumes
//!   (`session-api-history.ts`, `SessionApiHistoryAccumulator.add`), made as its own
//!   compression makes it (`packages/core/src/services/chatCompressionService.ts`,
//!   `composePostCompactHistory`): a user entry holding the summary and Qwen Code's
//!   [`RESUME_TRAILER`], then its [`ACKNOWLEDGEMENT`] as a model entry. Where Qwen Code keeps
//!   nothing else, condense goes on with what the plan keeps: the kept head before the summary
//!   and the kept tail after the acknowledgement (left out when the tail opens with a model
//!   entry, so user and model still alternate), each the `message` of its record byte for byte
//!   (an entry of an earlier compression as it stands there);
//! - `info`: `compressionStatus` 1 (`COMPRESSED`), `triggerReason` `manual`, and the context's
//!   size before and after as condense estimates them (`…IsEstimated`: true);
//! - `completedToolCallIds`: empty, as Qwen Code writes it after a manual compression.
//!
//! The summary opens with condense's `<system>` wrapper, as in every other write-back, so that
//! a later compaction knows it for a summary.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::read::{compressed_history, on_chain, COMPRESSION};
use super::QwenCode;
use crate::transcript::json::top_level_str;
use crate::transcript::model::Record;
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

/// What Qwen Code puts after the summary (`RESUME_TRAILER`).
pub(super) const RESUME_TRAILER: &str = "Resume the prior task using the summary above. Continue \
from the last in-flight step; do not acknowledge the summary, do not re-introduce, do not greet \
the user again.";

/// The model entry after the summary (`composePostCompactHistory`).
const ACKNOWLEDGEMENT: &str = "Got it. Thanks for the additional context!";

impl WriteBack for QwenCode {
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let leaf = records
            .iter()
            .rposition(|record| on_chain(&record.link))
            .context(
                "a Qwen Code session needs a record with a \"uuid\" to hang the summary under",
            )?;
        let field = |key: &str| top_level_str(records[leaf].raw, key);
        let timestamp = records
            .iter()
            .rev()
            .find_map(|record| top_level_str(record.raw, "timestamp"))
            .unwrap_or_default();
        let mut history: Vec<Box<RawValue>> = Vec::new();
        push_contents(&mut history, records, &compacted.head)?;
        for text in &compacted.kept_user_texts {
            history.push(entry("user", text)?);
        }
        let summary = format!("{}\n\n{RESUME_TRAILER}", compacted.wrapped_summary());
        history.push(entry("user", &summary)?);
        if !compacted.tail_opens_with_model() {
            history.push(entry("model", ACKNOWLEDGEMENT)?);
        }
        push_contents(&mut history, records, &compacted.tail)?;
        let record = Compression {
            uuid: derived_uuid(&compacted.seed, "qwen-compression"),
            parent_uuid: field("uuid"),
            session_id: field("sessionId"),
            timestamp,
            kind: "system",
            provenance: "system",
            cwd: field("cwd"),
            version: field("version"),
            subtype: COMPRESSION,
            system_payload: Payload {
                info: Info {
                    original_token_count: compacted.tokens_before,
                    new_token_count: compacted.tokens_after,
                    new_token_count_is_estimated: true,
                    compression_status: 1,
                    trigger_reason: "manual",
                    original_token_count_is_estimated: true,
                },
                compressed_history: history,
                completed_tool_call_ids: Vec::new(),
            },
        };
        push_kept(out, &compacted.all_lines());
        push_line(out, &serde_json::to_vec(&record)?);
        Ok(())
    }
}

/// A new entry of the history: `{"role","parts":[{"text"}]}`.
fn entry(role: &str, text: &str) -> Result<Box<RawValue>> {
    #[derive(Serialize)]
    struct Text<'t> {
        text: &'t str,
    }
    #[derive(Serialize)]
    struct Entry<'t> {
        role: &'t str,
        parts: [Text<'t>; 1],
    }
    let entry = Entry {
        role,
        parts: [Text { text }],
    };
    Ok(RawValue::from_string(serde_json::to_string(&entry)?)?)
}

/// The `Content` of each of these records, byte for byte, after `history`.
fn push_contents(
    history: &mut Vec<Box<RawValue>>,
    records: &[Record],
    indexes: &[usize],
) -> Result<()> {
    for &index in indexes {
        if let Some(content) = content_of(records[index].raw) {
            history.push(RawValue::from_string(content.get().to_owned())?);
        }
    }
    Ok(())
}

/// The `Content` a record of the live context stands for: a record's `message`, a compression
/// marker's first entry, or an entry of a compression (whose bytes are the `Content`).
fn content_of(raw: &[u8]) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow, default)]
        message: Option<&'a RawValue>,
        #[serde(rename = "systemPayload", borrow, default)]
        payload: Option<&'a RawValue>,
        #[serde(default)]
        parts: Option<serde::de::IgnoredAny>,
    }
    let whole: &RawValue = serde_json::from_slice(raw).ok()?;
    let line: Line = serde_json::from_str(whole.get()).ok()?;
    if let Some(message) = line.message {
        return Some(message);
    }
    if line.parts.is_some() {
        return Some(whole);
    }
    compressed_history(line.payload).ok()??.first().copied()
}

/// A `chat_compression` record, in Qwen Code's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Compression {
    uuid: String,
    parent_uuid: Option<String>,
    session_id: Option<String>,
    timestamp: String,
    #[serde(rename = "type")]
    kind: &'static str,
    provenance: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    subtype: &'static str,
    system_payload: Payload,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    info: Info,
    compressed_history: Vec<Box<RawValue>>,
    completed_tool_call_ids: Vec<String>,
}

/// `systemPayload.info`, in Qwen Code's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info {
    original_token_count: u64,
    new_token_count: u64,
    new_token_count_is_estimated: bool,
    compression_status: u8,
    trigger_reason: &'static str,
    original_token_count_is_estimated: bool,
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::compaction::compaction;
    use crate::plan::{plan, Mode};
    use crate::tokens::Tokenizer;
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::FormatId;

    const SUMMARY: &str = "## Active task\nFix \"the\" bug\n";

    #[test]
    fn a_compression_is_appended_with_the_summary_then_the_tail() {
        for name in ["turns.jsonl", "compressed.jsonl", "compressed-twice.jsonl"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/agents/qwen-code")
                .join(name);
            let bytes = std::fs::read(path).unwrap();
            let input = Transcript::parse(name, &bytes, LoadOptions::default()).unwrap();
            assert_eq!(input.format, Some(FormatId::QwenCode));
            let first_plan = plan(
                input.context(),
                Mode::Tail { preserve: 2 },
                Tokenizer::Chars4,
                &QwenCode,
            )
            .unwrap();
            let compacted = compaction(&input, &first_plan, SUMMARY, Tokenizer::Chars4);
            let mut out = Vec::new();
            let mut sink = Sink::new(&mut out);
            QwenCode.write_compacted(&compacted, &mut sink).unwrap();
            sink.finish().unwrap();
            assert!(out.starts_with(&bytes), "{name}: not append-only");
            let line: Value = serde_json::from_slice(&out[bytes.len()..]).unwrap();
            let last: Value =
                serde_json::from_str(std::str::from_utf8(&bytes).unwrap().lines().last().unwrap())
                    .unwrap();
            assert_eq!(line["parentUuid"], last["uuid"], "{name}");
            assert_eq!(line["sessionId"], last["sessionId"]);
            assert_eq!(line["subtype"], "chat_compression");
            let history = line["systemPayload"]["compressedHistory"]
                .as_array()
                .unwrap();
            let first = history[0]["parts"][0]["text"].as_str().unwrap();
            assert!(first.contains(SUMMARY) && first.ends_with(RESUME_TRAILER));
            // Read back, the context is the summary, then the tail's messages as they were.
            let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
            assert!(output.context()[0].compaction);
            let kept: Vec<&[u8]> = compacted
                .tail
                .iter()
                .filter_map(|&i| content_of(input.records[i].raw))
                .map(|c| c.get().as_bytes())
                .collect();
            let sent: Vec<&[u8]> = output.context()[output.context().len() - kept.len()..]
                .iter()
                .map(|r| r.raw)
                .collect();
            assert_eq!(sent, kept, "{name}");
            assert!(output.context().len() < input.context().len() + 2);

            // Compacted again, the new compression hangs under the one before (the last record
            // of a line, not an entry of its history), in the same session.
            let replan = plan(
                output.context(),
                Mode::Tail { preserve: 1 },
                Tokenizer::Chars4,
                &QwenCode,
            )
            .unwrap();
            let again = compaction(&output, &replan, SUMMARY, Tokenizer::Chars4);
            let mut twice = Vec::new();
            let mut sink = Sink::new(&mut twice);
            QwenCode.write_compacted(&again, &mut sink).unwrap();
            sink.finish().unwrap();
            let second: Value = serde_json::from_slice(&twice[out.len()..]).unwrap();
            assert_eq!(second["parentUuid"], line["uuid"], "{name}");
            assert_eq!(second["sessionId"], line["sessionId"], "{name}");
        }
    }
}
