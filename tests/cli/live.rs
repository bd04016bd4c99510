//! The live context end to end: compacting a session makes its context small and the next
//! compaction sees only the new epoch, in every format, on every real session.

use std::path::Path;

use serde_json::Value;

use crate::util::{assert_success, condense, context_tokens, fixture, run_ok, CORPUS};

fn due(path: &Path, max_context: u64) -> bool {
    let status = condense()
        .args(["estimate", "--check", "--reserved", "0", "--max-context"])
        .arg(max_context.to_string())
        .arg(path)
        .output()
        .unwrap()
        .status;
    match status.code() {
        Some(0) => false,
        Some(3) => true,
        other => panic!("estimate --check exited {other:?}"),
    }
}

fn inject(session: &Path, summary: &Path, out: &Path) {
    let output = run_ok(
        condense()
            .args(["inject", "--summary"])
            .arg(summary)
            .arg(session),
    );
    assert!(
        output.stdout.ends_with(b"\n"),
        "every output ends with a newline"
    );
    std::fs::write(out, output.stdout).unwrap();
}

fn prompt(session: &Path) -> String {
    let output = run_ok(condense().arg("prompt").arg(session));
    String::from_utf8(output.stdout).unwrap()
}

/// The text of each message `split` puts in the compacted region.
fn compacted_texts(session: &Path) -> Vec<String> {
    let output = condense()
        .args(["split", "--emit", "compact"])
        .arg(session)
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|line| line.to_string())
        .collect()
}

/// The text of each line of the request the plan keeps apart from its tail.
fn kept_request_texts(session: &Path) -> Vec<String> {
    let output = condense().arg("split").arg(session).output().unwrap();
    let plan: Value = serde_json::from_slice(&output.stdout).unwrap();
    let Some(lines) = plan["kept_request"]["lines"].as_array() else {
        return Vec::new();
    };
    let (first, last) = (lines[0].as_u64().unwrap(), lines[1].as_u64().unwrap());
    std::fs::read_to_string(session)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(i, _)| (first..=last).contains(&(*i as u64 + 1)))
        .filter_map(|(_, line)| serde_json::from_str::<Value>(line).ok())
        .map(|line| line.to_string())
        .collect()
}

/// After `inject`, the context is below half the original's and no longer due at a trigger the
/// original reached; compacting again summarises the new summary and what came after, never
/// the epoch before it.
#[test]
fn a_compacted_session_is_small_and_compacts_only_its_new_epoch() {
    let dir = tempfile::tempdir().unwrap();
    for (file, _) in CORPUS {
        // A question and two model turns: --preserve 2 keeps both turns and the question, so
        // there is nothing to compact.
        if file.ends_with("agent-sessions-jsonl_v040.jsonl") {
            continue;
        }
        let session = fixture(file);
        let before = context_tokens(&session);
        let first = dir.path().join("first.md");
        std::fs::write(&first, "FIRST-SUMMARY-MARKER: the work so far.").unwrap();
        let compacted = dir.path().join("compacted.jsonl");
        inject(&session, &first, &compacted);
        let after = context_tokens(&compacted);
        // The trimmed Codex fixture's context is 68 tokens (the requests and summaries of its
        // compacted lines; the instructions Codex keeps beside them are not read as either):
        // there the fixed summary prefix alone is half of it, so it only has to shrink, and is
        // not held to the trigger at its own size.
        let tiny = before < 1000;
        let shrunk = if tiny {
            after < before
        } else {
            after * 2 < before
        };
        assert!(shrunk, "{file}: context {before} -> {after}");
        assert!(
            due(&session, before),
            "{file}: the original is due at its own size"
        );
        assert!(
            tiny || !due(&compacted, before),
            "{file}: still due after compaction"
        );

        // Compacted again: the request holds the first summary, none of the first epoch.
        let request = prompt(&compacted);
        assert!(request.contains("FIRST-SUMMARY-MARKER"), "{file}");
        let second = dir.path().join("second.md");
        std::fs::write(&second, "SECOND-SUMMARY-MARKER").unwrap();
        let twice = dir.path().join("twice.jsonl");
        inject(&compacted, &second, &twice);
        let again = prompt(&twice);
        assert!(again.contains("SECOND-SUMMARY-MARKER"), "{file}");
        assert!(
            !again.contains("FIRST-SUMMARY-MARKER"),
            "{file}: an earlier epoch came back"
        );
        // Nothing the first compaction summarised is summarised again (the newest request it
        // kept verbatim is in the context, so the second one sends it again).
        let again_compacted = compacted_texts(&compacted);
        let kept = kept_request_texts(&session);
        for line in compacted_texts(&session) {
            if kept.contains(&line) {
                continue;
            }
            assert!(!again_compacted.contains(&line), "{file}: re-summarised");
        }
    }
}

