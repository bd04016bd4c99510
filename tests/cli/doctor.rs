//! `condense doctor`: each defect class in crafted sessions of each agent, the real corpus, and
//! `--repair` through the safe in-place writer (backup, printed changes, a healthy result).

use std::path::Path;

use serde_json::Value;

use crate::util::{assert_success, condense, fixture, json_lines, run_ok, CORPUS};

fn cc(uuid: &str, parent: Option<&str>, role: &str, content: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"parentUuid":{parent},"isSidechain":false,"type":"{role}","uuid":"{uuid}","sessionId":"s","message":{{"role":"{role}","content":{content}}}}}"#
    )
}

fn text(t: &str) -> String {
    format!(r#"[{{"type":"text","text":"{t}"}}]"#)
}

fn pi(id: &str, parent: Option<&str>, role: &str, t: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"t","message":{{"role":"{role}","content":[{{"type":"text","text":"{t}"}}],"timestamp":1}}}}"#
    )
}

const PI_HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/tmp"}"#;

fn jsonl(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The report of `doctor` on `text` (read from a file named `name` in a fresh directory).
fn doctor(name: &str, text: &str, args: &[&str]) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let output = run_ok(condense().arg("doctor").args(args).arg(&path));
    let mut lines = json_lines(&output.stdout);
    assert_eq!(lines.len(), 1);
    (lines.remove(0), dir)
}

/// The finding of class `defect`: its count and lines.
fn found(report: &Value, defect: &str) -> Option<(u64, Vec<u64>)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["defect"] == defect)
        .map(|f| {
            let lines = f["lines"].as_array().unwrap();
            (
                f["count"].as_u64().unwrap(),
                lines.iter().map(|l| l.as_u64().unwrap()).collect(),
            )
        })
}

fn classes(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["defect"].as_str().unwrap().to_owned())
        .collect()
}

/// Repairs `text` in place; returns the report, the repaired bytes, and the backup's bytes.
fn repaired(name: &str, text: &str, args: &[&str]) -> (Value, String, String) {
    let (report, dir) = doctor(name, text, &[&["--repair"], args].concat());
    let path = dir.path().join(name);
    let backup = std::fs::read_to_string(dir.path().join(format!("{name}.bak"))).unwrap();
    (report, std::fs::read_to_string(path).unwrap(), backup)
}

fn healthy(name: &str, text: &str, args: &[&str]) -> Value {
    let (report, _dir) = doctor(name, text, args);
    assert_eq!(classes(&report), Vec::<String>::new(), "{report}");
    report
}

