//! `history`: the compactions of real sessions, their originals back byte for byte, search.

use std::path::Path;

use serde_json::Value;

use crate::util::{condense, fixture, json_lines, run_ok};

fn history(args: &[&str], path: &Path) -> Vec<u8> {
    let output = run_ok(condense().arg("history").args(args).arg(path));
    output.stdout
}

fn epochs(path: &Path) -> Vec<Value> {
    json_lines(&history(&[], path))
}

/// Every compaction the corpus holds is listed, and `--show` gives back exactly lines of the
/// file, in order.
#[test]
fn lists_every_compaction_of_the_corpus_and_shows_its_originals() {
    for (file, count) in [
        // jq -c 'select(.subtype=="compact_boundary")' FILE | wc -l → 1
        ("corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl", 1),
        // microcompact_boundary lines only: those compact no epoch
        ("corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl", 0),
        // jq -c 'select(.type=="compacted")' FILE | wc -l → 6
        ("corpus/codex/agent-sessions-small.jsonl", 6),
        ("corpus/pi/pi-mono-large-session.jsonl", 0),
    ] {
        let path = fixture(file);
        let listed = epochs(&path);
        assert_eq!(listed.len(), count, "{file}");
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for (number, epoch) in listed.iter().enumerate() {
            assert_eq!(epoch["epoch"], number + 1);
            assert!(
                epoch["tokens_after"].as_u64() < epoch["tokens_before"].as_u64()
                    || file.contains("codex")
            );
            let shown = history(&["--show", &(number + 1).to_string()], &path);
            let shown = String::from_utf8(shown).unwrap();
            assert_eq!(
                shown.lines().count() as u64,
                epoch["records"].as_u64().unwrap(),
                "{file}"
            );
            let mut from = 0;
            for line in shown.lines() {
                let at = text[from..]
                    .find(line)
                    .unwrap_or_else(|| panic!("{file}: not a line of the file, in order"));
                from += at + line.len();
            }
        }
    }
    let claude = &epochs(&fixture(
        "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
    ))[0];
    assert_eq!(claude["marker_line"], 31);
    assert_eq!(claude["lines"], serde_json::json!([1, 30]));
    assert!(claude["summary"]
        .as_str()
        .unwrap()
        .starts_with("This session is being continued"));
}

/// condense's own compactions are epochs like the agents' own; search finds what they
/// summarised, with line numbers, and nothing of the live context.
#[test]
fn condense_compactions_are_listed_and_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "HISTORY-SUMMARY first line\nmore").unwrap();
    let out = dir.path().join("pi.jsonl");
    let injected = run_ok(
        condense()
            .args(["inject", "--summary"])
            .arg(&summary)
            .arg(&session),
    );
    std::fs::write(&out, &injected.stdout).unwrap();
    let listed = epochs(&out);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["summary"], "HISTORY-SUMMARY first line");
    let compacted = condense()
        .args(["split", "--emit", "compact"])
        .arg(&session)
        .output()
        .unwrap();
    let shown = history(&["--show", "1"], &out);
    let is_message = |line: &&str| line.contains(r#""type":"message""#);
    let want: Vec<&str> = std::str::from_utf8(&compacted.stdout)
        .unwrap()
        .lines()
        .filter(is_message)
        .collect();
    let got: Vec<&str> = std::str::from_utf8(&shown)
        .unwrap()
        .lines()
        .filter(is_message)
        .collect();
    assert_eq!(got, want, "the epoch is what the compaction summarised");
    // The first request was summarised: search finds it in epoch 1, at its line.
    let found = json_lines(&history(&["--search", "theme.md in full"], &out));
    assert!(!found.is_empty());
    assert_eq!(found[0]["epoch"], 1);
    let written = std::fs::read_to_string(&out).unwrap();
    let line = found[0]["line"].as_u64().unwrap() as usize;
    assert!(written
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains("theme.md in full"));
    let missing = condense()
        .args(["history", "--show", "2"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(missing.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("there is no epoch 2; the session has 1")
    );
}

/// A rewritten format keeps its earlier version in the backup `inject --in-place` made.
#[test]
fn a_rewritten_session_finds_its_epochs_in_the_backups() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("context.jsonl");
    let original = std::fs::read(fixture(
        "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    ))
    .unwrap();
    std::fs::write(&session, &original).unwrap();
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "KIMI-SUMMARY").unwrap();
    let status = condense()
        .args(["inject", "--in-place", "--summary"])
        .arg(&summary)
        .arg(&session)
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    let listed = epochs(&session);
    assert_eq!(listed.len(), 1);
    assert!(listed[0]["file"]
        .as_str()
        .unwrap()
        .contains("context.jsonl.bak"));
    assert!(listed[0]["summary"]
        .as_str()
        .unwrap()
        .contains("KIMI-SUMMARY"));
    assert_eq!(history(&["--show", "1"], &session), original);
}
