//! `compact`: every rung of the ladder on real sessions, each output within its budget; the
//! LLM through a real CLI; and the session left untouched whenever the model fails it.

use std::path::Path;

use serde_json::Value;

use crate::util::{condense, context_tokens, fixture, required_llm, run_ok};

fn compact(dir: &Path, args: &[&str]) -> std::process::Output {
    condense()
        .current_dir(dir)
        .env("HOME", dir)
        .arg("compact")
        .args(args)
        .output()
        .unwrap()
}

/// Copies a corpus session into `dir` as `s.jsonl`.
fn session(dir: &Path, file: &str) -> std::path::PathBuf {
    let path = dir.join("s.jsonl");
    std::fs::copy(fixture(file), &path).unwrap();
    path
}

#[test]
fn every_rung_is_taken_on_real_sessions_and_every_output_fits() {
    for file in [
        "corpus/pi/pi-mono-large-session.jsonl",
        "corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl",
        "corpus/openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = session(dir.path(), file);
        let before = context_tokens(&path);
        // What pruning alone reaches: a budget between that and the original is the pruned
        // rung's.
        let pruned = condense().arg("prune").arg(&path).output().unwrap();
        let pruned_path = dir.path().join("pruned.jsonl");
        std::fs::write(&pruned_path, &pruned.stdout).unwrap();
        let pruned = context_tokens(&pruned_path);
        assert!(pruned < before, "{file}: prune frees nothing");
        let between = (pruned + (before - pruned) / 2).to_string();
        let llm = "cat > /dev/null; echo 'NOW: the work so far, as the model wrote it'";
        for (args, rung, code) in [
            (vec!["--budget", &*before.to_string()], "unchanged", 4),
            (vec!["--budget", &*between], "pruned", 0),
            (vec!["--budget", "5000", "--llm", llm], "llm", 0),
            (vec!["--budget", "1000"], "caveman", 0),
            (vec!["--budget", "400"], "bare", 0),
        ] {
            let mut all = args.clone();
            all.extend(["--format", "json", "s.jsonl"]);
            let output = compact(dir.path(), &all);
            assert_eq!(
                output.status.code(),
                Some(code),
                "{file} {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(report["rung"], rung, "{file} {args:?}");
            // What a successful run did is a note, not a warning (a CI log that flags
            // "warning" must not flag a normal run).
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(&format!("condense: s.jsonl: compact: {rung}"))
                    || stderr.contains(&format!("condense: <stdin>: compact: {rung}")),
                "{file} {args:?}: {stderr}"
            );
            assert!(!stderr.contains("warning"), "{file} {args:?}: {stderr}");
            // The session it writes has that size, within the budget.
            let written = compact(dir.path(), &[&args[..], &["s.jsonl"]].concat());
            let out = dir.path().join("out.jsonl");
            std::fs::write(&out, &written.stdout).unwrap();
            let after = context_tokens(&out);
            assert_eq!(
                after,
                report["tokens_after"].as_u64().unwrap(),
                "{file} {args:?}"
            );
            let budget: u64 = args[1].parse().unwrap();
            assert!(after <= budget, "{file} {args:?}: {after} > {budget}");
        }
        // Not even bare fits: an error, and nothing written.
        let output = compact(dir.path(), &["--budget", "20", "s.jsonl"]);
        assert_eq!(output.status.code(), Some(1));
        assert!(output.stdout.is_empty());
        assert!(String::from_utf8_lossy(&output.stderr).contains("does not fit --budget 20"));
    }
}

#[test]
fn a_failing_model_leaves_the_session_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path(), "corpus/pi/pi-mono-large-session.jsonl");
    let original = std::fs::read(&path).unwrap();
    for (llm, message) in [
        (
            "cat > /dev/null; exit 7",
            "the command failed with exit status 7",
        ),
        ("cat > /dev/null; echo", "the summary is empty"),
        ("cat > /dev/null; seq 1 4000", "over --summary-tokens 100"),
    ] {
        let output = compact(
            dir.path(),
            &[
                "--llm",
                llm,
                "--summary-tokens",
                "100",
                "--in-place",
                "s.jsonl",
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{llm}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{llm}: {stderr}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            original,
            "{llm}: the session changed"
        );
    }
    // Neither a model nor a budget: a usage error.
    assert_eq!(compact(dir.path(), &["s.jsonl"]).status.code(), Some(2));
}

