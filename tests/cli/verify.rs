//! `--verify` (on by default with `--in-place`): a broken writer in every format is caught before
//! anything is written, by the check its corruption breaks, and an honest write passes; for
//! `inject`, `compact` (its summary rungs and its pruned rung) and `prune`. The broken writer is
//! the test-only `CONDENSE_TEST_CORRUPT` of `verify::corrupt`.
//!
//! Run with `--nocapture` to see which check caught each corruption in each format.

use std::path::Path;

use serde_json::Value;

use crate::prune::inflated;
use crate::util::{condense, fixture, CORPUS};

const SUMMARY: &str = "CONDENSE-VERIFY-SUMMARY: what happened so far.\nMore lines follow.\n";

/// One message kept: the Gemini corpus session has three, which `--preserve 2` (counted as the
/// model received them) leaves nothing to compact in.
const PRESERVE: &[&str] = &["--preserve", "1"];

/// The options that prune the most: nothing recent kept, every size, arguments and thinking.
const PRUNE_ALL: &[&str] = &[
    "--keep",
    "0",
    "--min-tokens",
    "1",
    "--clear-inputs",
    "--keep-thinking",
    "0",
];

/// An Anthropic Messages API list made of a real Claude Code session: the `message` of each of
/// its main-chain user and assistant lines, as it was sent (tool_use, tool_result and thinking
/// blocks and all), one per line. The corpus holds no Anthropic list of its own.
fn anthropic_list() -> Vec<u8> {
    let path = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    let mut out = String::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        let main_chain = matches!(value["type"].as_str(), Some("user" | "assistant"))
            && value["isSidechain"] != Value::Bool(true);
        if main_chain && value["message"].is_object() {
            let message = &value["message"];
            let line = serde_json::json!({"role": message["role"], "content": message["content"]});
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// A session of each format whose every corruption has something to break (a message to
/// summarise, a request a person typed in the live context): the corpus where it has one, the
/// sessions the real agents wrote where the corpus copy is trimmed (Codex) or has no request
/// after its agent's own compaction.
fn compaction_sessions() -> Vec<(&'static str, Vec<u8>)> {
    let read = |path: &str| std::fs::read(fixture(path)).unwrap();
    vec![
        (
            "claude-code",
            read("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl"),
        ),
        ("codex", read("agents/codex-turns.jsonl")),
        ("codex", read("agents/codex-compacted.jsonl")),
        ("pi v1", read("corpus/pi/pi-mono-large-session.jsonl")),
        ("pi v3", read("agents/pi-branched.jsonl")),
        (
            "gemini",
            read("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl"),
        ),
        ("gemini", read("agents/gemini-turns.jsonl")),
        (
            "kimi",
            read("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl"),
        ),
        ("anthropic", anthropic_list()),
    ]
}

/// A session of each format with tool outputs a prune replaces (the Codex and Gemini sessions
/// with their outputs made long, as `prune`'s own tests do).
fn prune_sessions() -> Vec<(&'static str, Vec<u8>)> {
    let read = |path: &str| std::fs::read(fixture(path)).unwrap();
    vec![
        (
            "claude-code",
            read("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl"),
        ),
        ("codex", inflated("corpus/codex/agent-sessions-small.jsonl")),
        ("pi v1", read("corpus/pi/pi-mono-large-session.jsonl")),
        ("pi v3", read("agents/pi-compacted-twice.jsonl")),
        (
            "gemini",
            inflated("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl"),
        ),
        (
            "kimi",
            read("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl"),
        ),
        ("anthropic", anthropic_list()),
    ]
}

/// What one run in place did.
struct Run {
    code: i32,
    stderr: String,
    /// The file as the run left it.
    after: Vec<u8>,
    /// Whether it holds what it held before, byte for byte.
    unchanged: bool,
}

impl Run {
    /// The check a failed run names, from its one-line error.
    fn check(&self) -> Option<&str> {
        let start = self.stderr.find("--verify: check \"")? + "--verify: check \"".len();
        let end = self.stderr[start..].find('"')?;
        Some(&self.stderr[start..start + end])
    }
}

/// `condense ARGS FILE`, FILE a copy of `session`, with the writer broken by `corrupt` (none
/// when empty).
fn run_in_place(session: &[u8], args: &[&str], corrupt: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, session).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let mut cmd = condense();
    cmd.current_dir(dir.path()).args(args).arg(&path);
    if !corrupt.is_empty() {
        cmd.env("CONDENSE_TEST_CORRUPT", corrupt);
    }
    let output = cmd.output().unwrap();
    let after = std::fs::read(&path).unwrap();
    let run = Run {
        code: output.status.code().unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        unchanged: after == session,
        after,
    };
    if run.code != 0 {
        // Nothing written: no backup either, and nothing on stdout.
        let backup = dir.path().join("s.jsonl.bak");
        assert!(!backup.exists(), "a failed check left a backup");
        assert!(output.stdout.is_empty());
    }
    run
}

const INJECT: &[&str] = &["inject", "--in-place", "--summary", "summary.md"];

fn inject<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    [INJECT, extra].concat()
}

