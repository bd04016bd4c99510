//! A compaction written back as pi's own compaction writes it: every line stays as it was and one
//! `compaction` entry is appended. pi then sends the summary, the entries from the first kept
//! one up to the compaction (the tail), and any entries after it. The entry's form follows the
//! header's `version` (absent: v1), as pi's loader does:
//!
//! - v1: `{"type":"compaction","timestamp","summary","firstKeptEntryIndex","tokensBefore"}`.
//!   Entry indexes count the header as entry 0 and every non-blank line that parses as JSON,
//!   which is the record index unless lines unreadable here were skipped.
//! - v2 and v3: `{"type":"compaction","id","parentId","timestamp","summary","firstKeptEntryId",
//!   "tokensBefore"}` in `appendCompaction`'s order, `parentId` being the last entry's id (the
//!   session's leaf on load) and `id` a UUID derived from the compaction.
//!
//! The entry comes after every kept line, so it takes the timestamp of the last line that has
//! one. In user mode nothing is kept after the summary: `firstKeptEntryIndex` is the
//! compaction's own index (pi's v1 migration then points `firstKeptEntryId` at the compaction
//! itself), and `firstKeptEntryId` is the compaction's own id; pi finds no earlier entry with
//! that id and keeps none. pi's compaction has no place for kept user messages other than its
//! summary, so they follow it under [`KEPT_HEADING`], oldest first, each under a numbered
//! `### User message N` heading, with kimi-code's elision marker where messages were left out.
//! Likewise the user's newest request, when the plan keeps it apart from the tail (see
//! [`crate::plan::Plan::request`]): pi keeps one path from its first kept entry, so the
//! request's text follows the summary under [`REQUEST_HEADING`].

use anyhow::{bail, Result};
use serde::de::IgnoredAny;
use serde::Serialize;

use super::Pi;
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::json::{top_level_str, top_level_value};
use crate::transcript::model::Record;
use crate::transcript::write::{
    derived_uuid, push_kept, push_line, Compacted, File, Sink, WriteBack,
};

impl WriteBack for Pi {
    /// Every line stays, then a `compaction` entry pointing at the first tail entry, by index (v1) or by id (v2, v3).
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        // pi keeps one path from its first kept entry; the request kept apart goes in the
        // summary (see `summary_with_kept`).
        let first_kept = compacted
            .tail
            .iter()
            .copied()
            .find(|index| !compacted.request.contains(index));
        // The entry is appended after every kept line, so it takes the time of the last one.
        let timestamp = records
            .iter()
            .rev()
            .find_map(|record| top_level_str(record.raw, "timestamp"))
            .unwrap_or_default();
        let summary = summary_with_kept(compacted);
        let line = if session_version(records) >= 2 {
            let id = derived_uuid(&compacted.seed, "compaction");
            // pi's leaf on load is the last entry of the file, so the compaction hangs under it.
            let Some(parent_id) = records
                .iter()
                .rev()
                .find_map(|record| record.link.id.and(top_level_str(record.raw, "id")))
            else {
                bail!("this pi session has no entry with an \"id\" to append a compaction to");
            };
            let first_kept_entry_id = match first_kept {
                // Nothing kept: pi finds no entry before the compaction with its own id.
                None => id.clone(),
                Some(first) => match top_level_str(records[first].raw, "id") {
                    Some(first) => first,
                    None => bail!("the first kept entry of this pi session has no \"id\""),
                },
            };
            serde_json::to_vec(&CompactionV3 {
                kind: "compaction",
                id: &id,
                parent_id: &parent_id,
                timestamp: &timestamp,
                summary: &summary,
                first_kept_entry_id: &first_kept_entry_id,
                tokens_before: compacted.tokens_before,
            })?
        } else {
            serde_json::to_vec(&CompactionV1 {
                kind: "compaction",
                timestamp: &timestamp,
                summary: &summary,
                first_kept_entry_index: entry_index(
                    &compacted.file,
                    first_kept.unwrap_or(records.len()),
                ),
                tokens_before: compacted.tokens_before,
            })?
        };
        push_kept(out, &compacted.all_lines());
        push_line(out, &line);
        Ok(())
    }
}

/// A v1 `compaction` entry, in pi's key order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionV1<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    timestamp: &'a str,
    summary: &'a str,
    first_kept_entry_index: usize,
    tokens_before: u64,
}