#[test]
fn in_place_and_markdown_and_a_turned_off_config() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path(), "corpus/pi/pi-mono-large-session.jsonl");
    let original = std::fs::read(&path).unwrap();
    let output = compact(dir.path(), &["--budget", "1000", "--in-place", "s.jsonl"]);
    assert_eq!(output.status.code(), Some(0));
    let written = std::fs::read(&path).unwrap();
    assert!(
        written.starts_with(&original),
        "pi is append-only: the history stays"
    );
    assert!(context_tokens(&path) <= 1000);
    // Compacting again at the same budget: it fits, nothing to do.
    let again = compact(dir.path(), &["--budget", "1000", "--in-place", "s.jsonl"]);
    assert_eq!(again.status.code(), Some(4));
    assert_eq!(std::fs::read(&path).unwrap(), written);

    // The handoff document instead of a session: the summary of the rung taken (bare's four
    // lines, at a budget caveman's 500 tokens do not fit).
    let fresh = session(dir.path(), "corpus/pi/pi-mono-large-session.jsonl");
    let markdown = compact(
        dir.path(),
        &["--budget", "300", "--format", "markdown", "s.jsonl"],
    );
    let text = String::from_utf8(markdown.stdout).unwrap();
    assert!(text.starts_with("## Compacted Handoff"), "{text}");
    assert!(text.contains("NOW:") && text.contains("NEXT:"), "{text}");
    assert_eq!(
        std::fs::read(&fresh).unwrap(),
        original,
        "markdown leaves the session alone"
    );
    std::fs::write(&path, &written).unwrap();

    std::fs::write(
        dir.path().join(".condense.toml"),
        "[compaction]\nenabled = false\n",
    )
    .unwrap();
    let off = compact(dir.path(), &["--budget", "100", "--in-place", "s.jsonl"]);
    assert_eq!(off.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&off.stderr).contains("enabled = false"));
    assert_eq!(std::fs::read(&path).unwrap(), written);
}