/// Asserts that `run` failed the way a caught corruption fails: exit 1, one line naming
/// `check`, the session untouched.
fn assert_caught(run: &Run, check: &str, what: &str) {
    assert_eq!(run.code, 1, "{what}: {}", run.stderr);
    assert_eq!(run.check(), Some(check), "{what}: {}", run.stderr);
    assert!(
        run.stderr.contains("the session was not written") && run.stderr.lines().count() == 1,
        "{what}: {}",
        run.stderr
    );
    assert!(run.unchanged, "{what}: the session was changed");
}

#[test]
fn an_honest_write_passes_in_every_format() {
    let corpus = CORPUS
        .iter()
        .map(|(path, format)| (*format, std::fs::read(fixture(path)).unwrap()));
    for (format, session) in corpus.chain(compaction_sessions()) {
        let run = run_in_place(&session, &inject(PRESERVE), "");
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert!(!run.unchanged, "{format}: nothing was written");
    }
}

#[test]
fn a_broken_writer_is_caught_by_the_check_it_breaks_in_every_format() {
    let corruptions = [
        ("cut", "readable"),
        ("no-summary", "summary"),
        ("keep-summarised", "summarised-gone"),
        ("touch-newest", "newest-message"),
    ];
    for (format, session) in compaction_sessions() {
        for (corrupt, check) in corruptions {
            let run = run_in_place(&session, &inject(PRESERVE), corrupt);
            eprintln!("inject  {format:12} {corrupt:16} {:?}", run.check());
            assert_caught(&run, check, &format!("{format} {corrupt}"));
        }
    }
}

/// The newest request only quoted by the summary is no longer taken for it kept: with
/// `--upto` past it, it is summarised, and the summary quoting it word for word does not help.
#[test]
fn the_newest_request_quoted_by_the_summary_is_not_kept() {
    let session = std::fs::read(fixture(
        "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    ))
    .unwrap();
    let first_user: Value = String::from_utf8_lossy(&session)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|value| value["role"] == "user")
        .unwrap();
    let request = first_user["content"].as_str().unwrap().to_owned();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, &session).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, format!("The user asked:\n\n{request}\n")).unwrap();
    // The swebench session has one request, record 1; a cut at record 4 summarises it.
    let output = condense()
        .args(["inject", "--in-place", "--upto", "4", "--summary"])
        .arg(&summary)
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("check \"newest-message\" failed")
            && stderr.contains("the plan summarises it"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), session);
}