/// A v2/v3 `compaction` entry, in pi's key order (`appendCompaction`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionV3<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    parent_id: &'a str,
    timestamp: &'a str,
    summary: &'a str,
    first_kept_entry_id: &'a str,
    tokens_before: u64,
}

/// The heading under which the user messages kept beside the summary (user mode) follow it.
const KEPT_HEADING: &str = "## User messages kept from the compacted conversation";

/// The heading under which the user's newest request follows the summary, when the plan keeps
/// it apart from the tail (pi keeps only the path from its first kept entry).
const REQUEST_HEADING: &str = "## The user's latest request, in their words";

/// The session format version, as pi reads it: the first `session` entry's `version`, 1 when it
/// has none.
fn session_version(records: &[Record]) -> u64 {
    records
        .iter()
        .find(|record| top_level_str(record.raw, "type").as_deref() == Some("session"))
        .and_then(|header| {
            let span = top_level_value(header.raw, "version")?;
            serde_json::from_slice(&header.raw[span]).ok()
        })
        .unwrap_or(1)
}

/// pi's index of the entry at record `record` (the number of records when past the last): the
/// number of non-blank lines before it that parse as JSON, the header being entry 0. That is the
/// record index unless lines were skipped as unreadable here that pi would still load.
fn entry_index(file: &File, record: usize) -> usize {
    if file.skipped == 0 {
        return record;
    }
    let end = file
        .record_lines
        .get(record)
        .copied()
        .unwrap_or(file.lines.len());
    file.lines[..end]
        .iter()
        .filter(|line| !line.is_blank() && serde_json::from_slice::<IgnoredAny>(line.text).is_ok())
        .count()
}

