//! `condense undo`: after `inject --in-place`, the session comes back byte for byte in every
//! format; in the append-only formats also after the agent appended a line that does not depend
//! on the compaction, and undo refuses, saying why, when the line does.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{condense, fixture, json_lines, run_ok, CORPUS};

/// A copy of `session` in `dir`, compacted in place.
fn compacted(session: &Path, dir: &Path) -> PathBuf {
    let path = dir.join("s.jsonl");
    std::fs::copy(session, &path).unwrap();
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "CONDENSE-UNDO-SUMMARY\n").unwrap();
    // One message kept: the Gemini session's three leave nothing to compact at --preserve 2.
    condense()
        .args(["inject", "--in-place", "--preserve", "1", "--summary"])
        .arg(&summary)
        .arg(&path)
        .assert()
        .success();
    assert_ne!(
        std::fs::read(&path).unwrap(),
        std::fs::read(session).unwrap()
    );
    path
}

fn list(path: &Path) -> Vec<Value> {
    let output = run_ok(condense().args(["undo", "--list"]).arg(path));
    json_lines(&output.stdout)
}

fn append(path: &Path, line: &str) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn undo_restores_every_format_byte_for_byte() {
    for (session, format) in CORPUS {
        let dir = tempfile::tempdir().unwrap();
        let path = compacted(&fixture(session), dir.path());
        let listed = list(&path);
        assert_eq!(listed.len(), 1, "{session}");
        assert_eq!(listed[0]["undoable"], true, "{session}: {}", listed[0]);
        let kind = if matches!(format, "claude-code" | "codex" | "pi") {
            "append"
        } else {
            "replace"
        };
        assert_eq!(listed[0]["kind"], kind, "{session}");
        condense().arg("undo").arg(&path).assert().success();
        assert!(
            std::fs::read(&path).unwrap() == std::fs::read(fixture(session)).unwrap(),
            "{session} ({format}) is not restored byte for byte"
        );
        assert!(
            list(&path).is_empty(),
            "{session}: the journal keeps the undone write"
        );
        // Nothing left to undo.
        condense()
            .arg("undo")
            .arg(&path)
            .assert()
            .code(1)
            .stdout("");
    }
}

#[test]
fn an_independent_line_the_agent_appended_is_kept() {
    for (session, line) in [
        (
            "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
            r#"{"type":"custom-title","customTitle":"renamed","sessionId":"5c0375b4"}"#,
        ),
        (
            "corpus/codex/agent-sessions-small.jsonl",
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"later"}}"#,
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = compacted(&fixture(session), dir.path());
        append(&path, line);
        condense().arg("undo").arg(&path).assert().success();
        let mut expected = std::fs::read(fixture(session)).unwrap();
        expected.extend_from_slice(line.as_bytes());
        expected.push(b'\n');
        assert!(std::fs::read(&path).unwrap() == expected, "{session}");
    }
}

#[test]
fn a_line_that_hangs_under_the_compaction_makes_undo_refuse() {
    for (session, parent_field) in [
        (
            "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
            "parentUuid",
        ),
        ("agents/pi-compacted-twice.jsonl", "parentId"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = compacted(&fixture(session), dir.path());
        let text = std::fs::read_to_string(&path).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        let id = last
            .get("uuid")
            .or_else(|| last.get("id"))
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{session}: the last line has no id: {last}"));
        append(
            &path,
            &format!(r#"{{"type":"user","{parent_field}":"{id}","uuid":"later","id":"later"}}"#),
        );
        let before = std::fs::read(&path).unwrap();
        let output = condense().arg("undo").arg(&path).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(1), "{session}: {stderr}");
        assert!(stderr.contains("hangs under the compaction"), "{stderr}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "{session}: undo changed the file"
        );
        assert_eq!(list(&path)[0]["undoable"], false);
    }
}

#[test]
fn a_replaced_session_the_agent_wrote_to_since_is_not_undone() {
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let path = compacted(&session, dir.path());
    append(&path, r#"{"role":"user","content":"later"}"#);
    let output = condense().arg("undo").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("the file changed since condense replaced it"));
}

/// Every in-place write is recorded where it is made (issue 31: the persist core keeps the one
/// journal): `prune --in-place` and `doctor --repair` could not be undone before.
#[test]
fn a_prune_in_place_is_undone_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    std::fs::copy(&session, &path).unwrap();
    condense()
        .args(["prune", "--in-place", "--keep", "0"])
        .arg(&path)
        .assert()
        .success();
    assert_ne!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&session).unwrap()
    );
    let listed = list(&path);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["kind"], "replace");
    condense().arg("undo").arg(&path).assert().success();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&session).unwrap()
    );
    assert!(list(&path).is_empty());
}

/// The journal lies beside the file a symlink names, where every run on the session finds it,
/// whichever name it was given.
#[test]
fn a_session_compacted_through_a_symlink_is_undone_by_either_name() {
    let dir = tempfile::tempdir().unwrap();
    let real = compacted(&fixture(CORPUS[0].0), dir.path());
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(list(&link).len(), 1);
    assert!(!dir.path().join("link.jsonl.condense-undo").exists());
    condense().arg("undo").arg(&link).assert().success();
    assert_eq!(
        std::fs::read(&real).unwrap(),
        std::fs::read(fixture(CORPUS[0].0)).unwrap()
    );
}
