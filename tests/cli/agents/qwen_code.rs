//! Qwen Code: each session is placed where `qwen --resume ID` looks for it
//! (`$HOME/.qwen/projects/<project, non-alphanumerics as '-'>/chats/<id>.jsonl`, every record's
//! `cwd` the project, which Qwen Code checks), resumed headless with one prompt on Node.js 22
//! against the mock API's Chat Completions route (tests/agents/qwen-env.sh: its OpenAI-compatible
//! auth, no account), and the request Qwen Code sends is the judge: before and after `inject`,
//! `inject --in-place` (then `undo`), `compact` and `prune`, on sessions Qwen Code itself wrote
//! (one and two of its own compressions); a Codex session handed over to it, placed by
//! `--to-session-dir` where it looks; one of its sessions handed over to Claude Code.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::harness::{
    agent_bin, first_field, handoffs_both_ways, inject, inject_both_ways_then_undo, installed,
    isolated, mock_answers, repo, script, sent_for, strings, Resumed,
};
use super::SUMMARY;
use crate::util::{condense_ok, fixture};

const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// Sources the mock's settings, then resumes session `$2` with prompt `$3`.
const RESUME: &str = r#". "$1" && exec "$QWEN" --resume "$2" -p "$3" </dev/null"#;

const SESSIONS: [&str; 3] = [
    "agents/qwen-code/turns.jsonl",
    "agents/qwen-code/compressed.jsonl",
    "agents/qwen-code/compressed-twice.jsonl",
];

/// The Node.js 22 Qwen Code needs (`.ci/install-agents`).
fn node22() -> PathBuf {
    repo().join("target/node22/node_modules/.bin")
}

fn ready() -> bool {
    installed("Qwen Code (@qwen-code/qwen-code)", &agent_bin("qwen"))
        && installed("Node.js 22 (npm's node package)", &node22().join("node"))
}

/// Qwen Code's folder name for a project root (`sanitizeCwd`).
fn project_folder(project: &Path) -> String {
    project
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// What Qwen Code sent the model on resuming session `id` from `project` with [`PROMPT`],
/// `home` holding its sessions.
fn resume_placed(home: &Path, project: &Path, id: &str, name: &Path) -> Value {
    let record = home.parent().unwrap().join("record");
    let requests = isolated(
        &record,
        project,
        &[
            ("HOME", home.as_os_str()),
            ("QWEN", agent_bin("qwen").as_os_str()),
            ("QWEN_NODE_BIN", node22().as_os_str()),
            ("MOCK_REPLY_BYTES", OsStr::new("300")),
        ],
        RESUME,
        &[
            script("qwen-env.sh").as_os_str(),
            OsStr::new(id),
            OsStr::new(PROMPT),
        ],
    );
    sent_for(
        requests,
        |path| path.ends_with("/chat/completions"),
        "messages",
        PROMPT,
        "Qwen Code",
        name,
    )
}

/// The messages Qwen Code sends on resuming `session`, copied into its place with every
/// record's `cwd` made the project's.
fn resume(session: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let id = first_field(session, "/sessionId");
    let chats = home
        .join(".qwen/projects")
        .join(project_folder(&project))
        .join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let moved: Vec<String> = std::fs::read_to_string(session)
        .unwrap()
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            record["cwd"] = Value::from(project.display().to_string());
            record.to_string()
        })
        .collect();
    std::fs::write(chats.join(format!("{id}.jsonl")), moved.join("\n") + "\n").unwrap();
    resume_placed(&home, &project, &id, session)
}

/// The text of each message Qwen Code sent, leaving out its system prompt and its
/// `<system-reminder>` parts.
fn texts(messages: &Value) -> Vec<String> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = strings(&m["content"]);
            text.split("<system-reminder>")
                .enumerate()
                .filter_map(|(i, piece)| match i {
                    0 => Some(piece),
                    _ => piece.split_once("</system-reminder>").map(|(_, rest)| rest),
                })
                .collect::<String>()
                .trim()
                .to_owned()
        })
        .filter(|text| !text.is_empty())
        .collect()
}

/// What Qwen Code sent after `written`, the compaction of a session it sent `before` for: the
/// summary first, the newest answer of the kept tail, not the oldest answer it sent before, the
/// prompt last, none of Qwen Code's own summaries, and less.
fn check_compacted(file: &str, written: &Path, before: &Value) {
    let after = resume(written);
    let sent = texts(&after);
    assert!(
        sent[0].contains(SUMMARY),
        "{file}: the first message is not the summary: {:.300}",
        sent[0]
    );
    assert!(
        sent.last().unwrap().contains(PROMPT),
        "{file}: the prompt is not last"
    );
    // Qwen Code's own summaries (the mock's) are summarised by condense's, as is the oldest
    // answer, where the session sent more than one.
    assert!(
        !strings(&after).contains("MOCK-SUMMARY up to"),
        "{file}: Qwen Code's own summary was sent"
    );
    let answered = mock_answers(before);
    // Where Qwen Code's own summary and its acknowledgement are all there is to summarise
    // (compressed-twice.jsonl keeps two messages after them), condense's summary replaces a
    // summary of about its size: the request is smaller only where answers were summarised.
    Resumed {
        file,
        before,
        after: &after,
        summary: SUMMARY,
        oldest: answered
            .first()
            .filter(|_| answered.len() > 1)
            .map(String::as_str),
        newest: answered.last().unwrap(),
        shrinks: answered.len() > 1,
    }
    .check();
}

