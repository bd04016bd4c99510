//! A compaction written back into a Gemini CLI session.
//!
//! Gemini CLI writes no compaction into its session file, so the write-back follows the
//! convention its own compression uses in memory: the summary as a user turn, a short model
//! turn acknowledging it (left out when the kept turns start with a model turn, so user and
//! model still alternate), then the kept turns. The file is written anew: its metadata line and
//! `$set` updates stay (not a `$set` that carries a message list: that list is history),
//! rewinds and replaced message versions go. The kept turns lose their `tokens` figure (set to
//! `null`): it measured a context the compaction replaced. The new records take their timestamp
//! from the last summarised record.

use anyhow::Result;
use serde_json::{json, Value};

use super::Gemini;
use crate::transcript::json::{replace_top_level, top_level_str};
use crate::transcript::model::Link;
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

/// The model turn written after an injected summary, so user and model turns still alternate.
const ACKNOWLEDGEMENT: &str = "Noted. I will continue the work from this summary.";

/// A message record as Gemini CLI writes it (the fields a compacted session needs).
#[derive(serde::Serialize)]
struct GeminiRecord<'t> {
    id: String,
    timestamp: &'t str,
    #[serde(rename = "type")]
    kind: &'t str,
    content: Value,
}

impl WriteBack for Gemini {
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let timestamp = compacted
            .summarised
            .iter()
            .rev()
            .find_map(|&i| top_level_str(records[i].raw, "timestamp"))
            .unwrap_or_default();
        let record = |salt: &str, kind: &str, content: serde_json::Value| {
            serde_json::to_vec(&GeminiRecord {
                id: derived_uuid(&compacted.seed, salt),
                timestamp: &timestamp,
                kind,
                content,
            })
        };
        let metadata: Vec<usize> = (0..records.len())
            .filter(|&i| records[i].link == Link::default() && records[i].message().is_none())
            .collect();
        push_kept(out, &compacted.lines_of(&metadata));
        push_kept(out, &compacted.lines_of(&compacted.head));
        for (index, text) in compacted.kept_user_texts.iter().enumerate() {
            let line = record(&format!("kept-{index}"), "user", json!([{ "text": text }]))?;
            push_line(out, &line);
        }
        let summary = record(
            "summary",
            "user",
            json!([{ "text": compacted.wrapped_summary() }]),
        )?;
        push_line(out, &summary);
        if !compacted.tail_opens_with_model() {
            push_line(out, &record("ack", "gemini", json!(ACKNOWLEDGEMENT))?);
        }
        for line in compacted.lines_of(&compacted.tail) {
            match replace_top_level(line.trim_ascii_end(), "tokens", "null") {
                Some(voided) => push_line(out, &voided),
                None => push_kept(out, &[line]),
            }
        }
        Ok(())
    }
}
