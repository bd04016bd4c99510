//! A compaction written back as Copilot CLI records its own: a `session.compaction_complete`
//! event with `success: true` and the summary as `summaryContent`, put immediately before the
//! first event of the kept tail (E2 of `docs/agents/copilot.md`). Copilot's replay (see
//! [`super::live`]) then sends one user message listing the user's earlier messages and the
//! summary, then the tail.
//!
//! Every event before the tail stays as it was, as Copilot keeps them after its own compaction
//! (the user's messages among them are what it lists beside the summary, so condense's
//! user-message modes need nothing of their own here, and ACF's kept head cannot sit before a
//! marker that replaces everything before it). Events after the first kept one that the plan
//! summarises (the middle of a turn whose request the plan keeps apart) are left out. The new
//! event takes the `timestamp` of the event before it and its `id` as `parentId`, and the
//! written event after it points at it, so the chain Copilot writes (and does not read, E7)
//! stays whole; `trigger` is `manual`, as for `/compact`.
//!
//! A tail that reaches back to Copilot's own newest compaction (or the user messages it lists)
//! cannot be kept after a new marker, which would replace it: such a plan is refused.

use anyhow::{bail, Result};
use serde::Serialize;

use super::read::COMPACTION;
use super::Copilot;
use crate::transcript::json::{replace_top_level, top_level_str};
use crate::transcript::write::{derived_uuid, push_kept, push_line, Compacted, Sink, WriteBack};

impl WriteBack for Copilot {
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()> {
        let records = compacted.records();
        let newest_marker = records.iter().rposition(|record| record.compaction);
        if let (Some(marker), Some(&first)) = (newest_marker, compacted.tail.iter().min()) {
            if first <= marker {
                bail!(
                    "the kept tail reaches back into Copilot CLI's own compaction (line {}): \
                     keep fewer messages",
                    records[marker].line
                );
            }
        }
        // The marker goes before the first kept event, or at the end when nothing is kept.
        let at = compacted
            .tail
            .iter()
            .copied()
            .min()
            .unwrap_or(records.len());
        let before: Vec<usize> = (0..at).collect();
        push_kept(out, &compacted.lines_of(&before));

        let previous = at.checked_sub(1);
        let id = derived_uuid(&compacted.seed, "copilot-compaction");
        let timestamp = previous
            .and_then(|i| top_level_str(records[i].raw, "timestamp"))
            .or_else(|| top_level_str(records.get(at)?.raw, "timestamp"))
            .unwrap_or_default();
        let marker = MarkerEvent {
            kind: COMPACTION,
            data: MarkerData {
                success: true,
                outcome: "applied",
                trigger: "manual",
                pre_compaction_tokens: compacted.tokens_before,
                post_compaction_tokens: compacted.tokens_after,
                messages_removed: compacted
                    .summarised
                    .iter()
                    .filter(|&&i| records[i].message().is_some())
                    .count(),
                summary_content: compacted.summary,
            },
            id: &id,
            timestamp: &timestamp,
            parent_id: previous.and_then(|i| top_level_str(records[i].raw, "id")),
        };
        push_line(out, &serde_json::to_vec(&marker)?);

        let summarised: std::collections::HashSet<usize> =
            compacted.summarised.iter().copied().collect();
        let mut parent = id;
        for index in (at..records.len()).filter(|i| !summarised.contains(i)) {
            let line = compacted.file.record_full(index);
            let own = top_level_str(records[index].raw, "id");
            let linked = top_level_str(records[index].raw, "parentId");
            match linked {
                Some(linked) if linked != parent => {
                    let json = serde_json::to_string(&parent)?;
                    match replace_top_level(line.trim_ascii_end(), "parentId", &json) {
                        Some(relinked) => push_line(out, &relinked),
                        None => push_kept(out, &[line]),
                    }
                }
                _ => push_kept(out, &[line]),
            }
            if let Some(own) = own {
                parent = own;
            }
        }
        Ok(())
    }
}

