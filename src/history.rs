//! The compactions of a session (pure): acp-kernel's blocks, read back from a file.
//!
//! An append-only session keeps every epoch: each compaction marker (Claude Code
//! `compact_boundary`, Codex `compacted`, pi `compaction`, condense's own, which are the same
//! lines) closes one. What a compaction summarised is what the agent's context held just before
//! the marker and no longer held after it; both are found by the agent's own live-context rule
//! (see [`crate::transcript::live`]) applied to the file up to the marker and up to and
//! including it, so kept tails and abandoned branches are told apart exactly as the agent tells
//! them.

use crate::measure::{Measure, RecordMeasure};
use crate::tokens::Tokenizer;
use crate::transcript::classify::text_of;
use crate::transcript::live::{live, Live, Node};
use crate::transcript::{FormatId, Record};

/// One compaction of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Epoch {
    /// The marker's record index.
    pub marker: usize,
    /// The records it summarised, in file order.
    pub summarised: Vec<usize>,
    /// The context's size just before the marker.
    pub tokens_before: u64,
    /// The context's size just after it.
    pub tokens_after: u64,
    /// The first non-blank line of its summary.
    pub summary: String,
}

/// The compactions recorded in `records`, oldest first. A summary the agent cannot read back
/// (Codex's remote compaction) is described instead, with its sizes.
pub fn epochs(format: FormatId, records: &[Record], tokenizer: Tokenizer) -> Vec<Epoch> {
    let nodes: Vec<Node> = records.iter().map(Node::of).collect();
    records
        .iter()
        .enumerate()
        .filter(|(_, record)| record.compaction)
        .map(|(marker, _)| {
            // The summary is the marker itself (pi, Codex) or the message right after it
            // (Claude Code's line after its boundary): the context after holds it.
            let summary = (marker..records.len())
                .find(|&i| records[i].message().is_some())
                .unwrap_or(marker);
            let before = live(format.format(), &nodes[..marker]);
            let after = live(format.format(), &nodes[..=summary]);
            let mut summarised: Vec<usize> = before
                .order
                .iter()
                .copied()
                .filter(|i| !after.order.contains(i))
                .collect();
            summarised.sort_unstable();
            Epoch {
                marker,
                summarised,
                tokens_before: size(&records[..marker], &before, tokenizer),
                tokens_after: size(&records[..=summary], &after, tokenizer),
                summary: format
                    .format()
                    .opaque_summary(records[marker].raw)
                    .unwrap_or_else(|| summary_line(records, marker, &after)),
            }
        })
        .collect()
}

/// The context size of `live`, the context of the prefix `records`: the last usage figure that
/// still holds plus the estimate of what follows it.
fn size(records: &[Record], live: &Live, tokenizer: Tokenizer) -> u64 {
    let mut measure = Measure::new(tokenizer);
    let in_order = live
        .order
        .iter()
        .map(|&index| (index, RecordMeasure::of(tokenizer, &records[index])));
    measure.add_context(live, |i| &records[i].link, records.len(), in_order);
    measure.context().tokens
}

/// The summary's first line: the marker's own text (pi, Codex), else the first message the
/// context holds after the marker (Claude Code's summary line).
fn summary_line(records: &[Record], marker: usize, after: &Live) -> String {
    let text = records[marker].message().map(text_of).or_else(|| {
        after
            .order
            .iter()
            .filter(|&&i| i > marker)
            .find_map(|&i| records[i].message().map(text_of))
    });
    let line = text
        .as_deref()
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    line.chars().filter(|c| !c.is_control()).take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::load::{LoadOptions, Transcript};

    #[test]
    fn a_pi_compaction_summarised_what_it_did_not_keep() {
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/r"}"#,
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"one"}}"#,
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"two"}]}}"#,
            r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"t","message":{"role":"user","content":"three"}}"#,
            r#"{"type":"compaction","id":"c","parentId":"u2","timestamp":"t","summary":"\nGoal: ship it\nmore","firstKeptEntryId":"u2","tokensBefore":9}"#,
            r#"{"type":"message","id":"a2","parentId":"c","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"four"}]}}"#,
        ];
        let bytes = lines.join("\n");
        let transcript = Transcript::parse("t", bytes.as_bytes(), LoadOptions::default()).unwrap();
        let epochs = epochs(FormatId::Pi, &transcript.records, Tokenizer::Chars4);
        assert_eq!(epochs.len(), 1);
        assert_eq!(epochs[0].marker, 4);
        assert_eq!(epochs[0].summarised, [1, 2]);
        assert_eq!(epochs[0].summary, "Goal: ship it");
    }
}
