//! `inject --to` and `compact --to` on the corpus: every real session becomes a valid session
//! of every target that condense itself reads back (its own format detected, the summary first,
//! no tool call or result left, the tail's last text kept); caveman's summary stands in for a
//! model's; missing fields, usage errors and `--to-session-dir` behave as documented.

use std::path::Path;

use crate::util::{assert_success, condense, fixture, json_lines, run_ok};

const CORPUS: [&str; 9] = [
    "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
    "corpus/claude-code/claude-code-viewer-fe5e1c67.jsonl",
    "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
    "corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl",
    "corpus/codex/agent-sessions-small.jsonl",
    "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
    "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    "corpus/openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
    "corpus/pi/pi-mono-large-session.jsonl",
];

const TARGETS: [&str; 6] = [
    "claude-code",
    "codex",
    "pi",
    "gemini",
    "openai",
    "anthropic",
];

fn summary_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("summary.md");
    std::fs::write(&path, text).unwrap();
    path
}

fn handoff(session: &Path, summary: &Path, extra: &[&str]) -> Vec<u8> {
    let output = condense()
        .arg("inject")
        .arg("--summary")
        .arg(summary)
        .args(extra)
        .arg(session)
        .output()
        .unwrap();
    assert_success(&output, format_args!("{}", session.display()));
    output.stdout
}

/// What `condense prompt --preserve 0 --format jsonl` numbers as messages of a session: its
/// live context as condense reads it, the system prompt aside.
fn read_back(bytes: &[u8], dir: &Path, from: &str) -> Vec<serde_json::Value> {
    let path = dir.join("new.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let output = run_ok(condense().args(["estimate", "--from", from]).arg(&path));
    let report = &json_lines(&output.stdout)[0];
    assert_eq!(report["format"], from, "detected as {from}");
    for kind in ["tool_call", "tool_result"] {
        assert_eq!(
            report["parts"][kind].as_u64().unwrap_or(0),
            0,
            "{from}: a {kind} is left: {report}"
        );
    }
    json_lines(bytes)
}

#[test]
fn every_corpus_session_becomes_a_session_of_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let summary = summary_file(dir.path(), "HANDOFF-SUMMARY-0d1e");
    for file in CORPUS {
        for target in TARGETS {
            let name = format!("{file} -> {target}");
            let bytes = handoff(
                &fixture(file),
                &summary,
                &["--to", target, "--cwd", "/work/project", "--model", "m"],
            );
            let lines = read_back(&bytes, dir.path(), target);
            let text = String::from_utf8(bytes.clone()).unwrap();
            assert!(text.contains("HANDOFF-SUMMARY-0d1e"), "{name}: no summary");
            assert!(lines.len() >= 2, "{name}: nothing but the summary");
            // The same input makes the same session (sources without timestamps take the
            // clock, and only their timestamps may differ).
            let again = handoff(
                &fixture(file),
                &summary,
                &["--to", target, "--cwd", "/work/project", "--model", "m"],
            );
            if !file.contains("openai-chat") {
                assert_eq!(again, bytes, "{name}: not deterministic");
            }
        }
    }
}

#[test]
fn tool_calls_of_the_tail_arrive_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let summary = summary_file(dir.path(), "S");
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let bytes = handoff(
        &session,
        &summary,
        &["--to", "claude-code", "--cwd", "/p", "--preserve", "6"],
    );
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("[ran the tool `Bash` with"));
    assert!(text.contains("[`Bash` returned:]"));
    assert!(!text.contains("\"tool_use\"") && !text.contains("\"tool_result\""));
}

#[test]
fn caveman_stands_in_for_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    let caveman = run_ok(condense().arg("caveman").arg(&session));
    let summary = summary_file(dir.path(), std::str::from_utf8(&caveman.stdout).unwrap());
    let bytes = handoff(&session, &summary, &["--to", "codex"]);
    let text = String::from_utf8(bytes).unwrap();
    assert!(
        text.contains("# caveman\\n"),
        "caveman's summary is not in the session"
    );
    // The cwd came from pi's header.
    assert!(text.contains("\"cwd\":\"/Users/"), "{}", &text[..300]);
}

#[test]
fn a_field_the_target_needs_and_the_source_lacks_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let summary = summary_file(dir.path(), "S");
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    condense()
        .args(["inject", "--to", "codex", "--summary"])
        .arg(&summary)
        .arg(&session)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("the working directory (--cwd)"));
    condense()
        .args(["inject", "--to", "pi", "--cwd", "/p", "--summary"])
        .arg(&summary)
        .arg(&session)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("the model (--model)"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let summary = summary_file(dir.path(), "S");
    let session = fixture("agents/codex-turns.jsonl");
    for extra in [
        &["--to", "pi", "--in-place"][..],
        &["--to", "pi", "--format", "markdown"],
        &["--cwd", "/p"],
    ] {
        condense()
            .arg("inject")
            .args(extra)
            .arg("--summary")
            .arg(&summary)
            .arg(&session)
            .assert()
            .code(2);
    }
}

#[test]
fn to_session_dir_places_the_file_and_prints_the_resume_command() {
    let dir = tempfile::tempdir().unwrap();
    let summary = summary_file(dir.path(), "S");
    let home = dir.path().join(".claude");
    let session = fixture("agents/codex-turns.jsonl");
    let args = |cmd: &mut assert_cmd::Command| {
        cmd.args(["inject", "--to", "claude-code", "--to-session-dir"])
            .arg(&home)
            .arg("--summary")
            .arg(&summary)
            .arg(&session);
    };
    let mut first = condense();
    args(&mut first);
    let output = first.output().unwrap();
    assert_success(&output, "");
    let resume = String::from_utf8(output.stdout).unwrap();
    let id = resume.trim().rsplit(' ').next().unwrap().to_owned();
    // The working directory the Codex session records, and Claude Code's folder name for it.
    let text = std::fs::read_to_string(&session).unwrap();
    let cwd = text
        .split("\"cwd\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    let slug: String = cwd
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    assert!(
        resume.starts_with(&format!("cd {cwd} && claude --resume ")),
        "{resume}"
    );
    let path = home.join("projects").join(slug).join(format!("{id}.jsonl"));
    assert!(path.is_file(), "{} is missing", path.display());
    // The same handoff again leaves the file alone.
    let mut second = condense();
    args(&mut second);
    second.assert().code(1);
}

#[test]
fn compact_to_walks_the_ladder_into_the_target() {
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    let output = run_ok(
        condense()
            .args(["compact", "--budget", "4000", "--to", "gemini"])
            .arg(&session),
    );
    let lines = json_lines(&output.stdout);
    assert!(lines[0]["projectHash"].is_string());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("compact: caveman"), "{stderr}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("# caveman\\n"));
}
