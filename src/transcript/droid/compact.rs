//! A compaction written back as Droid records its own (`saveCompactionSummary`,
//! `chunk-1jh5v2tt.js` → `src/services/SessionService.ts`): every line stays, and one
//! `compaction_state` line is appended, `"type"` first as Droid writes it:
//! `{"type","id","timestamp","summaryText","summaryTokens","summaryKind":"llm_summary",
//! "anchorMessage":{"id","index"},"removedCount"}`. The anchor is the last `message` record
//! before the kept tail (its `index` counted among the `message` records, `removedCount` one
//! more), so Droid sends the summary, then the tail (see [`super::live`]). Where the file has
//! no message before the tail the anchor is left out. Droid's `systemInfo` and
//! `systemInfoText` are left out too: Droid then adds no system-information block to the
//! summary message. The new line takes the timestamp of the file's last line that has one.
//!
//! Droid keeps every message after the anchor: when the plan keeps the user's newest request
//! apart from its tail, what lies between them is kept as well. A tail that reaches back to
//! Droid's own newest compaction cannot be kept after a new one, which replaces it: such a
//! plan is refused.

use anyhow::{bail, Result};
use serde::Serialize;

use super::read::COMPACTION;
use super::Droid;
use crate::transcript::json::top_level_str;
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

impl WriteBack for Droid {
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let first_kept = compacted.tail.first().copied();
        if let Some(first) = first_kept.filter(|&i| records[i].compaction) {
            bail!(
                "the kept tail reaches back into Droid's own compaction (line {}): keep fewer \
                 messages",
                records[first].line
            );
        }
        let is_message = |i: usize| {
            !records[i].compaction
                && records[i].message().is_some()
                && top_level_str(records[i].raw, "type").as_deref() == Some("message")
        };
        let before = first_kept.unwrap_or(records.len());
        let anchor = (0..before).rev().find(|&i| is_message(i));
        let anchor = anchor.and_then(|at| {
            let id = top_level_str(records[at].raw, "id")?;
            let index = (0..at).filter(|&i| is_message(i)).count();
            Some(AnchorMessage { id, index })
        });
        let timestamp = records
            .iter()
            .rev()
            .find_map(|record| top_level_str(record.raw, "timestamp"))
            .unwrap_or_default();
        let state = CompactionState {
            kind: COMPACTION,
            id: derived_uuid(&compacted.seed, "droid-compaction"),
            timestamp,
            summary_text: compacted.summary,
            // Droid's own estimate: four characters a token.
            summary_tokens: compacted.summary.chars().count().div_ceil(4),
            summary_kind: "llm_summary",
            removed_count: anchor.as_ref().map(|a| a.index + 1),
            anchor_message: anchor,
        };
        push_kept(out, &compacted.all_lines());
        push_line(out, &serde_json::to_vec(&state)?);
        Ok(())
    }
}

/// A `compaction_state` line, in Droid's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionState<'s> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: String,
    timestamp: String,
    summary_text: &'s str,
    summary_tokens: usize,
    summary_kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    anchor_message: Option<AnchorMessage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed_count: Option<usize>,
}

/// The last message a compaction replaced.
#[derive(Serialize)]
struct AnchorMessage {
    id: String,
    index: usize,
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
    fn a_compaction_state_is_appended_anchored_before_the_tail() {
        for name in ["turns.jsonl", "compacted.jsonl"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/agents/droid")
                .join(name);
            let bytes = std::fs::read(path).unwrap();
            let input = Transcript::parse(name, &bytes, LoadOptions::default()).unwrap();
            assert_eq!(input.format, Some(FormatId::Droid));
            let plan = plan(
                input.context(),
                Mode::Tail { preserve: 2 },
                Tokenizer::Chars4,
                &Droid,
            )
            .unwrap();
            let compacted = compaction(&input, &plan, SUMMARY, Tokenizer::Chars4);
            let mut out = Vec::new();
            let mut sink = Sink::new(&mut out);
            Droid.write_compacted(&compacted, &mut sink).unwrap();
            sink.finish().unwrap();
            assert!(out.starts_with(&bytes), "{name}: not append-only");
            let line = &out[bytes.len()..];
            assert!(line.starts_with(br#"{"type":"compaction_state","id":"#));
            let state: Value = serde_json::from_slice(line).unwrap();
            assert_eq!(state["summaryText"], SUMMARY);
            let index = state["anchorMessage"]["index"].as_u64().unwrap();
            assert_eq!(state["removedCount"].as_u64(), Some(index + 1));
            // The anchor is the message just before the tail; read back, the context is the
            // summary, then the tail.
            let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
            assert!(output.context()[0].compaction);
            let kept: Vec<&[u8]> = output.context()[1..]
                .iter()
                .filter(|r| r.message().is_some())
                .map(|r| r.raw)
                .collect();
            let tail: Vec<&[u8]> = compacted
                .tail
                .iter()
                .map(|&i| input.records[i].raw)
                .filter(|raw| top_level_str(raw, "type").as_deref() == Some("message"))
                .collect();
            assert_eq!(kept, tail, "{name}");
            assert!(output.context().len() < input.context().len());
        }
    }
}
