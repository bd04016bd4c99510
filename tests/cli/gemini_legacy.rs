//! Gemini CLI's legacy session file (one JSON document, `session-*.json`): every reading
//! command reads it as the JSONL Gemini CLI 0.61 makes of it, the session finders list it, and
//! `--in-place` writes the `.jsonl` beside it, never the document. (That Gemini CLI resumes what
//! is written is `agents::gemini`'s test.)

use std::fs;
use std::path::Path;

use crate::util::{condense, fixture, json_lines};

/// The fixture Gemini CLI 0.38.2 wrote against the mock: 9 message records
/// (`jq '.messages | length'`), 4 of them user records, 2 tool calls (`jq '[.messages[].toolCalls
/// // [] | .[]] | length'`), one `kind`-carrying metadata object.
const LEGACY: &str = "agents/gemini-legacy/legacy.json";

fn run(args: &[&str], file: &Path) -> String {
    let output = condense().args(args).arg(file).output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn every_reading_command_reads_the_document() {
    let file = fixture(LEGACY);
    let estimate = &json_lines(run(&["estimate", "--format", "json"], &file).as_bytes())[0];
    assert_eq!(estimate["format"], "gemini");
    assert_eq!(estimate["messages"], 9);
    assert_eq!(estimate["by_role"]["user"]["count"], 4);
    assert_eq!(estimate["by_part"]["tool_call"]["count"], 2);
    assert_eq!(estimate["bookkeeping"], 1);
    // The same through a pipe, where it is read as a stream.
    let piped = condense()
        .args(["estimate", "--format", "json"])
        .write_stdin(fs::read(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(json_lines(&piped.stdout)[0]["tokens"], estimate["tokens"]);
    let prompt = run(&["prompt"], &file);
    assert!(
        prompt.contains("GEM-L1: what is in this project?"),
        "{prompt}"
    );
    let caveman = run(&["caveman"], &file);
    assert!(caveman.contains("GEM-L1"), "{caveman}");
    assert!(!run(&["bare"], &file).is_empty());
    let split = &json_lines(run(&["split"], &file).as_bytes())[0];
    assert_eq!(split["format"], "gemini");
    // No compaction recorded (Gemini CLI compresses in memory only).
    assert_eq!(run(&["history"], &file), "");
    let eval = json_lines(run(&["eval", "--at", "70%"], &file).as_bytes());
    assert!(!eval.is_empty());
    // The tail split emits is JSON lines of Gemini CLI's own records.
    let tail = run(&["split", "--emit", "tail"], &file);
    assert!(tail
        .lines()
        .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
}

#[test]
fn a_bad_message_is_located_in_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session-x.json");
    fs::write(
        &file,
        "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"u\", \"type\": \"user\",\n     \"content\": 7}\n  ]\n}\n",
    )
    .unwrap();
    let output = condense().arg("estimate").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("session-x.json:4: "), "{error}");
}

#[test]
fn the_finders_list_it_until_a_jsonl_takes_it_over() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/proj/chats");
    fs::create_dir_all(&chats).unwrap();
    let legacy = chats.join("session-2026-12-04T17-08-fbdf5c75.json");
    fs::copy(fixture(LEGACY), &legacy).unwrap();
    let sessions = |args: &[&str]| {
        let output = condense()
            .env("GEMINI_CLI_HOME", home.path())
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(
        sessions(&["sessions", "--agent", "gemini"]).trim(),
        legacy.display().to_string()
    );
    let by_id = sessions(&["estimate", "--agent", "gemini", "--session", "fbdf5c75"]);
    assert_eq!(json_lines(by_id.as_bytes())[0]["messages"], 9);
    // Once the session lives in the .jsonl beside it, that file is the session.
    let moved = chats.join("session-2026-12-04T17-08-fbdf5c75.jsonl");
    fs::copy(fixture("agents/gemini-turns.jsonl"), &moved).unwrap();
    assert_eq!(
        sessions(&["sessions", "--agent", "gemini"]).trim(),
        moved.display().to_string()
    );
}

#[test]
fn in_place_writes_the_jsonl_beside_the_document_and_undo_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = dir.path().join("session-2026-12-04T17-08-fbdf5c75.json");
    let import = dir.path().join("session-2026-12-04T17-08-fbdf5c75.jsonl");
    fs::copy(fixture(LEGACY), &legacy).unwrap();
    let original = fs::read(&legacy).unwrap();
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "SUMMARY-L: two files were read.\n").unwrap();
    let inject = || {
        condense()
            .args(["inject", "--in-place", "--summary"])
            .arg(&summary)
            .arg(&legacy)
            .output()
            .unwrap()
    };
    let output = inject();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        fs::read(&legacy).unwrap(),
        original,
        "the document is never written"
    );
    let written = fs::read_to_string(&import).unwrap();
    assert!(written.contains("SUMMARY-L"));
    assert!(!written.contains("GEM-L1"), "{written}");
    // Its metadata is the document's, updated later than the document says.
    let metadata: serde_json::Value =
        serde_json::from_str(written.lines().next().unwrap()).unwrap();
    assert_eq!(
        metadata["sessionId"],
        "fbdf5c75-cc62-4a54-8757-c6234aef5796"
    );
    assert!(metadata["lastUpdated"].as_str().unwrap() > "2026-12-04T17:08:30.774Z");
    // The session is the .jsonl now: the document is refused, naming it.
    let again = inject();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("continues this session in"));
    // undo, named by the document or the .jsonl, takes the compaction back: the .jsonl then
    // holds the whole conversation again.
    let output = condense().arg("undo").arg(&legacy).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let undone = fs::read_to_string(&import).unwrap();
    assert!(undone.contains("GEM-L1") && !undone.contains("SUMMARY-L"));
    assert_eq!(fs::read(&legacy).unwrap(), original);
}

#[test]
fn nothing_to_compact_leaves_no_file_beside_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = dir.path().join("session-x.json");
    fs::copy(fixture(LEGACY), &legacy).unwrap();
    let output = condense()
        .args(["prune", "--in-place"])
        .arg(&legacy)
        .output()
        .unwrap();
    // Exit 4: nothing to compact (no tool output in the fixture is old enough).
    assert_eq!(
        output.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!dir.path().join("session-x.jsonl").exists());
}
