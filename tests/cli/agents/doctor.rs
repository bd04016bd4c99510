//! `doctor --repair` judged by the agents themselves: after the repair of a broken link the
//! agent sends exactly what it sent for the unbroken session (pi, which loses the history
//! behind the link before the repair, and Claude Code).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::harness::distinctive;
use super::{claude, pi};
use crate::util::condense_ok;
use crate::util::fixture;

/// `session` with the parent field of line `line` (1-based) pointing at an id no line has,
/// written to `dir/name`.
fn broken(session: &Path, line: usize, field: &str, dir: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(session).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let record: Value = serde_json::from_str(&lines[line - 1]).unwrap();
    let parent = record[field].as_str().unwrap().to_owned();
    let from = format!("\"{field}\":\"{parent}\"");
    assert!(lines[line - 1].contains(&from));
    lines[line - 1] = lines[line - 1].replace(&from, &format!("\"{field}\":\"lost-parent\""));
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Runs `doctor --repair` on `path` and requires one change, on `line`.
fn repair(path: &Path, line: usize) {
    let out = condense_ok(&["doctor".as_ref(), "--repair".as_ref(), path.as_os_str()]);
    let report: Value = serde_json::from_slice(&out).unwrap();
    let changes = report["repair"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{report}");
    assert_eq!(changes[0]["line"], line, "{report}");
    assert!(Path::new(&format!("{}.bak", path.display())).exists());
}

#[test]
fn claude_code_resumes_the_repaired_session_as_the_unbroken_one() {
    if !claude::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    let whole = claude::resume(&session);
    // Line 44, an assistant reply late on the chain, loses its parent.
    // (Claude Code 2.1.332 bridges this gap itself when it resumes, so the broken file is
    // not what is judged here; condense's rule, and Claude Code's walk without the bridge,
    // stop at the link. What is judged is that the repair changes nothing Claude Code sends.)
    let path = broken(&session, 44, "parentUuid", dir.path(), "broken.jsonl");
    repair(&path, 44);
    // Each message by its own text (the reminders Claude Code adds to a request differ from
    // run to run).
    let texts = |messages: &Value| -> Vec<String> {
        messages
            .as_array()
            .unwrap()
            .iter()
            .map(distinctive)
            .collect()
    };
    assert_eq!(texts(&claude::resume(&path)), texts(&whole));
}

#[test]
fn pi_loads_the_repaired_session_as_the_unbroken_one() {
    if !pi::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/pi-compacted-twice.jsonl");
    let whole = pi::context(&session);
    // Line 650, after both compactions, loses its parent.
    let path = broken(&session, 650, "parentId", dir.path(), "broken.jsonl");
    let cut = pi::context(&path);
    assert_ne!(
        cut["messages"], whole["messages"],
        "pi followed the broken link"
    );
    repair(&path, 650);
    assert_eq!(pi::context(&path), whole);
}