/// The summary, followed in user mode by the kept user messages under [`KEPT_HEADING`] (pi's
/// compaction has no other place for them), each under its own numbered heading, with
/// kimi-code's elision marker as it is between the oldest and the newest.
fn summary_with_kept(compacted: &Compacted) -> String {
    let kept = &compacted.kept_user_texts;
    let request: Vec<String> = compacted
        .request
        .iter()
        .filter_map(|&index| compacted.records()[index].message())
        .filter(|message| is_real_user_request(message))
        .map(text_of)
        .collect();
    if !request.is_empty() {
        return format!(
            "{}\n\n{REQUEST_HEADING}\n\n{}\n",
            compacted.summary.trim_end(),
            request.join("\n\n")
        );
    }
    if kept.is_empty() {
        return compacted.summary.to_owned();
    }
    let marker = compacted.elision_marker.as_ref();
    let mut text = format!("{}\n\n{KEPT_HEADING}\n", compacted.summary.trim_end());
    let mut number = 0;
    for message in kept {
        if Some(message) == marker {
            text.push_str(&format!("\n{message}\n"));
        } else {
            number += 1;
            text.push_str(&format!("\n### User message {number}\n\n{message}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::compaction::compaction;
    use crate::plan::{plan, Mode, Plan};
    use crate::tokens::Tokenizer;
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::model::testing::{corpus_bytes, keys};
    use crate::transcript::FormatId;

    const SUMMARY: &str = "## Goal\nShip \"it\"\u{1b}[0m\n";
    const USER_MODE: Mode = Mode::User {
        keep_user_tokens: 200,
        user_head_tokens: 50,
    };

    fn compacted<'c, 'a>(transcript: &'c Transcript<'a>, plan: &'c Plan) -> Compacted<'c, 'a> {
        let mut compacted = compaction(transcript, plan, SUMMARY, Tokenizer::Chars4);
        compacted.tokens_before = 175_004;
        compacted
    }

    /// What a compaction of `transcript` under `mode` writes, checked to be the input, byte
    /// for byte, followed by one `compaction` entry that reads back as pi's; with the plan,
    /// the kept user texts and the new line.
    fn check(transcript: &Transcript, mode: Mode) -> (Plan, Vec<String>, Value, Vec<u8>) {
        let plan = plan(transcript.context(), mode, Tokenizer::Chars4, &Pi).unwrap();
        assert!(plan.noop.is_none());
        let write = || {
            let mut out = Vec::new();
            let mut sink = crate::transcript::write::Sink::new(&mut out);
            Pi.write_compacted(&compacted(transcript, &plan), &mut sink)
                .unwrap();
            sink.finish().unwrap();
            out
        };
        let out = write();
        assert_eq!(out, write(), "not deterministic");
        let input: Vec<u8> = transcript
            .line_bytes(0, transcript.lines.len())
            .flatten()
            .copied()
            .collect();
        assert!(out.starts_with(&input));
        let mut new = &out[input.len()..];
        if !input.ends_with(b"\n") {
            // An input ending without a newline gets one before the new line.
            new = new.strip_prefix(b"\n").unwrap();
        }
        let line = new.strip_suffix(b"\n").unwrap().to_vec();
        assert!(!line.contains(&b'\n'));

        let options = LoadOptions {
            skip_invalid: !transcript.skipped.is_empty(),
            ..LoadOptions::default()
        };
        let output = Transcript::parse("out", &out, options).unwrap();
        assert_eq!(output.format, Some(FormatId::Pi));
        let count = |t: &Transcript| t.records.iter().filter(|r| r.compaction).count();
        assert_eq!(count(&output), count(transcript) + 1);
        let last = output.records.last().unwrap();
        assert!(last.compaction && last.raw == line);
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["type"], "compaction");
        assert_eq!(value["tokensBefore"], 175_004);
        // The new entry follows every kept line, and takes the time of the last one.
        let newest = transcript
            .records
            .iter()
            .rev()
            .find_map(|r| top_level_str(r.raw, "timestamp"));
        assert_eq!(value["timestamp"].as_str(), newest.as_deref());
        let summary = value["summary"].as_str().unwrap();
        assert_eq!(
            crate::transcript::classify::text_of(last.message().unwrap()),
            summary
        );
        let written = compacted(transcript, &plan);
        let kept = written.kept_user_texts;
        if let Some(request) = written.request.first() {
            // The newest request, before the tail, follows the summary in its words.
            let text = crate::transcript::classify::text_of(
                transcript.records[*request].message().unwrap(),
            );
            assert_eq!(
                summary,
                format!("{}\n\n{REQUEST_HEADING}\n\n{text}\n", SUMMARY.trim_end())
            );
        } else if kept.is_empty() {
            assert_eq!(summary, SUMMARY);
        } else {
            assert!(summary.starts_with(SUMMARY.trim_end()));
            let mut rest = &summary[summary.find(KEPT_HEADING).unwrap()..];
            for text in &kept {
                let at = rest.find(text.as_str()).unwrap();
                rest = &rest[at + text.len()..];
            }
        }
        (plan, kept, value, line)
    }

    /// The v1 compaction entry of formats.md G (session sample #12).
    const V1_KEYS: [&str; 5] = [
        "type",
        "timestamp",
        "summary",
        "firstKeptEntryIndex",
        "tokensBefore",
    ];

    #[test]
    fn v1_keeps_entries_from_the_first_tail_entry() {
        let bytes = corpus_bytes("pi/pi-mono-large-session.jsonl");
        let input = Transcript::parse("pi", &bytes, LoadOptions::default()).unwrap();
        let (plan, kept, value, line) = check(&input, Mode::Tail { preserve: 2 });
        assert!(kept.is_empty());
        assert_eq!(keys(&line), V1_KEYS);
        // Entry 0 is the header, so the entry index is the record index (the context starts
        // after the header).
        let index = value["firstKeptEntryIndex"].as_u64().unwrap() as usize;
        assert_eq!(index, input.record_index(plan.tail.start));
        assert!(input.records[index].message().is_some());
        let lines: Vec<&[u8]> = bytes
            .split(|&b| b == b'\n')
            .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
            .collect();
        assert_eq!(lines[index], input.context()[plan.tail.start].raw);
    }

    #[test]
    fn v1_user_mode_keeps_no_entry() {
        let bytes = corpus_bytes("pi/pi-mono-large-session.jsonl");
        let input = Transcript::parse("pi", &bytes, LoadOptions::default()).unwrap();
        let (plan, kept, value, line) = check(&input, USER_MODE);
        assert!(plan.tail.is_empty() && !kept.is_empty());
        assert_eq!(keys(&line), V1_KEYS);
        // The compaction's own index: pi's migration then points it at itself, and no
        // entry before it is kept.
        assert_eq!(value["firstKeptEntryIndex"], input.records.len());
    }

    #[test]
    fn v1_counts_entries_pi_loads_that_were_skipped_here() {
        let lines = [
            r#"{"type":"session","id":"s","timestamp":"2025-11-20T23:33:50.805Z","cwd":"/r","provider":"p","modelId":"m"}"#,
            r#"{"type":"message"}"#,
            r#"{"type":"message","timestamp":"2025-11-20T23:34:00.000Z","message":{"role":"user","content":"first ask"}}"#,
            "{\"type\":",
            r#"{"type":"message","timestamp":"2025-11-20T23:34:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
            r#"{"type":"message","timestamp":"2025-11-20T23:34:02.000Z","message":{"role":"user","content":"second ask"}}"#,
            r#"{"type":"message","timestamp":"2025-11-20T23:34:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}"#,
        ];
        let bytes = lines.join("\n") + "\n";
        let options = LoadOptions {
            skip_invalid: true,
            ..LoadOptions::default()
        };
        let input = Transcript::parse("t", bytes.as_bytes(), options).unwrap();
        assert_eq!(input.skipped.len(), 2);
        let (plan, _, value, _) = check(&input, Mode::Tail { preserve: 2 });
        // Positions of the live context, which starts after the header.
        assert_eq!(plan.tail, 2..4);
        // pi loads line 2 (valid JSON) but not line 4: "second ask" is its entry 4.
        assert_eq!(value["firstKeptEntryIndex"], 4);
    }

    const V3: [&str; 5] = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/r"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first ask","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"timestamp":2}}"#,
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"second ask","timestamp":3}}"#,
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"timestamp":4}}"#,
    ];

    /// pi's `appendCompaction` order.
    const V3_KEYS: [&str; 7] = [
        "type",
        "id",
        "parentId",
        "timestamp",
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
    ];

    #[test]
    fn v3_points_at_entries_by_id() {
        let bytes = V3.join("\n");
        let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let (plan, kept, value, line) = check(&input, Mode::Tail { preserve: 2 });
        // The header is no entry of the tree: the context starts at u1.
        assert_eq!(plan.tail, 2..4);
        assert!(kept.is_empty());
        assert_eq!(keys(&line), V3_KEYS);
        assert_eq!(value["firstKeptEntryId"], "u2");
        assert_eq!(value["parentId"], "a2");
        assert_eq!(value["timestamp"], "2026-01-01T00:00:04.000Z");
        let id = value["id"].as_str().unwrap();
        assert_eq!(
            id,
            derived_uuid(&compacted(&input, &plan).seed, "compaction")
        );
    }

    #[test]
    fn v3_user_mode_keeps_no_entry() {
        let bytes = V3.join("\n") + "\n";
        let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let (plan, kept, value, line) = check(&input, USER_MODE);
        assert!(plan.tail.is_empty());
        assert_eq!(kept, ["first ask", "second ask"]);
        assert_eq!(keys(&line), V3_KEYS);
        assert_eq!(value["parentId"], "a2");
        // No entry before the compaction has its id, so pi keeps none.
        assert_eq!(value["firstKeptEntryId"], value["id"]);
        let summary = value["summary"].as_str().unwrap();
        assert_eq!(
            summary,
            format!(
                "{}\n\n{KEPT_HEADING}\n\n### User message 1\n\nfirst ask\n\n### User message 2\n\nsecond ask\n",
                SUMMARY.trim_end()
            )
        );
    }

    #[test]
    fn v3_without_ids_is_refused() {
        let bytes = [
            V3[0],
            r#"{"type":"message","message":{"role":"user","content":"a"}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":"b"}}"#,
            r#"{"type":"message","message":{"role":"user","content":"c"}}"#,
        ]
        .join("\n");
        let input = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let plan = plan(
            input.context(),
            Mode::Tail { preserve: 2 },
            Tokenizer::Chars4,
            &Pi,
        )
        .unwrap();
        let error = Pi
            .write_compacted(
                &compacted(&input, &plan),
                &mut crate::transcript::write::Sink::new(&mut Vec::new()),
            )
            .unwrap_err();
        assert!(
            error.to_string().contains("no entry with an \"id\""),
            "{error}"
        );
    }
}