#[test]
fn no_verify_writes_what_the_broken_writer_made() {
    let session = std::fs::read(fixture(
        "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
    ))
    .unwrap();
    let run = run_in_place(&session, &inject(&["--no-verify"]), "no-summary");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The marker went in without its summary: what --verify's "summary" check stops.
    let written = String::from_utf8(run.after).unwrap();
    assert!(written.len() > session.len());
    assert!(written.contains("compact_boundary") && !written.contains("CONDENSE-VERIFY-SUMMARY"));
    // The same for a writer that keeps a summarised message: written as it made it.
    let run = run_in_place(&session, &inject(&["--no-verify"]), "keep-summarised");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.unchanged);
}

#[test]
fn compact_in_place_verifies_too() {
    let session = std::fs::read(fixture("corpus/pi/pi-mono-large-session.jsonl")).unwrap();
    let bare = ["compact", "--in-place", "--budget", "2000"];
    let run = run_in_place(&session, &bare, "cut");
    assert_caught(&run, "readable", "compact --budget, cut");
    // The LLM rung (the model is `cat` of the summary) goes through the same writer.
    let llm = ["compact", "--in-place", "--llm", "cat summary.md"];
    let run = run_in_place(&session, &llm, "keep-summarised");
    assert_caught(&run, "summarised-gone", "compact --llm, keep-summarised");
    let run = run_in_place(&session, &llm, "");
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// compact's last rung keeps the newest request beside the summary when nothing else fits, so
/// that it passes `newest-message` (before, it kept nothing and was refused).
#[test]
fn compact_keeps_the_newest_request_when_it_keeps_nothing_else() {
    let session = std::fs::read(fixture(
        "corpus/openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
    ))
    .unwrap();
    let run = run_in_place(&session, &["compact", "--in-place", "--budget", "2000"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let request = String::from_utf8_lossy(&session)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .rfind(|value| value["role"] == "user")
        .unwrap()["content"]
        .clone();
    let kept = String::from_utf8(run.after)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .any(|value| value["role"] == "user" && value["content"] == request);
    assert!(kept, "{}", run.stderr);
}

#[test]
fn an_honest_prune_passes_in_every_format() {
    for (format, session) in prune_sessions() {
        let run = run_in_place(
            &session,
            &[&["prune", "--in-place"], PRUNE_ALL].concat(),
            "",
        );
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert!(!run.unchanged, "{format}: nothing was pruned");
    }
}

#[test]
fn a_broken_prune_is_caught_by_the_check_it_breaks_in_every_format() {
    let corruptions = [
        ("cut", "readable"),
        ("touch-newest", "newest-message"),
        ("touch", "untouched"),
    ];
    let args = [&["prune", "--in-place"], PRUNE_ALL].concat();
    for (format, session) in prune_sessions() {
        for (corrupt, check) in corruptions {
            let run = run_in_place(&session, &args, corrupt);
            eprintln!("prune   {format:12} {corrupt:16} {:?}", run.check());
            assert_caught(&run, check, &format!("{format} {corrupt}"));
        }
    }
    // --no-verify writes what the broken writer made.
    let (_, session) = &prune_sessions()[0];
    let run = run_in_place(session, &[&args[..], &["--no-verify"]].concat(), "touch");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(String::from_utf8_lossy(&run.after).contains(" (changed)"));
}

/// `compact --budget` whose pruned rung fits is checked as `prune --in-place` is.
#[test]
fn compacts_pruned_rung_verifies_too() {
    let session = std::fs::read(fixture(
        "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    ))
    .unwrap();
    let args = ["compact", "--in-place", "--budget", "15000"];
    let run = run_in_place(&session, &args, "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("compact: pruned"), "{}", run.stderr);
    let run = run_in_place(&session, &args, "touch");
    assert_caught(&run, "untouched", "compact's pruned rung, touch");
    let run = run_in_place(&session, &[&args[..], &["--no-verify"]].concat(), "touch");
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `--no-verify` is a flag of the commands that write in place only.
#[test]
fn no_verify_needs_in_place() {
    let path: &Path = &fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let output = condense()
        .args(["prune", "--no-verify"])
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
