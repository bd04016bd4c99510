//! Factory Droid: each session is placed where `droid exec -s ID` looks for it
//! (`$HOME/.factory/sessions/<project of its cwd>/<id>.jsonl`), resumed with one prompt through a
//! BYOK custom model pointed at the mock API's `/droid` route (Anthropic Messages), Droid's own
//! API at the mock too (every call answered 404, no account), and the request Droid sends is
//! the judge: before and after `inject`, `inject --in-place` and `prune`, on sessions Droid
//! itself wrote (one with its own compaction), and a session handed over to it from Codex; one
//! of its sessions handed over to Claude Code.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::harness::{
    agents_dir, first_field, handoffs_both_ways, inject_both_ways_then_undo, installed, isolated,
    mock_answers, sent_for, strings, Resumed,
};
use super::SUMMARY;
use crate::util::{condense_ok, fixture};

const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// The custom model, its base URL filled in inside the namespace.
const SETTINGS: &str = r#"{"customModels": [{"model": "claude-mock", "displayName": "Mock",
  "provider": "anthropic", "baseUrl": "http://127.0.0.1:@PORT@/droid", "apiKey": "dummy",
  "maxOutputTokens": 4096}]}"#;

const RESUME: &str = r#"sed "s/@PORT@/$MOCK_PORT/" "$HOME/.factory/settings.in" >"$HOME/.factory/settings.json" &&
export FACTORY_API_BASE_URL=http://127.0.0.1:$MOCK_PORT/factory-api \
  FACTORY_DISABLE_KEYRING=true FACTORY_DROID_AUTO_UPDATE_ENABLED=false &&
exec "$1" exec -m custom:Mock-0 -s "$2" "$3" </dev/null"#;

const SESSIONS: [&str; 2] = ["agents/droid/turns.jsonl", "agents/droid/compacted.jsonl"];

fn droid_bin() -> PathBuf {
    agents_dir().join("node_modules/@factory/cli-linux-x64/bin/droid")
}

fn ready() -> bool {
    installed("Factory Droid (@factory/cli-linux-x64)", &droid_bin())
}

/// The messages of the model request Droid sends on resuming `session` with [`PROMPT`].
fn resume(session: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let id = first_field(session, "/id");
    let cwd = first_field(session, "/cwd");
    // Droid's folder of a project: '-' and the path, every '/' made '-'.
    let parts: Vec<&str> = cwd.split('/').filter(|p| !p.is_empty()).collect();
    let folder = home
        .join(".factory/sessions")
        .join(format!("-{}", parts.join("-")));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(session, folder.join(format!("{id}.jsonl"))).unwrap();
    std::fs::write(home.join(".factory/settings.in"), SETTINGS).unwrap();
    let requests = isolated(
        &dir.path().join("record"),
        &project,
        &[
            ("HOME", home.as_os_str()),
            ("MOCK_REPLY_BYTES", OsStr::new("300")),
        ],
        RESUME,
        &[droid_bin().as_os_str(), OsStr::new(&id), OsStr::new(PROMPT)],
    );
    sent_for(
        requests,
        |path| path.starts_with("/droid"),
        "messages",
        PROMPT,
        "Droid",
        session,
    )
}

/// The text of each message Droid sent, leaving out its own `<system-reminder>` messages.
fn texts(messages: &Value) -> Vec<String> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .map(|message| strings(&message["content"]))
        .filter(|text| !text.trim_start().starts_with("<system-reminder>"))
        .collect()
}

/// What Droid sent after `written`, the compaction of a session it sent `before` for: the
/// summary first (in Droid's summary message), the newest answer of the kept tail, not the
/// oldest answer it sent before, and less.
fn check_compacted(file: &str, written: &Path, before: &Value) {
    let after = resume(written);
    let sent = texts(&after);
    assert!(
        sent[0].contains("A previous instance of Droid has summarized")
            && sent[0].contains(SUMMARY),
        "{file}: the first message is not the summary: {:.300}",
        sent[0]
    );
    let answered = mock_answers(before);
    Resumed {
        file,
        before,
        after: &after,
        summary: SUMMARY,
        oldest: answered.first().map(String::as_str),
        newest: answered.last().unwrap(),
        shrinks: true,
    }
    .check();
}

#[test]
fn droid_resumes_from_condenses_compaction_and_sends_less() {
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

/// `prune` shrinks a tool result Droid sends (made long first: the mock's are one line), and
/// Droid still resumes the session with the call and its result paired.
#[test]
fn droid_resumes_a_pruned_session() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let whole = "the notes file says ".repeat(20);
    let long = format!("LONG-RESULT-START {}", "the notes file says ".repeat(300));
    let text = std::fs::read_to_string(fixture("agents/droid/turns.jsonl")).unwrap();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut record: Value = serde_json::from_str(line).unwrap();
        let mut changed = false;
        if let Some(blocks) = record["message"]["content"].as_array_mut() {
            for block in blocks {
                if block["type"] == "tool_result"
                    && block["content"] == "remember the final newline\n"
                {
                    block["content"] = Value::from(long.as_str());
                    changed = true;
                }
            }
        }
        lines.push(if changed {
            serde_json::to_string(&record).unwrap()
        } else {
            line.to_owned()
        });
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
    assert!(strings(&before).contains(&whole));
    let sent = strings(&after);
    assert!(!sent.contains(&whole), "the pruned result was sent");
    assert!(sent.contains("[condense pruned the output"));
    assert!(sent.contains("DR-Q3: summarise what the two files say."));
    let size = |v: &Value| serde_json::to_string(v).unwrap().len();
    assert!(size(&after) < size(&before));
}

/// A Codex session handed over to Droid (`inject --to droid`) resumes with the summary and the
/// converted tail; a Droid session handed over to Claude Code does too.
#[test]
fn handoffs_to_and_from_droid() {
    if ready() {
        handoffs_both_ways("droid", resume, "agents/droid/compacted.jsonl", "DR-NEW-Q8");
    }
}