/// `compact --llm` through simonw's `llm` with the echo model: the request and the system
/// prompt reach it, and its answer becomes the summary.
#[test]
fn compact_through_a_real_llm_cli() {
    let Some(llm) = required_llm() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    session(
        dir.path(),
        "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    );
    let command = format!(
        "'{}' -m echo --no-log -s \"$CONDENSE_SYSTEM\"",
        llm.display()
    );
    let output = run_ok(
        condense()
            .current_dir(dir.path())
            .env("LLM_USER_PATH", dir.path())
            .args(["compact", "--llm", &command, "s.jsonl"]),
    );
    let out = String::from_utf8(output.stdout).unwrap();
    // llm-echo answers with the system prompt and the prompt it received: both are in the
    // summary message now.
    assert!(out.contains("You are a helpful assistant that compacts conversation context."));
    assert!(out.contains("## Message 1"));
    assert!(out.ends_with('\n'));
}

/// `compact` says why it passed the LLM's summary over (`--budget`), and without a budget it
/// refuses a summary that would make the context larger, leaving the session as it is.
#[test]
fn an_llm_summary_that_does_not_help_is_said_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(
        dir.path(),
        "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
    );
    let before = std::fs::read(&path).unwrap();
    // 120,000 bytes of answer: about 30,000 tokens, more than the whole live context.
    let verbose = "cat > /dev/null; yes 'every detail, again' | head -c 120000";

    let over = compact(
        dir.path(),
        &["--budget", "3000", "--llm", verbose, "s.jsonl"],
    );
    assert_eq!(over.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&over.stderr);
    assert!(
        stderr.contains("compact: the LLM's summary (")
            && stderr.contains("over --budget 3000; going down the ladder"),
        "{stderr}"
    );
    assert!(stderr.contains("compact: caveman"), "{stderr}");

    let larger = compact(dir.path(), &["--llm", verbose, "--in-place", "s.jsonl"]);
    assert_eq!(larger.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&larger.stderr);
    assert!(
        stderr.contains("tokens of live context, no fewer than the")
            && stderr.contains("the session is left as it is"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Issue 31: condense's own Ctrl-C stops the --llm command's whole process group, which gets
/// no terminal signal of its own.
#[test]
fn sigint_stops_the_llm_command_and_everything_it_started() {
    use std::os::unix::process::ExitStatusExt;
    let session = crate::util::fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let tag = format!("sleep 41; echo {}", std::process::id());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("condense"))
        .env_clear()
        .args(["compact", "--llm", &format!("({tag}) & sleep 41")])
        .arg(&session)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let alive = || {
        std::process::Command::new("pgrep")
            .args(["-f", &tag])
            .output()
            .is_ok_and(|o| !o.stdout.is_empty())
    };
    while !alive() && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(alive(), "the command never started");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(2),
        "condense ends as SIGINT ends it: {status:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(!alive(), "the command's child outlived condense");
}

/// `compact --in-place` compares the file, under its lock, with what it read and planned (not
/// read into memory a second time, issue 33): what the agent wrote while the model thought is
/// what is compacted, a line appended or bytes rewritten in place at the same length, never
/// the bytes read before; a change to what the plan summarised makes the run refuse, the
/// agent's change left in the file.
#[test]
fn what_the_agent_wrote_while_the_model_thought_is_what_is_compacted() {
    let file = "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl";
    let original = std::fs::read_to_string(fixture(file)).unwrap();
    // A same-length edit at the first `from`: its offset, and the command that makes it.
    let rewrite = |from: &str, to: &str| {
        assert_eq!(from.len(), to.len());
        let at = original.find(from).expect("in the session");
        format!("printf '%s' '{to}' | dd of=s.jsonl bs=1 seek={at} conv=notrunc 2>/dev/null")
    };
    let appended = r#"{"role":"user","content":"one more thing: keep the tests green"}"#;
    // (what the agent does while the model thinks, what the session then holds, and what it
    // no longer holds anywhere, backup aside; the exit code)
    let cases = [
        (
            format!("printf '%s\\n' '{appended}' >> s.jsonl"),
            "one more thing: keep the tests green",
            None,
            0,
        ),
        // The last answer, which the plan keeps.
        (
            rewrite(
                "resolving the reported issue.",
                "resolving the REPORTED issue.",
            ),
            "resolving the REPORTED issue.",
            Some("resolving the reported issue."),
            0,
        ),
        // The task, which the plan summarises.
        (
            rewrite("partial code base", "partial code BASE"),
            "partial code BASE",
            Some("partial code base"),
            1,
        ),
    ];
    for (meanwhile, holds, not, code) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = session(dir.path(), file);
        let llm = format!("cat > /dev/null; {meanwhile}; echo 'NOW: the work so far'");
        let output = compact(
            dir.path(),
            &["--budget", "5000", "--llm", &llm, "--in-place", "s.jsonl"],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{meanwhile}: {stderr}");
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.contains(holds), "{meanwhile}: {written}");
        if let Some(not) = not {
            assert!(!written.contains(not), "{meanwhile}: {written}");
        }
        if code == 0 {
            assert!(stderr.contains("compact: llm"), "{stderr}");
            assert!(written.contains("NOW: the work so far"), "{written}");
            assert_ne!(written, original);
        } else {
            assert!(
                stderr.contains("changed since the plan was made")
                    && stderr.contains("nothing was written"),
                "{stderr}"
            );
            assert_eq!(written.len(), original.len());
        }
    }
}
