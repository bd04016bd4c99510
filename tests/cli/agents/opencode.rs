//! opencode: a copy of the fixture database (`fixtures/agents/opencode/opencode.db`, written by
//! opencode 1.18.33 against the mock) is written in place by condense (`inject --in-place`,
//! `prune --in-place`, `DB#ID`), then opencode itself resumes the session with
//! `opencode run --session ID` against the mock API in a network namespace of its own
//! (`tests/agents/opencode-resume.sh`), and what it sent the model is the judge: condense's
//! summary first (after opencode's own `What did we do so far?`), the kept tail, not the
//! summarised messages, and a smaller request; `opencode session list` lists the session. A
//! Droid session handed over to opencode (`--to opencode`) is created as rows and resumed too.

use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use super::harness::{agent_bin, installed, script};
use super::SUMMARY;
use crate::util::{condense_ok, fixture};

const TURNS: &str = "ses_dbdc535e8ffe5HFN9TBZwRoHKG";
const COMPACTED: &str = "ses_dbdc40a00ffedRji45t55ZECSd";

fn ready() -> bool {
    installed("opencode (opencode-ai)", &agent_bin("opencode"))
}

/// What opencode sent on resuming session `id` of the database `db`: one `role: text` line a
/// message (as `tests/agents/sent.py` prints them), and the request's size in bytes.
fn resume(db: &Path, id: &str) -> (Vec<String>, usize) {
    // A process group of its own: a signal opencode sends its group on the way out must not
    // reach the tests running beside it (three runs at once were once ended by a SIGTERM).
    let output = Command::new(script("opencode-resume.sh"))
        .arg(db)
        .arg(id)
        .process_group(0)
        .output()
        .expect("opencode-resume.sh runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "opencode-resume.sh failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("(in that folder): lists it"),
        "opencode session list does not list {id}:\n{stdout}"
    );
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    let total = lines
        .iter()
        .find_map(|l| {
            l.strip_prefix("# ")?
                .split(", ")
                .nth(1)?
                .strip_suffix(" bytes")
        })
        .and_then(|bytes| bytes.parse().ok())
        .unwrap_or_else(|| panic!("no size in what opencode sent:\n{stdout}"));
    let messages = lines
        .into_iter()
        .filter(|l| !l.starts_with('#') && !l.starts_with("system:"))
        .collect();
    (messages, total)
}

/// A copy of the fixture database in `dir`.
fn database(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("opencode.db");
    std::fs::copy(fixture("agents/opencode/opencode.db"), &db).unwrap();
    db
}

fn session(db: &Path, id: &str) -> std::ffi::OsString {
    let mut name = db.as_os_str().to_owned();
    name.push(format!("#{id}"));
    name
}

/// `condense inject --in-place` into a copy of the database, keeping the last turn.
fn inject_in_place(dir: &Path, id: &str) -> std::path::PathBuf {
    let db = database(dir);
    let summary = dir.join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    condense_ok(&[
        OsStr::new("inject"),
        OsStr::new("--summary"),
        summary.as_os_str(),
        OsStr::new("--in-place"),
        OsStr::new("--preserve"),
        OsStr::new("1"),
        &session(&db, id),
    ]);
    db
}

#[test]
fn opencode_resumes_from_condenses_compaction_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (before, before_bytes) = resume(&fixture("agents/opencode/opencode.db"), TURNS);
    assert!(before.iter().any(|l| l.contains("OC-Q1")), "{before:#?}");
    let db = inject_in_place(dir.path(), TURNS);
    let (after, after_bytes) = resume(&db, TURNS);
    assert_eq!(after[0], "user: What did we do so far?", "{after:#?}");
    assert!(
        after[1].starts_with("assistant: CONDENSE-SUMMARY-7f3a"),
        "{after:#?}"
    );
    // The kept tail: the last turn, then the new question.
    assert!(after[2].contains("OC-Q3"), "{after:#?}");
    assert!(after.last().unwrap().contains("RESUMED-Q"), "{after:#?}");
    // Not the summarised turns.
    for gone in ["OC-Q1", "OC-Q2", "call read"] {
        assert!(
            !after.iter().any(|l| l.contains(gone)),
            "{gone} was sent: {after:#?}"
        );
    }
    assert!(
        after_bytes < before_bytes,
        "{before_bytes} -> {after_bytes} bytes"
    );
}

/// A second compaction, over opencode's own: condense's summary replaces opencode's, which is
/// no longer sent.
#[test]
fn opencode_resumes_from_condenses_compaction_over_its_own() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = inject_in_place(dir.path(), COMPACTED);
    let (after, _) = resume(&db, COMPACTED);
    assert_eq!(after[0], "user: What did we do so far?", "{after:#?}");
    assert!(
        after[1].starts_with("assistant: CONDENSE-SUMMARY-7f3a"),
        "{after:#?}"
    );
    assert!(after[2].contains("OC-NEW-Q4"), "{after:#?}");
    for gone in ["MOCK-SUMMARY", "OC-OLD-Q1", "OC-OLD-Q2", "OC-NEW-Q3"] {
        assert!(
            !after.iter().any(|l| l.contains(gone)),
            "{gone} was sent: {after:#?}"
        );
    }
}

/// `prune --in-place`: opencode sends the pruned tool outputs, shorter, and every turn.
#[test]
fn opencode_resumes_a_pruned_session() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    condense_ok(&[
        OsStr::new("prune"),
        OsStr::new("--in-place"),
        OsStr::new("--keep"),
        OsStr::new("0"),
        OsStr::new("--min-tokens"),
        OsStr::new("1"),
        &session(&db, TURNS),
    ]);
    let (after, _) = resume(&db, TURNS);
    let results: Vec<&String> = after.iter().filter(|l| l.starts_with("tool:")).collect();
    assert_eq!(results.len(), 2, "{after:#?}");
    assert!(after.iter().any(|l| l.contains("OC-Q1")), "{after:#?}");
    let (before, _) = resume(&fixture("agents/opencode/opencode.db"), TURNS);
    let before_results: Vec<&String> = before.iter().filter(|l| l.starts_with("tool:")).collect();
    assert_ne!(
        results, before_results,
        "the tool outputs sent did not change"
    );
}

/// A Droid session handed over to opencode (`--to opencode --to-session-dir`, rows created in
/// a copy of the database): opencode lists it, resumes it, and sends the summary first.
#[test]
fn opencode_resumes_a_session_handed_over_to_it() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let db = database(&data);
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let resume_line = condense_ok(&[
        OsStr::new("inject"),
        OsStr::new("--summary"),
        summary.as_os_str(),
        OsStr::new("--to"),
        OsStr::new("opencode"),
        OsStr::new("--to-session-dir"),
        data.as_os_str(),
        OsStr::new("--cwd"),
        project.as_os_str(),
        fixture("agents/droid/turns.jsonl").as_os_str(),
    ]);
    let resume_line = String::from_utf8(resume_line).unwrap();
    let id = resume_line
        .split_whitespace()
        .last()
        .filter(|id| id.starts_with("ses_"))
        .unwrap_or_else(|| panic!("no session id in {resume_line:?}"))
        .to_owned();
    let (sent, _) = resume(&db, &id);
    assert!(
        sent[0].starts_with(
            "user: This session continues work handed over from another agent: Factory Droid"
        ),
        "{sent:#?}"
    );
    assert!(sent.last().unwrap().contains("RESUMED-Q"), "{sent:#?}");
}
