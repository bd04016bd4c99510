//! `--verify` (on by default with `--in-place`): a broken writer in every format is caught before
//! anything is written, by the check its corruption breaks, and an honest write passes. The
//! broken writer is the test-only `CONDENSE_TEST_CORRUPT` of `verify::corrupt`.

use std::path::Path;

use crate::util::{condense, fixture, CORPUS};

const SUMMARY: &str = "CONDENSE-VERIFY-SUMMARY: what happened so far.\nMore lines follow.\n";

/// One message kept: the Gemini session has three, which `--preserve 2` (counted as the model
/// received them) leaves nothing to compact in.
const PRESERVE: &[&str] = &["--preserve", "1"];

/// `inject --in-place` of a copy of `session` with the writer broken by `corrupt` (none when
/// empty): the exit status, stderr, and whether the copy still holds the original bytes.
fn inject(session: &Path, corrupt: &str, extra: &[&str]) -> (i32, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(session, &path).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let mut cmd = condense();
    cmd.args(["inject", "--in-place", "--summary"])
        .arg(&summary)
        .args(extra)
        .arg(&path);
    if !corrupt.is_empty() {
        cmd.env("CONDENSE_TEST_CORRUPT", corrupt);
    }
    let output = cmd.output().unwrap();
    let unchanged = std::fs::read(&path).unwrap() == std::fs::read(session).unwrap();
    let no_backup = !dir.path().join("s.jsonl.bak").exists();
    if output.status.code() != Some(0) {
        assert!(no_backup, "a failed check left a backup");
        assert!(output.stdout.is_empty());
    }
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        unchanged,
    )
}

#[test]
fn an_honest_write_passes_in_every_format() {
    for (path, format) in CORPUS {
        let (code, stderr, unchanged) = inject(&fixture(path), "", PRESERVE);
        assert_eq!(code, 0, "{path} ({format}): {stderr}");
        assert!(!unchanged, "{path}: nothing was written");
    }
}

#[test]
fn a_broken_writer_is_caught_by_the_check_it_breaks_in_every_format() {
    for (path, format) in CORPUS {
        for (corrupt, check) in [("cut", "readable"), ("no-summary", "summary")] {
            let (code, stderr, unchanged) = inject(&fixture(path), corrupt, PRESERVE);
            assert_eq!(code, 1, "{path} ({format}) {corrupt}: {stderr}");
            assert!(
                stderr.contains(&format!("--verify: check \"{check}\" failed"))
                    && stderr.contains("the session was not written")
                    && stderr.lines().count() == 1,
                "{path} ({format}) {corrupt}: {stderr}"
            );
            assert!(
                unchanged,
                "{path} ({format}) {corrupt}: the session was changed"
            );
        }
    }
}

#[test]
fn no_verify_writes_what_the_broken_writer_made() {
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(&session, &path).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    condense()
        .args(["inject", "--in-place", "--no-verify", "--summary"])
        .arg(&summary)
        .arg(&path)
        .env("CONDENSE_TEST_CORRUPT", "no-summary")
        .assert()
        .success();
    // The marker went in without its summary: what --verify's "summary" check stops.
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.len() > std::fs::read_to_string(&session).unwrap().len());
    assert!(written.contains("compact_boundary") && !written.contains("CONDENSE-VERIFY-SUMMARY"));
}

#[test]
fn compact_in_place_verifies_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    std::fs::copy(&session, &path).unwrap();
    let output = condense()
        .args(["compact", "--in-place", "--budget", "2000"])
        .arg(&path)
        .env("CONDENSE_TEST_CORRUPT", "cut")
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("check \"readable\" failed"), "{stderr}");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&session).unwrap()
    );
}
