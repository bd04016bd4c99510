//! Claude Code: each session is placed where `claude --resume` looks for it, resumed with one
//! prompt against the mock API, and the request Claude Code sends is the judge, before and
//! after `inject`: on the corpus sessions and on sessions Claude Code itself wrote (rewound with
//! `--resume-session-at`, compacted with `/compact`, with parallel tool calls).

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::harness::{
    agent_bin, assert_last_question_sent, distinctive, first_field, inject, installed, isolated,
    newest_question, prompt_parts, strings,
};
use super::SUMMARY;
use crate::util::{condense, fixture, run_ok};

pub(super) const PROMPT: &str = "CONDENSE-RESUME-PROMPT: carry on from here.";

/// `claude -p --resume ID PROMPT` with the model API at the mock and every call home switched
/// off (the namespace would stop them anyway).
pub(super) const RESUME: &str = r#"ANTHROPIC_BASE_URL=http://127.0.0.1:$MOCK_PORT ANTHROPIC_API_KEY=sk-ant-test \
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
DISABLE_ERROR_REPORTING=1 exec "$1" -p --resume "$2" "$3" </dev/null"#;

const SESSIONS: [&str; 7] = [
    "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
    "corpus/claude-code/claude-code-viewer-fe5e1c67.jsonl",
    "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
    "corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl",
    "agents/claude-rewind.jsonl",
    "agents/claude-compacted.jsonl",
    "agents/claude-parallel.jsonl",
];

pub(super) fn ready() -> bool {
    installed(
        "Claude Code (@anthropic-ai/claude-code)",
        &agent_bin("claude"),
    )
}

/// The messages of the model request Claude Code sends on resuming `session`.
pub(super) fn resume(session: &Path) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let requests = resumed(session, dir.path(), PROMPT, None);
    requests
        .into_iter()
        .rev()
        .filter(|r| {
            r["method"] == "POST" && r["path"].as_str().unwrap().starts_with("/v1/messages")
        })
        .map(|r| r["body"]["messages"].clone())
        .find(|messages| strings(messages).contains(PROMPT))
        .unwrap_or_else(|| {
            panic!(
                "{}: Claude Code sent no request with the prompt",
                session.display()
            )
        })
}

/// Runs `claude -p --resume ID PROMPT` on `session`, placed in a home of its own under `dir`
/// (`dir/home`, where a test may put settings first), with `path` as PATH when given; the
/// requests the mock recorded.
fn resumed(session: &Path, dir: &Path, prompt: &str, path: Option<&OsStr>) -> Vec<Value> {
    let home = dir.join("home");
    // Where a session started in `project` would be: ~/.claude/projects/ and the path with every
    // character but letters and digits made '-'. (2.1.332 also finds an id in another project's
    // folder, such as the one of the cwd the session recorded, so this does not test the rule.)
    let project = dir.join("the.project");
    std::fs::create_dir_all(&project).unwrap();
    let slug: String = project
        .to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let id = first_field(session, "/sessionId");
    let folder = home.join(".claude/projects").join(slug);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(session, folder.join(format!("{id}.jsonl"))).unwrap();
    let mut env = vec![("HOME", home.as_os_str())];
    env.extend(path.map(|path| ("PATH", path)));
    isolated(
        &dir.join("record"),
        &project,
        &env,
        RESUME,
        &[
            agent_bin("claude").as_os_str(),
            OsStr::new(&id),
            OsStr::new(prompt),
        ],
    )
}

#[test]
fn claude_code_resumes_the_summary_and_the_tail_and_sends_less() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        let before = resume(&session);
        let after = resume(&inject(&session, SUMMARY, &[], dir.path(), "s.jsonl"));
        let (b, sent) = (before.as_array().unwrap(), strings(&after));
        assert!(
            sent.contains(SUMMARY),
            "{file}: the summary is not in Claude Code's request"
        );
        // The last message before the new prompt was kept; the first one was compacted.
        let last = distinctive(&b[b.len() - 2]);
        assert!(
            !last.is_empty() && sent.contains(&last),
            "{file}: the kept tail is lost: {last:.80}"
        );
        // The first one was compacted, unless it holds the user's newest request, which is
        // kept after the summary (a session of one request).
        let first = distinctive(&b[0]);
        let is_question = newest_question(&session).is_some_and(|q| first.contains(&q));
        assert!(
            !first.is_empty() && (!sent.contains(&first) || is_question),
            "{file}: the first message survived: {first:.80}"
        );
        let size = |m: &Value| serde_json::to_string(m).unwrap().len();
        assert!(
            size(&after) < size(&before),
            "{file}: the request grew from {} to {} bytes",
            size(&before),
            size(&after)
        );
    }
}

/// Issue 27: however few messages are kept, the user's last question reaches the model after
/// `inject` (before, `--preserve` counted the lines of one reply as several messages, and the
/// question went into the summary).
#[test]
fn the_last_question_is_in_claude_codes_request_after_inject() {
    if !ready() {
        return;
    }
    assert_last_question_sent(&SESSIONS, resume);
}