/// A `session.compaction_complete` event, in Copilot's key order.
#[derive(Serialize)]
struct MarkerEvent<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    data: MarkerData<'m>,
    id: &'m str,
    timestamp: &'m str,
    #[serde(rename = "parentId")]
    parent_id: Option<String>,
}

/// The fields of its `data` Copilot's replay reads (`success`, `summaryContent`) and those its
/// own compaction records beside them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MarkerData<'m> {
    success: bool,
    outcome: &'static str,
    trigger: &'static str,
    pre_compaction_tokens: u64,
    post_compaction_tokens: u64,
    messages_removed: usize,
    summary_content: &'m str,
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::compaction::compaction;
    use crate::plan::{plan, Mode};
    use crate::tokens::Tokenizer;
    use crate::transcript::classify::text_of;
    use crate::transcript::load::{LoadOptions, Transcript};
    use crate::transcript::FormatId;

    const SUMMARY: &str = "## Active task\nFix \"the\" bug\n";

    fn fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/agents/copilot")
            .join(name);
        std::fs::read(path).unwrap()
    }

    fn write(input: &Transcript, preserve: i64) -> Result<Vec<u8>> {
        let plan = plan(
            input.context(),
            Mode::Tail { preserve },
            Tokenizer::Chars4,
            &Copilot,
        )
        .unwrap();
        let compacted = compaction(input, &plan, SUMMARY, Tokenizer::Chars4);
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out);
        Copilot.write_compacted(&compacted, &mut sink)?;
        sink.finish()?;
        Ok(out)
    }

    /// On both sessions Copilot wrote: the events before the tail unchanged, the marker, the
    /// tail; read back, the context is the listed user messages, the summary and the tail.
    #[test]
    fn the_marker_goes_before_the_kept_tail() {
        for name in ["turns.jsonl", "compacted.jsonl"] {
            let bytes = fixture(name);
            let input = Transcript::parse(name, &bytes, LoadOptions::default()).unwrap();
            assert_eq!(input.format, Some(FormatId::Copilot));
            let out = write(&input, 2).unwrap();
            assert_eq!(out, write(&input, 2).unwrap(), "not deterministic");
            let output = Transcript::parse("out", &out, LoadOptions::default()).unwrap();
            let lines: Vec<Value> = out
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect();
            let at = lines.iter().rposition(|l| l["type"] == COMPACTION).unwrap();
            let marker = &lines[at];
            assert_eq!(marker["data"]["summaryContent"], SUMMARY);
            assert_eq!(marker["data"]["success"], true);
            // The chain: the marker under the event before it, the next event under it.
            assert_eq!(marker["parentId"], lines[at - 1]["id"]);
            assert_eq!(lines[at + 1]["parentId"], marker["id"]);
            for pair in lines[at..].windows(2) {
                assert_eq!(pair[1]["parentId"], pair[0]["id"], "{name}");
            }
            // Everything before the marker is the input's, byte for byte.
            let kept = out.split(|&b| b == b'\n').take(at).collect::<Vec<_>>();
            let original = bytes.split(|&b| b == b'\n').take(at).collect::<Vec<_>>();
            assert_eq!(kept, original);
            // The tail opens with a user message; the context is users, summary, tail.
            assert_eq!(lines[at + 1]["type"], "user.message");
            let marker_at = output.context().iter().position(|r| r.compaction).unwrap();
            assert!(output.context()[..marker_at]
                .iter()
                .all(|r| r.message().unwrap().role == crate::transcript::Role::User));
            let summary = text_of(output.context()[marker_at].message().unwrap());
            assert_eq!(summary.matches(SUMMARY).count(), 1);
            assert!(output.context().len() < input.context().len());
        }
    }

    #[test]
    fn a_tail_reaching_into_copilots_own_compaction_is_refused() {
        let bytes = fixture("compacted.jsonl");
        let input = Transcript::parse("c", &bytes, LoadOptions::default()).unwrap();
        let error = write(&input, 40).unwrap_err().to_string();
        assert!(error.contains("own compaction"), "{error}");
    }
}
