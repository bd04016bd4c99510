//! Gemini CLI: its own session loader reads condense's JSONL output, and the history it would
//! restart the chat with must alternate user and model turns, open with the summary and keep
//! the tail (on a rewound session: the newest turn, not the abandoned one); then Gemini CLI
//! itself resumes the file (`--session-file`) against the mock API and the request it sends is
//! checked the same way, and must be smaller than the original's.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::harness::{
    agent_bin, agents_dir, inject, installed, isolated, node_loader, prompt_parts, strings,
};
use super::SUMMARY;
use crate::util::fixture;

/// Sessions and the `--preserve` values to compact them with. Gemini CLI writes a whole-list
/// `$set.messages` checkpoint on every resume and rewind, so a longer tail takes one in.
const CASES: [(&str, &str); 5] = [
    ("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl", "1"),
    ("agents/gemini-turns.jsonl", "2"),
    ("agents/gemini-turns.jsonl", "3"),
    ("agents/gemini-rewind.jsonl", "2"),
    ("agents/gemini-rewind.jsonl", "3"),
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
    for (file, preserve) in CASES {
        let name = format!("{file} --preserve {preserve}");
        let session = fixture(file);
        let before = history(&session);
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "s.jsonl",
        );
        let after = history(&out);
        assert!(
            after[0].0 == "user" && after[0].1.contains(SUMMARY),
            "{name}: the history does not open with the summary: {:.80}",
            after[0].1
        );
        assert_alternates(
            &name,
            &after.iter().map(|t| t.0.clone()).collect::<Vec<_>>(),
        );
        assert_eq!(
            after.last(),
            before.last(),
            "{name}: the last turn is not kept"
        );
        // The first turn is compacted, unless it is the user's newest request, which is kept
        // after the summary (the corpus session: one question, two model turns).
        let question = super::harness::newest_question(&session);
        let is_question = |turn: &(String, String)| {
            question
                .as_ref()
                .is_some_and(|q| turn.0 == "user" && turn.1.contains(q.as_str()))
        };
        assert!(
            !after.contains(&before[0]) || is_question(&before[0]),
            "{name}: the first turn survived compaction"
        );
        if question.is_some() {
            assert!(
                after.iter().any(is_question),
                "{name}: the newest request is lost"
            );
        }
    }
}

#[test]
fn a_rewound_session_keeps_the_newest_turn_and_drops_the_abandoned_one() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/gemini-rewind.jsonl");
    let text = |h: &[(String, String)]| h.iter().map(|t| t.1.as_str()).collect::<String>();
    // Gemini itself applies the `$rewindTo` of the fixture.
    let before = text(&history(&session));
    assert!(before.contains("NEWEST-GEM-R3") && !before.contains("ABANDONED"));
    for preserve in ["2", "3"] {
        let name = format!("gemini-rewind --preserve {preserve}");
        let request = prompt_parts(&session, &["--preserve", preserve]).concat();
        assert!(
            !request.contains("ABANDONED"),
            "{name}: the request holds the abandoned turn"
        );
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "r.jsonl",
        );
        let after = text(&history(&out));
        assert!(
            after.contains(SUMMARY),
            "{name}: no summary in Gemini's history"
        );
        assert!(
            after.contains("NEWEST-GEM-R3"),
            "{name}: the newest question is lost"
        );
        assert!(
            !after.contains("ABANDONED"),
            "{name}: the abandoned turn is back"
        );
    }
}

/// The `contents` of the model request Gemini CLI sends on resuming `session`.
pub(super) fn resume(session: &Path) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let home = gemini_home(dir.path());
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    sent(dir.path(), &home, RESUME, session.as_os_str())
}

/// A home for Gemini CLI under `dir`: API-key auth.
fn gemini_home(dir: &Path) -> std::path::PathBuf {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#,
    )
    .unwrap();
    home
}

/// The `contents` of the request with [`PROMPT`] that Gemini CLI sends when `script` runs it
/// in `dir/project` with `home`, `session` its second argument.
fn sent(dir: &Path, home: &Path, script: &str, session: &OsStr) -> Vec<Value> {
    let requests = isolated(
        &dir.join("record"),
        &dir.join("project"),
        &[("HOME", home.as_os_str())],
        script,
        &[agent_bin("gemini").as_os_str(), session, OsStr::new(PROMPT)],
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
                session.to_string_lossy()
            )
        })
}

/// `gemini -p PROMPT --resume ID`: the session with that id among the project's chats.
const RESUME_BY_ID: &str = r#"GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=test \
GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$MOCK_PORT exec "$1" -p "$3" --resume "$2" </dev/null"#;