#[test]
fn claude_code_dangling_parent_is_found_and_relinked() {
    let session = jsonl(&[
        cc("u1", None, "user", &text("first question")),
        cc("a1", Some("u1"), "assistant", &text("first answer")),
        cc("u2", Some("gone"), "user", &text("second question")),
        cc("a2", Some("u2"), "assistant", &text("second answer")),
    ]);
    let (report, _dir) = doctor("s.jsonl", &session, &[]);
    assert_eq!(found(&report, "dangling-parent"), Some((1, vec![3])));
    // The agent resumes a2 <- u2 and stops: u1 and a1 are lost.
    assert_eq!(found(&report, "unreachable"), Some((2, vec![1, 2])));
    assert_eq!(
        (report["messages"].as_u64(), report["reachable"].as_u64()),
        (Some(4), Some(2))
    );

    let (report, after, backup) = repaired("s.jsonl", &session, &[]);
    assert_eq!(backup, session, "the backup is the original, byte for byte");
    assert_eq!(
        after,
        session.replace(r#""parentUuid":"gone""#, r#""parentUuid":"a1""#)
    );
    let change = &report["repair"]["changes"][0];
    assert_eq!(change["line"], 3);
    assert!(
        change["what"].as_str().unwrap().contains("gone -> a1"),
        "{change}"
    );
    let report = healthy("s.jsonl", &after, &[]);
    assert_eq!(report["reachable"], 4);
}

#[test]
fn claude_code_cycle_is_found_and_broken() {
    let session = jsonl(&[
        cc("u1", None, "user", &text("first question")),
        cc("a1", Some("u1"), "assistant", &text("first answer")),
        cc("u2", Some("a2"), "user", &text("second question")),
        cc("a2", Some("u2"), "assistant", &text("second answer")),
    ]);
    let (report, _dir) = doctor("s.jsonl", &session, &[]);
    assert_eq!(found(&report, "cycle"), Some((1, vec![3])));
    assert_eq!(found(&report, "unreachable").map(|f| f.0), Some(2));
    let (_, after, _) = repaired("s.jsonl", &session, &[]);
    assert!(after.contains(r#""parentUuid":"a1","isSidechain":false,"type":"user","uuid":"u2""#));
    assert_eq!(healthy("s.jsonl", &after, &[])["reachable"], 4);
}

#[test]
fn claude_code_duplicate_ids_and_orphaned_results_are_reported_not_repaired() {
    let result = r#"[{"type":"tool_result","tool_use_id":"toolu_gone","content":"ok"}]"#;
    let session = jsonl(&[
        cc("u1", None, "user", &text("question")),
        cc("a1", Some("u1"), "assistant", &text("answer")),
        cc("a1", Some("u1"), "assistant", &text("another answer")),
        // A byte-for-byte replay (a resumed session writes them) is no defect.
        cc("u1", None, "user", &text("question")),
        cc("u2", Some("a1"), "user", result),
    ]);
    let (report, _dir) = doctor("s.jsonl", &session, &[]);
    assert_eq!(found(&report, "duplicate-id"), Some((1, vec![3])));
    assert_eq!(found(&report, "orphaned-tool-result"), Some((1, vec![5])));
    let findings = report["findings"].as_array().unwrap();
    assert!(
        findings.iter().all(|f| f["repairable"] == false),
        "{report}"
    );
}

#[test]
fn a_half_last_line_is_dropped_and_glued_lines_split_in_every_format() {
    let sessions = [
        (
            "claude-code",
            vec![
                cc("u1", None, "user", &text("question")),
                cc("a1", Some("u1"), "assistant", &text("answer")),
                cc("u2", Some("a1"), "user", &text("thanks")),
            ],
        ),
        (
            "pi",
            vec![
                PI_HEADER.to_owned(),
                pi("e1", None, "user", "question"),
                pi("e2", Some("e1"), "assistant", "answer"),
                pi("e3", Some("e2"), "user", "thanks"),
            ],
        ),
        (
            "codex",
            vec![
                r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","timestamp":"t","cwd":"/tmp","originator":"codex_cli_rs","cli_version":"0.1.0"}}"#.to_owned(),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"question"}]}}"#.to_owned(),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer"}]}}"#.to_owned(),
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}}"#.to_owned(),
            ],
        ),
        (
            "gemini",
            vec![
                r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#.to_owned(),
                r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"question"}]}"#.to_owned(),
                r#"{"id":"g1","timestamp":"t","type":"gemini","content":"answer","model":"m"}"#.to_owned(),
                r#"{"id":"u2","timestamp":"t","type":"user","content":[{"text":"thanks"}]}"#.to_owned(),
            ],
        ),
        (
            "openai",
            vec![
                r#"{"role":"user","content":"question"}"#.to_owned(),
                r#"{"role":"assistant","content":"answer"}"#.to_owned(),
                r#"{"role":"user","content":"thanks"}"#.to_owned(),
            ],
        ),
    ];
    for (format, lines) in sessions {
        let whole = jsonl(&lines);
        let args = ["--from", format];
        healthy("s.jsonl", &whole, &args);

        // A crash mid-write: half a line at the end.
        let cut = format!("{whole}{}", &lines[lines.len() - 1][..20]);
        let (report, _dir) = doctor("s.jsonl", &cut, &args);
        assert_eq!(report["format"], format);
        assert_eq!(
            found(&report, "half-line"),
            Some((1, vec![lines.len() as u64 + 1])),
            "{format}"
        );
        let (_, after, backup) = repaired("s.jsonl", &cut, &args);
        assert_eq!(
            (after.as_str(), backup.as_str()),
            (whole.as_str(), cut.as_str()),
            "{format}"
        );

        // A lost line end: the last two records on one line.
        let glued = whole.replacen(
            &format!("{}\n", lines[lines.len() - 2]),
            &lines[lines.len() - 2],
            1,
        );
        let (report, _dir) = doctor("s.jsonl", &glued, &args);
        assert_eq!(
            found(&report, "glued-lines"),
            Some((1, vec![lines.len() as u64 - 1])),
            "{format}"
        );
        let (_, after, _) = repaired("s.jsonl", &glued, &args);
        assert_eq!(after, whole, "{format}");
    }
}

