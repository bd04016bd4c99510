//! GitHub Copilot CLI: each session is placed where `copilot --resume ID` looks for it
//! (`$HOME/.copilot/session-state/<id>/events.jsonl`), resumed with one prompt, BYOK and
//! offline, against the mock API's `/copilot` route (Anthropic Messages), and the request
//! Copilot sends is the judge: before and after `inject`, `compact --in-place` and `prune`, on
//! sessions Copilot itself wrote (one with its own `/compact`), and a session handed over to it
//! from Codex; one of its sessions handed over to Claude Code.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::harness::{
    agent_bin, agents_dir, first_field, handoffs_both_ways, inject_both_ways_then_undo, installed,
    isolated, sent_for, strings, Resumed,
};
use super::SUMMARY;
use crate::util::{condense_ok, fixture};

const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// Copilot resumed headlessly: offline, BYOK (the Anthropic provider at the mock's
/// `/copilot` route), every tool allowed so that no prompt waits for a person.
const RESUME: &str = r#"export COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
  COPILOT_DISABLE_RESUME_AUTO_CD=1 COPILOT_PROVIDER_TYPE=anthropic \
  COPILOT_PROVIDER_API_KEY=dummy COPILOT_MODEL=claude-sonnet-4.5 \
  COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:$MOCK_PORT/copilot &&
exec "$1" --resume "$2" --allow-all-tools -p "$3" </dev/null"#;

const SESSIONS: [&str; 2] = [
    "agents/copilot/turns.jsonl",
    "agents/copilot/compacted.jsonl",
];

fn ready() -> bool {
    installed(
        "GitHub Copilot CLI (@github/copilot)",
        &agent_bin("copilot"),
    )
}

/// The messages of the model request Copilot sends on resuming `session` with [`PROMPT`].
fn resume(session: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let id = first_field(session, "/data/sessionId");
    let folder = home.join(".copilot/session-state").join(&id);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(session, folder.join("events.jsonl")).unwrap();
    let cache = agents_dir().join("copilot-cache");
    let requests = isolated(
        &dir.path().join("record"),
        &project,
        &[
            ("HOME", home.as_os_str()),
            ("COPILOT_CACHE_HOME", cache.as_os_str()),
            ("MOCK_REPLY_BYTES", OsStr::new("300")),
        ],
        RESUME,
        &[
            agent_bin("copilot").as_os_str(),
            OsStr::new(&id),
            OsStr::new(PROMPT),
        ],
    );
    sent_for(
        requests,
        |path| path.starts_with("/copilot"),
        "messages",
        PROMPT,
        "Copilot",
        session,
    )
}

/// The text of each message, in order.
fn texts(messages: &Value) -> Vec<String> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .map(|message| strings(&message["content"]))
        .collect()
}

/// The visible text of the session's assistant answers, as Copilot wrote them.
fn answers(session: &Path) -> Vec<String> {
    std::fs::read_to_string(session)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "assistant.message")
        .filter_map(|event| event["data"]["content"].as_str().map(str::to_owned))
        .filter(|text| !text.is_empty())
        .collect()
}

/// What Copilot sent after `written`, the compaction of `session`: the summary first (in
/// Copilot's compaction message), then the kept tail with its newest request, none of the
/// summarised answers, and less than it sent for the whole session (`before`).
fn check_compacted(file: &str, session: &Path, written: &Path, before: &Value) {
    let after = resume(written);
    let sent = texts(&after);
    assert!(
        sent[0].contains("Some of the conversation history has been summarized")
            && sent[0].contains(SUMMARY),
        "{file}: the first message is not the summary: {:.300}",
        sent[0]
    );
    let answers = answers(session);
    let oldest = answers.first().expect("an answer").lines().next().unwrap();
    // The kept tail: the session's newest answer and its request are sent after the summary.
    let newest = answers.last().unwrap().lines().next().unwrap();
    assert!(
        sent[1..].iter().any(|text| text.contains(newest)),
        "{file}: the kept tail is not sent after the summary: {newest:.80}"
    );
    Resumed {
        file,
        before,
        after: &after,
        summary: SUMMARY,
        oldest: Some(oldest),
        newest,
        shrinks: true,
    }
    .check();
}

#[test]
fn copilot_resumes_from_condenses_compaction_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        let before = resume(&session);
        assert!(!strings(&before).contains(SUMMARY));
        // Written out, and into the file by `inject --in-place`, which `undo` takes back.
        inject_both_ways_then_undo(file, dir.path(), "events.jsonl", |written| {
            check_compacted(file, &session, written, &before);
        });
    }
}

/// `prune` shrinks the tool results Copilot sends, and Copilot still resumes the session. The
/// mock's results are a line each, smaller than prune's placeholder, so one is made long first.
#[test]
fn copilot_resumes_a_pruned_session() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let long = format!("LONG-RESULT-START {}", "the notes file says ".repeat(300));
    let text = std::fs::read_to_string(fixture("agents/copilot/turns.jsonl")).unwrap();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut event: Value = serde_json::from_str(line).unwrap();
        if event["type"] == "tool.execution_complete"
            && event["data"]["result"]["content"] == "remember the final newline\n"
        {
            event["data"]["result"]["content"] = Value::from(long.as_str());
            lines.push(serde_json::to_string(&event).unwrap());
        } else {
            lines.push(line.to_owned());
        }
    }
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
    let whole = "the notes file says ".repeat(20);
    assert!(strings(&before).contains(&whole));
    let sent = strings(&after);
    assert!(!sent.contains(&whole), "the pruned result was sent");
    assert!(sent.contains("[condense pruned the output of view"));
    // The call and its (pruned) result still pair: Copilot sent both, and the later turn.
    assert!(sent.contains("toolu_mock_0214f700_001_1"));
    assert!(sent.contains("CP-Q3: summarise what the two files say."));
    let size = |v: &Value| serde_json::to_string(v).unwrap().len();
    assert!(size(&after) < size(&before));
}

/// A Codex session handed over to Copilot (`inject --to copilot`) resumes with the summary
/// and the converted tail; a Copilot session handed over to Claude Code does too.
#[test]
fn handoffs_to_and_from_copilot() {
    if ready() {
        handoffs_both_ways(
            "copilot",
            resume,
            "agents/copilot/compacted.jsonl",
            "CP-NEW-Q5",
        );
    }
}