/// A pi session the user branched (the newest entry's `parentId` points back past the abandoned
/// turn): the kept tail is taken along the active branch, so the newest question and answer are
/// kept and the abandoned turn is neither kept nor summarised.
#[test]
fn a_branched_pi_session_keeps_its_newest_turn() {
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/r"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first question"}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}]}}"#,
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"ABANDONED question"}}"#,
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ABANDONED answer"}]}}"#,
        r#"{"type":"message","id":"u3","parentId":"a1","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"newest question"}}"#,
        r#"{"type":"message","id":"a3","parentId":"u3","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"newest answer"}]}}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("branched.jsonl");
    std::fs::write(&session, lines.join("\n") + "\n").unwrap();
    let request = prompt(&session);
    assert!(!request.contains("ABANDONED"), "{request}");
    assert!(request.contains("first question"));
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "BRANCH-SUMMARY").unwrap();
    let out = dir.path().join("out.jsonl");
    inject(&session, &summary, &out);
    let written = std::fs::read_to_string(&out).unwrap();
    let compaction: Value = serde_json::from_str(written.lines().last().unwrap()).unwrap();
    assert_eq!(compaction["type"], "compaction");
    assert_eq!(compaction["firstKeptEntryId"], "u3");
    assert_eq!(compaction["parentId"], "a3");
    let after = prompt(&out);
    assert!(after.contains("BRANCH-SUMMARY") && !after.contains("ABANDONED"));
}

/// The README's Makefile rule, run twice on a session that is due: the LLM is called once, as
/// the first compaction leaves the session below its trigger.
#[test]
fn the_readme_makefile_compacts_once() {
    assert!(
        std::process::Command::new("make")
            .arg("--version")
            .output()
            .is_ok(),
        "make is needed for this test"
    );
    let dir = tempfile::tempdir().unwrap();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_condense"));
    for (file, format) in [
        ("corpus/pi/pi-mono-large-session.jsonl", "pi"),
        (
            "corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl",
            "claude-code",
        ),
        // (The kimi-cli sessions' contexts, near 20k tokens, are below the rule's default
        // reserve of 50000: they are due at any window that size. The test above checks them
        // with --reserved 0.)
    ] {
        let session = dir.path().join(format!("{format}.jsonl"));
        std::fs::copy(fixture(file), &session).unwrap();
        let max = context_tokens(&session);
        // A stand-in for the LLM CLI that counts its calls and answers with a summary.
        let llm = dir.path().join("llm");
        std::fs::write(
            &llm,
            "#!/bin/sh\ncat > /dev/null\necho call >> \"$CALLS\"\necho 'NOW: the work so far'\n",
        )
        .unwrap();
        std::fs::set_permissions(&llm, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let makefile = dir.path().join("Makefile");
        // The rule as the README gives it, with the window set to this session's size.
        let rule = crate::recipes::readme_makefile();
        assert!(rule.contains("--max-context 200000"));
        std::fs::write(&makefile, rule.replace("200000", &max.to_string())).unwrap();
        let calls = dir.path().join(format!("{format}.calls"));
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            bin.parent().unwrap().display(),
            dir.path().display()
        );
        for _ in 0..2 {
            let output = std::process::Command::new("make")
                .arg("-s")
                .arg("-C")
                .arg(dir.path())
                .arg(format!("SESSION={}", session.display()))
                .env("PATH", &path)
                .env("CALLS", &calls)
                .output()
                .unwrap();
            assert_success(&output, format_args!("{file}"));
        }
        let count = std::fs::read_to_string(&calls).unwrap().lines().count();
        assert_eq!(count, 1, "{file}: the LLM was called {count} times");
    }
}

/// `split --emit` of a Gemini session whose history is a `$set` list prints each message of
/// it as a line of its own.
#[test]
fn split_emits_the_messages_of_a_gemini_set_one_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("reset.jsonl");
    let messages = [
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"first question"}]}"#,
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"first answer"}"#,
        r#"{"id":"u2","timestamp":"t","type":"user","content":[{"text":"second question"}]}"#,
        r#"{"id":"g2","timestamp":"t","type":"gemini","content":"second answer"}"#,
    ];
    std::fs::write(
        &session,
        format!(
            "{}\n{{\"$set\":{{\"messages\":[{}]}}}}\n",
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#,
            messages.join(",")
        ),
    )
    .unwrap();
    for (region, expected) in [("compact", &messages[..2]), ("tail", &messages[2..])] {
        let output = run_ok(condense().args(["split", "--emit", region]).arg(&session));
        let text = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, expected, "{region}");
    }
}

/// What the user typed while Claude Code worked, handed to the model mid-turn and written on
/// no line but its `queue-operation` lines (Claude Code 2.1.19, entireio/cli): the summaries
/// carry it, the summariser is sent it once, and every write-back keeps the queue's lines byte
/// for byte.
#[test]
fn a_message_typed_while_claude_code_worked_is_read_and_its_lines_kept() {
    let session = fixture("corpus/claude-code/entireio-cli-7f78a542-queued.jsonl");
    let input = std::fs::read_to_string(&session).unwrap();
    let queue_lines: Vec<&str> = input
        .lines()
        .filter(|line| line.contains(r#""type":"queue-operation""#))
        .collect();
    assert_eq!(queue_lines.len(), 2);
    const QUEUED: &str = "tests tests tests";
    for command in ["caveman", "bare"] {
        let output = run_ok(condense().arg(command).arg(&session));
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains(QUEUED), "{command}:\n{text}");
    }
    assert_eq!(prompt(&session).matches(QUEUED).count(), 1);
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "SUMMARY").unwrap();
    let injected = dir.path().join("injected.jsonl");
    inject(&session, &summary, &injected);
    let pruned = run_ok(condense().args(["prune", "--keep", "0"]).arg(&session)).stdout;
    for (name, written) in [
        ("inject", std::fs::read_to_string(&injected).unwrap()),
        ("prune", String::from_utf8(pruned).unwrap()),
    ] {
        for line in &queue_lines {
            assert!(written.lines().any(|l| l == *line), "{name} lost {line}");
        }
    }
}