#[test]
fn pi_dangling_parent_and_cycle_are_relinked_to_the_entry_before() {
    let session = jsonl(&[
        PI_HEADER.to_owned(),
        pi("e1", None, "user", "first question"),
        pi("e2", Some("e1"), "assistant", "first answer"),
        pi("e3", Some("gone"), "user", "second question"),
        pi("e4", Some("e3"), "assistant", "second answer"),
    ]);
    let (report, _dir) = doctor("s.jsonl", &session, &[]);
    assert_eq!(found(&report, "dangling-parent"), Some((1, vec![4])));
    assert_eq!(found(&report, "unreachable"), Some((2, vec![2, 3])));
    let (_, after, _) = repaired("s.jsonl", &session, &[]);
    assert_eq!(
        after,
        session.replace(r#""parentId":"gone""#, r#""parentId":"e2""#)
    );
    assert_eq!(healthy("s.jsonl", &after, &[])["reachable"], 4);

    let cycle = session.replace(r#""parentId":"gone""#, r#""parentId":"e4""#);
    let (report, _dir) = doctor("s.jsonl", &cycle, &[]);
    assert_eq!(found(&report, "cycle"), Some((1, vec![4])));
    let (_, after, _) = repaired("s.jsonl", &cycle, &[]);
    assert_eq!(
        after,
        session.replace(r#""parentId":"gone""#, r#""parentId":"e2""#)
    );
}

#[test]
fn orphaned_results_in_codex_gemini_and_kimi() {
    let codex = jsonl(&[
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","timestamp":"t","cwd":"/tmp","originator":"codex_cli_rs","cli_version":"0.1.0"}}"#.to_owned(),
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}"#.to_owned(),
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}"#.to_owned(),
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#.to_owned(),
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c9","output":"ok"}}"#.to_owned(),
    ]);
    let (report, _dir) = doctor("codex.jsonl", &codex, &[]);
    assert_eq!(
        found(&report, "orphaned-tool-result"),
        Some((1, vec![5])),
        "{report}"
    );
    let kimi = jsonl(&[
        r#"{"role":"user","content":"go"}"#.to_owned(),
        r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","id":"t1","function":{"name":"sh","arguments":"{}"}}]}"#.to_owned(),
        r#"{"role":"tool","tool_call_id":"t1","content":"ok"}"#.to_owned(),
        r#"{"role":"tool","tool_call_id":"t2","content":"ok"}"#.to_owned(),
    ]);
    let (report, _dir) = doctor("context.jsonl", &kimi, &[]);
    assert_eq!(
        found(&report, "orphaned-tool-result"),
        Some((1, vec![4])),
        "{report}"
    );
    let gemini = jsonl(&[
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#
            .to_owned(),
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"question"}]}"#.to_owned(),
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"another question"}]}"#
            .to_owned(),
    ]);
    let (report, _dir) = doctor("gemini.jsonl", &gemini, &[]);
    assert_eq!(
        found(&report, "duplicate-id"),
        Some((1, vec![3])),
        "{report}"
    );
}

#[test]
fn the_corpus_is_checked_by_each_agents_rule() {
    for (path, format) in CORPUS {
        let output = condense()
            .arg("doctor")
            .arg(fixture(path))
            .output()
            .unwrap();
        assert_success(&output, format_args!("{path}"));
        let report = &json_lines(&output.stdout)[0];
        assert_eq!(report["format"], format);
        let expected: &[&str] = match path {
            // An excerpt of a longer session: its first line's parentUuid names a line before
            // the excerpt, which cuts nothing (the first line has no message before it).
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl" => &["dangling-parent"],
            _ => &[],
        };
        assert_eq!(classes(report), expected, "{path}: {report}");
        assert_eq!(report["messages"], report["reachable"], "{path}");
    }
    let (report, _dir) = doctor(
        "s.jsonl",
        &std::fs::read_to_string(fixture(
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
        ))
        .unwrap(),
        &[],
    );
    assert_eq!(found(&report, "dangling-parent"), Some((1, vec![1])));
    assert_eq!(report["findings"][0]["repairable"], false);
}

#[test]
fn repair_of_a_healthy_session_writes_nothing_and_stdin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::copy(fixture("corpus/pi/pi-mono-large-session.jsonl"), &path).unwrap();
    condense()
        .args(["doctor", "--repair"])
        .arg(&path)
        .assert()
        .success();
    assert!(!Path::new(&format!("{}.bak", path.display())).exists());
    condense()
        .args(["doctor", "--repair", "-"])
        .write_stdin("{}\n")
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn markdown_lists_findings_and_changes() {
    let session = jsonl(&[
        cc("u1", None, "user", &text("first question")),
        cc("a1", Some("u1"), "assistant", &text("first answer")),
        cc("u2", Some("gone"), "user", &text("second question")),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, &session).unwrap();
    let output = condense()
        .args(["doctor", "--repair", "--format", "markdown"])
        .arg(&path)
        .output()
        .unwrap();
    let out = String::from_utf8(output.stdout).unwrap();
    assert!(
        out.contains("| 3 | 1 | 1 dangling-parent, 2 unreachable |"),
        "{out}"
    );
    assert!(out.contains(":3: repaired: parentUuid gone -> a1"), "{out}");
    assert!(out.contains("the original is kept as"), "{out}");
}
