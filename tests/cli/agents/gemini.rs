//! Gemini CLI: its own session loader reads condense's JSONL output, and the history it would
//! restart the chat with must alternate user and model turns, open with the summary, and keep
//! the tail.

use std::path::Path;

use serde_json::Value;

use super::harness::{agents_dir, inject, installed, node_loader};
use super::SUMMARY;
use crate::util::fixture;

fn ready() -> bool {
    installed(
        "Gemini CLI (@google/gemini-cli)",
        &agents_dir().join("node_modules/@google/gemini-cli/bundle"),
    )
}

fn history(session: &Path) -> Vec<(String, String)> {
    let loaded: Value = node_loader("gemini-history.mjs", session);
    loaded["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["role"].as_str().unwrap().to_owned(),
                c["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn gemini_loads_the_summary_and_the_tail_in_alternating_turns() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl";
    let session = fixture(file);
    let before = history(&session);
    let after = history(&inject(&session, SUMMARY, &[], dir.path(), "session.jsonl"));
    assert!(
        after[0].0 == "user" && after[0].1.contains(SUMMARY),
        "{file}: the history does not open with the summary: {:?}",
        after[0]
    );
    for pair in after.windows(2) {
        assert_ne!(
            pair[0].0, pair[1].0,
            "{file}: two {} turns in a row: {after:?}",
            pair[0].0
        );
    }
    assert_eq!(
        after.last(),
        before.last(),
        "{file}: the last turn is not kept"
    );
    assert!(
        !after.contains(&before[0]),
        "{file}: the first turn survived compaction"
    );
}