#[test]
fn a_rewound_session_keeps_the_newest_turn_and_drops_the_abandoned_one() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/claude-rewind.jsonl");
    // Claude Code itself follows the new branch of the fixture.
    let before = strings(&resume(&session));
    assert!(before.contains("NEWEST-CC-Q2") && !before.contains("ABANDONED"));
    for preserve in ["2", "3"] {
        let name = format!("claude-rewind --preserve {preserve}");
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "r.jsonl",
        );
        let sent = strings(&resume(&out));
        assert!(sent.contains(SUMMARY), "{name}: no summary");
        assert!(
            sent.contains("NEWEST-CC-Q2"),
            "{name}: the newest question is lost"
        );
        assert!(
            !sent.contains("ABANDONED"),
            "{name}: the abandoned branch is back"
        );
        let request = prompt_parts(&session, &["--preserve", preserve]).concat();
        assert!(
            !request.contains("ABANDONED"),
            "{name}: the request holds the abandoned branch"
        );
    }
}

#[test]
fn a_session_claude_code_compacted_is_compacted_from_its_latest_epoch() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/claude-compacted.jsonl");
    let before = strings(&resume(&session));
    assert!(
        !before.contains("CC-OLD-Q1"),
        "Claude Code itself sends the old epoch"
    );
    let request = prompt_parts(&session, &[]).concat();
    assert!(
        !request.contains("CC-OLD-Q1"),
        "the request holds the epoch before /compact"
    );
    assert!(
        request.contains("CC-NEW-Q3"),
        "the request lacks the turns after /compact"
    );
    let sent = strings(&resume(&inject(
        &session,
        SUMMARY,
        &[],
        dir.path(),
        "c.jsonl",
    )));
    assert!(sent.contains(SUMMARY) && sent.contains("CC-NEW-Q4"));
    assert!(
        !sent.contains("CC-OLD-Q1"),
        "the old epoch is back in Claude Code's request"
    );
}

/// `/compact keep the migration plan` in Claude Code runs its `PreCompact` hook with what
/// followed the command as `custom_instructions`: the Claude Code recipe, installed as it is
/// (`examples/claude-code/settings.json`, condense on PATH), keeps a caveman summary whose next
/// steps lead with them.
#[test]
fn claude_codes_precompact_hook_hands_caveman_the_compact_instructions() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("home/.claude");
    std::fs::create_dir_all(&claude).unwrap();
    let recipe = run_ok(condense().args(["recipes", "claude-code/settings.json"]));
    std::fs::write(claude.join("settings.json"), &recipe.stdout).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("condense");
    let mut path = bin.parent().unwrap().as_os_str().to_owned();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    resumed(
        &session,
        dir.path(),
        "/compact keep the migration plan",
        Some(&path),
    );
    let kept = std::fs::read(claude.join("condense/before-compact.jsonl"))
        .expect("Claude Code ran the recipe's PreCompact hook");
    let kept = crate::util::json_lines(&kept);
    assert_eq!(kept.len(), 1, "one compaction, one line");
    let summary = kept[0]["summary"].as_str().unwrap();
    assert!(
        summary.contains("## next\n/compact: keep the migration plan\n"),
        "{summary}"
    );
}

/// The ids of the `tool_use` and of the `tool_result` blocks in a request's messages.
fn tool_ids(messages: &Value) -> (Vec<String>, Vec<String>) {
    let blocks: Vec<&Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .collect();
    let ids = |kind: &str, key: &str| {
        blocks
            .iter()
            .filter(|b| b["type"] == kind)
            .map(|b| b[key].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    (ids("tool_use", "id"), ids("tool_result", "tool_use_id"))
}

#[test]
fn parallel_tool_calls_stay_paired_wherever_the_tail_starts() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/claude-parallel.jsonl");
    let (calls, results) = tool_ids(&resume(&session));
    assert_eq!(calls.len(), 2, "the fixture's parallel calls");
    assert_eq!(calls, results);
    for preserve in ["2", "3", "4", "5"] {
        let name = format!("claude-parallel --preserve {preserve}");
        let out = inject(
            &session,
            SUMMARY,
            &["--preserve", preserve],
            dir.path(),
            "p.jsonl",
        );
        let after = resume(&out);
        let sent = strings(&after);
        assert!(
            sent.contains(SUMMARY) && sent.contains("CC-P3"),
            "{name}: summary or tail lost"
        );
        // The API rejects a tool_use without its result and a result without its call.
        let (calls, results) = tool_ids(&after);
        assert_eq!(
            calls, results,
            "{name}: tool calls and results do not pair up"
        );
    }
}

/// A message the user typed while Claude Code worked, handed to the model mid-turn (Claude
/// Code 2.1.19, entireio/cli): only `queue-operation` lines hold it, which Claude Code's own
/// loader skips, so its resume does not send it; condense reads it as the newest request, and
/// with `--preserve 1` keeps it after the summary as a user line Claude Code does send.
#[test]
fn a_message_typed_while_claude_code_worked_is_sent_after_inject() {
    if !ready() {
        return;
    }
    const QUEUED: &str = "tests tests tests";
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/claude-code/entireio-cli-7f78a542-queued.jsonl");
    let before = strings(&resume(&session));
    assert!(
        !before.contains(QUEUED),
        "Claude Code sends the queue's text"
    );
    let out = inject(
        &session,
        SUMMARY,
        &["--preserve", "1"],
        dir.path(),
        "q.jsonl",
    );
    let after = strings(&resume(&out));
    assert!(after.contains(SUMMARY), "no summary");
    assert!(after.contains(QUEUED), "the queued request is lost");
}