#[test]
fn qwen_code_resumes_from_condenses_compaction_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let before = resume(&fixture(file));
        inject_both_ways_then_undo(file, dir.path(), "session.jsonl", |written| {
            check_compacted(file, written, &before);
        });
    }
}

/// `compact --llm` (a shell command standing in for the model) writes its summary the same way,
/// and a compacted session compacts again.
#[test]
fn qwen_code_resumes_from_compact() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = SESSIONS[0];
    let session = fixture(file);
    let before = resume(&session);
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let llm = format!("cat >/dev/null; cat '{}'", summary.display());
    let out = condense_ok(&[
        OsStr::new("compact"),
        OsStr::new("--llm"),
        OsStr::new(&llm),
        OsStr::new("--budget"),
        OsStr::new("2000"),
        session.as_os_str(),
    ]);
    let compacted = dir.path().join("compacted.jsonl");
    std::fs::write(&compacted, out).unwrap();
    check_compacted(file, &compacted, &before);
    // Compacted again: the new compression hangs under the one before, in the same session.
    let twice = inject(
        &compacted,
        SUMMARY,
        &["--preserve", "1"],
        dir.path(),
        "twice.jsonl",
    );
    check_compacted(file, &twice, &before);
}

/// `prune` shrinks a tool result Qwen Code sends (made long first: the mock's are one line),
/// and Qwen Code still resumes the session with the call and its result paired.
#[test]
fn qwen_code_resumes_a_pruned_session() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let whole = "the notes file says ".repeat(20);
    let long = format!("LONG-RESULT-START {}", "the notes file says ".repeat(300));
    let text = std::fs::read_to_string(fixture(SESSIONS[0])).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            let output = record.pointer_mut("/message/parts/0/functionResponse/response/output");
            match output {
                Some(output) if output == "remember the final newline\n" => {
                    *output = Value::from(long.as_str());
                    record.to_string()
                }
                _ => line.to_owned(),
            }
        })
        .collect();
    let session = dir.path().join("long.jsonl");
    std::fs::write(&session, lines.join("\n") + "\n").unwrap();
    let pruned = dir.path().join("pruned.jsonl");
    let bytes = condense_ok(&[
        OsStr::new("prune"),
        OsStr::new("--keep"),
        OsStr::new("0"),
        session.as_os_str(),
    ]);
    std::fs::write(&pruned, bytes).unwrap();
    let before = resume(&session);
    let after = resume(&pruned);
    assert!(strings(&before).contains(&whole));
    let sent = strings(&after);
    assert!(!sent.contains(&whole), "the pruned result was sent");
    assert!(sent.contains("[condense pruned the output"));
    assert!(sent.contains("QW-Q3: summarise what the two files say."));
    let calls = after
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .count();
    let results = after
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .count();
    assert_eq!(
        (calls, results),
        (2, 2),
        "the calls and results are not paired"
    );
    let size = |v: &Value| serde_json::to_string(v).unwrap().len();
    assert!(size(&after) < size(&before));
}

/// A Codex session handed over to Qwen Code (`inject --to qwen-code`) resumes with the summary
/// and the converted tail; a Qwen Code session handed over to Claude Code does too.
#[test]
fn handoffs_to_and_from_qwen_code() {
    if ready() {
        handoffs_both_ways(
            "qwen-code",
            resume,
            "agents/qwen-code/compressed.jsonl",
            "QW-NEW-Q4: run it.",
        );
    }
}

/// `--to-session-dir ~/.qwen --cwd PROJECT` places the handed-over session where
/// `qwen --resume ID`, run in the project, finds it, and prints that command.
#[test]
fn a_handed_over_session_is_placed_where_qwen_code_looks() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let qwen_dir = home.join(".qwen");
    let printed = condense_ok(&[
        OsStr::new("inject"),
        OsStr::new("--summary"),
        summary.as_os_str(),
        OsStr::new("--to"),
        OsStr::new("qwen-code"),
        OsStr::new("--to-session-dir"),
        qwen_dir.as_os_str(),
        OsStr::new("--cwd"),
        project.as_os_str(),
        fixture("agents/codex-turns.jsonl").as_os_str(),
    ]);
    let printed = String::from_utf8(printed).unwrap();
    let chats = qwen_dir
        .join("projects")
        .join(project_folder(&project))
        .join("chats");
    let placed: Vec<PathBuf> = std::fs::read_dir(&chats)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(placed.len(), 1, "{printed}");
    let id = first_field(&placed[0], "/sessionId");
    assert!(
        printed.contains(&format!("qwen --resume {id}")),
        "the resume command is not printed: {printed}"
    );
    let sent = strings(&resume_placed(&home, &project, &id, &placed[0]));
    assert!(sent.contains(SUMMARY), "Qwen Code did not send the summary");
    assert!(sent.contains("CODEX-Q3: run the tests."));
}
