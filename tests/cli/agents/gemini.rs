//! Gemini CLI: its own session loader reads condense's JSONL output, and the history it would
//! restart the chat with must alternate user and model turns, open with the summary and keep
//! the tail; then Gemini CLI itself resumes the file (`--session-file`) against the mock API and
//! the request it sends is checked the same way, and must be smaller than the original's.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::harness::{agent_bin, agents_dir, inject, installed, isolated, node_loader, strings};
use super::SUMMARY;
use crate::util::fixture;

const SESSIONS: [&str; 2] = [
    "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
    "agents/gemini-turns.jsonl",
];

const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// `gemini -p PROMPT --session-file FILE`, API-key auth against the mock, workspace trusted.
const RESUME: &str = r#"GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=test \
GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$MOCK_PORT exec "$1" -p "$3" --session-file "$2" </dev/null"#;

pub(super) fn ready() -> bool {
    installed(
        "Gemini CLI (@google/gemini-cli)",
        &agents_dir().join("node_modules/@google/gemini-cli/bundle"),
    )
}

pub(super) fn history(session: &Path) -> Vec<(String, String)> {
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

fn assert_alternates(name: &str, roles: &[String]) {
    for pair in roles.windows(2) {
        assert_ne!(
            pair[0], pair[1],
            "{name}: two {} turns in a row: {roles:?}",
            pair[0]
        );
    }
}

#[test]
fn gemini_loads_the_summary_and_the_tail_in_alternating_turns() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        let before = history(&session);
        let after = history(&inject(&session, SUMMARY, &[], dir.path(), "session.jsonl"));
        assert!(
            after[0].0 == "user" && after[0].1.contains(SUMMARY),
            "{file}: the history does not open with the summary: {:?}",
            after[0]
        );
        assert_alternates(file, &after.iter().map(|t| t.0.clone()).collect::<Vec<_>>());
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
}

/// The `contents` of the model request Gemini CLI sends on resuming `session`.
pub(super) fn resume(session: &Path) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#,
    )
    .unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let requests = isolated(
        &dir.path().join("record"),
        &project,
        &[("HOME", home.as_os_str())],
        RESUME,
        &[
            agent_bin("gemini").as_os_str(),
            session.as_os_str(),
            OsStr::new(PROMPT),
        ],
    );
    requests
        .into_iter()
        .rev()
        .filter(|r| {
            r["path"]
                .as_str()
                .unwrap()
                .contains(":streamGenerateContent")
        })
        .map(|r| {
            r["body"]["contents"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|contents| strings(&Value::from(contents.clone())).contains(PROMPT))
        .unwrap_or_else(|| {
            panic!(
                "{}: Gemini CLI sent no request with the prompt",
                session.display()
            )
        })
}

#[test]
fn gemini_resumes_the_summary_and_the_tail_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = "agents/gemini-turns.jsonl";
    let session = fixture(file);
    let before = resume(&session);
    let out = inject(&session, SUMMARY, &[], dir.path(), "session.jsonl");
    let after = resume(&out);
    let sent = strings(&Value::from(after.clone()));
    assert!(
        sent.contains(SUMMARY),
        "{file}: the summary is not in Gemini's request"
    );
    let last = strings(&before[before.len() - 2]["parts"]);
    assert!(
        sent.contains(last.trim()),
        "{file}: the last turn is lost: {last:.80}"
    );
    assert!(
        !sent.contains("GEM-Q1"),
        "{file}: the first question survived compaction"
    );
    let roles: Vec<String> = after
        .iter()
        .map(|c| c["role"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_alternates(file, &roles);
    let size = |v: &[Value]| serde_json::to_string(v).unwrap().len();
    assert!(
        size(&after) < size(&before),
        "{file}: the request grew from {} to {} bytes",
        size(&before),
        size(&after)
    );
}