/// The legacy session Gemini CLI 0.38.2 wrote (`fixtures/agents/gemini-legacy/`), its id, and
/// the name 0.38 gave its file.
const LEGACY: &str = "agents/gemini-legacy/legacy.json";
const LEGACY_ID: &str = "fbdf5c75-cc62-4a54-8757-c6234aef5796";
const LEGACY_NAME: &str = "session-2026-12-04T17-08-fbdf5c75.json";

/// A Gemini home under `dir` whose project (`dir/project`, registered as `proj` in
/// `projects.json`, as Gemini CLI registers one) holds the legacy session in its chats; the
/// chats folder is returned.
fn legacy_project(dir: &Path) -> std::path::PathBuf {
    let home = gemini_home(dir);
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let registry = serde_json::json!({"projects": {project.display().to_string(): "proj"}});
    std::fs::write(home.join(".gemini/projects.json"), registry.to_string()).unwrap();
    let chats = home.join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(fixture(LEGACY), chats.join(LEGACY_NAME)).unwrap();
    chats
}

/// `condense inject --in-place` on a legacy session file writes `<name>.jsonl` beside it;
/// Gemini CLI 0.61's `--resume ID` then takes that file over the untouched document (its
/// session list keeps the later `lastUpdated`), and sends the summary first, the kept tail, not
/// the summarised turns, and less than it sends for the document alone.
#[test]
fn gemini_resumes_a_legacy_session_from_the_jsonl_condense_writes_beside_it() {
    if !ready() {
        return;
    }
    let untouched = tempfile::tempdir().unwrap();
    legacy_project(untouched.path());
    let before = sent(
        untouched.path(),
        &untouched.path().join("home"),
        RESUME_BY_ID,
        OsStr::new(LEGACY_ID),
    );
    let before_text = strings(&Value::from(before.clone()));
    assert!(before_text.contains("GEM-L1") && before_text.contains("GEM-L3"));

    let dir = tempfile::tempdir().unwrap();
    let chats = legacy_project(dir.path());
    let document = chats.join(LEGACY_NAME);
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let output = crate::util::condense()
        .args(["inject", "--in-place", "--preserve", "2", "--summary"])
        .arg(&summary)
        .arg(&document)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let after = sent(
        dir.path(),
        &dir.path().join("home"),
        RESUME_BY_ID,
        OsStr::new(LEGACY_ID),
    );
    let text = strings(&Value::from(after.clone()));
    let first = strings(&after[0]["parts"]);
    assert!(
        first.contains(SUMMARY),
        "the request does not open with the summary: {first:.120}"
    );
    assert!(
        text.contains("GEM-L3: summarise what the two files say."),
        "the kept tail is not sent"
    );
    assert!(
        !text.contains("GEM-L1") && !text.contains("GEM-L2"),
        "a summarised turn was sent"
    );
    let size = |v: &[Value]| serde_json::to_string(v).unwrap().len();
    assert!(
        size(&after) < size(&before),
        "the request grew from {} to {} bytes",
        size(&before),
        size(&after)
    );
    // The document is as 0.38 wrote it; Gemini went on in the .jsonl condense wrote.
    assert_eq!(
        std::fs::read(&document).unwrap(),
        std::fs::read(fixture(LEGACY)).unwrap()
    );
    let jsonl = std::fs::read_to_string(chats.join(format!("{LEGACY_NAME}l"))).unwrap();
    assert!(jsonl.contains(SUMMARY) && jsonl.contains(PROMPT));
}

#[test]
fn gemini_resumes_the_summary_and_the_tail_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in ["agents/gemini-turns.jsonl", "agents/gemini-rewind.jsonl"] {
        let session = fixture(file);
        let before = resume(&session);
        for preserve in ["2", "3"] {
            let name = format!("{file} --preserve {preserve}");
            let out = inject(
                &session,
                SUMMARY,
                &["--preserve", preserve],
                dir.path(),
                "s.jsonl",
            );
            let after = resume(&out);
            let sent = strings(&Value::from(after.clone()));
            assert!(
                sent.contains(SUMMARY),
                "{name}: the summary is not in Gemini's request"
            );
            let last = strings(&before[before.len() - 2]["parts"]);
            assert!(
                sent.contains(last.trim()),
                "{name}: the last turn is lost: {last:.80}"
            );
            assert!(
                !sent.contains("GEM-Q1") && !sent.contains("GEM-R1"),
                "{name}: the first question survived"
            );
            let roles: Vec<String> = after
                .iter()
                .map(|c| c["role"].as_str().unwrap_or("").to_owned())
                .collect();
            assert_alternates(&name, &roles);
            let size = |v: &[Value]| serde_json::to_string(v).unwrap().len();
            assert!(
                size(&after) < size(&before),
                "{name}: the request grew from {} to {} bytes",
                size(&before),
                size(&after)
            );
        }
    }
}
