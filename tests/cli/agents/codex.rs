//! Codex CLI: each rollout is placed where `codex exec resume` looks for it, resumed with one
//! prompt against the mock API through the built-in `openai` provider (Codex refuses a custom
//! provider on resume), and the request Codex sends is the judge, before and after `inject`, on
//! rollouts Codex itself wrote (one with its own compaction). The corpus rollout is not used:
//! it is a trimmed fixture of another project that Codex 0.171 refuses to load
//! (`history_mode: "default"` is not one of its variants).

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::harness::{
    agent_bin, assert_last_question_sent, first_field, inject, installed, isolated, sent_for,
    strings,
};
use super::SUMMARY;
use crate::util::fixture;

pub(super) const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// Codex's config, the mock's port filled in inside the namespace.
pub(super) const CONFIG: &str = r#"openai_base_url = "http://127.0.0.1:@PORT@/v1"
check_for_update_on_startup = false
[analytics]
enabled = false
"#;

pub(super) const RESUME: &str = r#"sed "s/@PORT@/$MOCK_PORT/" "$CODEX_HOME/config.in" >"$CODEX_HOME/config.toml" &&
OPENAI_API_KEY=sk-test exec "$1" exec --skip-git-repo-check resume "$2" "$3" </dev/null"#;

const SESSIONS: [&str; 2] = ["agents/codex-turns.jsonl", "agents/codex-compacted.jsonl"];

pub(super) fn ready() -> bool {
    installed("Codex CLI (@openai/codex)", &agent_bin("codex"))
}

/// The input items of the model request Codex sends on resuming `session`.
pub(super) fn resume(session: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let codex_home = home.join(".codex");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let id = first_field(session, "/payload/id");
    let stamp = first_field(session, "/payload/timestamp");
    // sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl, as Codex names its rollouts.
    let folder = codex_home
        .join("sessions")
        .join(stamp[..10].replace('-', "/"));
    std::fs::create_dir_all(&folder).unwrap();
    let name = format!("rollout-{}-{id}.jsonl", stamp[..19].replace(':', "-"));
    std::fs::copy(session, folder.join(name)).unwrap();
    std::fs::write(codex_home.join("config.in"), CONFIG).unwrap();
    let requests = isolated(
        &dir.path().join("record"),
        &project,
        &[
            ("HOME", home.as_os_str()),
            ("CODEX_HOME", codex_home.as_os_str()),
        ],
        RESUME,
        &[
            agent_bin("codex").as_os_str(),
            OsStr::new(&id),
            OsStr::new(PROMPT),
        ],
    );
    sent_for(
        requests,
        |path| path.ends_with("/responses"),
        "input",
        PROMPT,
        "Codex",
        session,
    )
}

/// The text of the input messages with `role`, in order, without the ones Codex writes itself
/// into the user role (`<environment_context>`, AGENTS.md and other tagged instructions; Codex's
/// own `collect_user_messages` leaves them out the same way).
fn texts(input: &Value, role: &str) -> Vec<String> {
    input
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "message" && item["role"] == role)
        .map(|item| {
            let parts = item["content"].as_array().cloned().unwrap_or_default();
            let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
            texts.join("\n")
        })
        .filter(|text| !text.starts_with('<') && !text.starts_with("# AGENTS.md"))
        .collect()
}

#[test]
fn codex_resumes_the_summary_and_the_latest_request_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        let before = resume(&session);
        let after = resume(&inject(&session, SUMMARY, &[], dir.path(), "rollout.jsonl"));
        let sent = strings(&after);
        assert!(
            sent.contains(SUMMARY),
            "{file}: the summary is not in Codex's request"
        );
        // The user's last request before the new prompt survives (Codex's own compaction keeps
        // recent user messages); the first answer, compacted, does not.
        let users = texts(&before, "user");
        let last_request = users[users.len() - 2].trim().to_owned();
        assert!(
            sent.contains(&last_request),
            "{file}: the last request is lost: {last_request:.80}"
        );
        let answers = texts(&before, "assistant");
        let first_answer = answers.first().expect("an answer").trim().to_owned();
        assert!(
            !sent.contains(&first_answer),
            "{file}: the first answer survived: {first_answer:.80}"
        );
        // Codex sends its instructions fresh on every resume; copies kept in the replacement
        // history come on top of them.
        let developer = |v: &Value| {
            let items = v.as_array().unwrap();
            items.iter().filter(|i| i["role"] == "developer").count()
        };
        assert!(
            developer(&after) <= developer(&before),
            "{file}: {} developer messages, were {}",
            developer(&after),
            developer(&before)
        );
        let size = |v: &Value| serde_json::to_string(v).unwrap().len();
        assert!(
            size(&after) < size(&before),
            "{file}: the request grew from {} to {} bytes",
            size(&before),
            size(&after)
        );
    }
}

/// Issue 27: however few messages are kept, the user's last question reaches the model after
/// `inject` (before, `--preserve` counted each item of a response as a message).
#[test]
fn the_last_question_is_in_codexs_request_after_inject() {
    if !ready() {
        return;
    }
    assert_last_question_sent(&SESSIONS, resume);
}

/// Over a remote compaction (`codex-compacted.jsonl` line 56: an encrypted `compaction` item
/// only the server reads), condense's compaction becomes the newest `replacement_history`, which
/// Codex resumes from (`rollout_reconstruction.rs`, `reconstruct_history_from_rollout`: the
/// newest `compacted` line with a history is the base): the encrypted item is no longer sent,
/// the summary is, and so are none of the instructions condense could have taken for one.
#[test]
fn codex_resumes_condenses_summary_in_place_of_a_remote_compaction() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/codex-compacted.jsonl");
    let encrypted = |input: &Value| {
        input
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["type"] == "compaction")
            .count()
    };
    let before = resume(&session);
    assert_eq!(
        encrypted(&before),
        1,
        "Codex sends the encrypted summary back"
    );
    let after = resume(&inject(&session, SUMMARY, &[], dir.path(), "remote.jsonl"));
    assert_eq!(encrypted(&after), 0, "the encrypted summary is still sent");
    let users = texts(&after, "user");
    let summary = users
        .iter()
        .find(|text| text.contains(SUMMARY))
        .expect("the summary is in Codex's request");
    assert!(!summary.contains("You are Codex"), "{summary:.200}");
}
