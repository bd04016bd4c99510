//! Finding sessions: `condense sessions`, `--latest`, `--session`, `--agent`, `--hook` and
//! directories as FILE, against a fake home directory laid out as the five agents lay theirs
//! out (the command helper clears the environment, so HOME is always set here explicitly).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::util::{assert_success, condense, fixture, json_lines};

const CLAUDE_ID: &str = "5c0375b4-0000-4000-8000-00000000c1a0";
const CODEX_ID: &str = "019fc8be-3658-7ca3-9e29-000000000000";
const KIMI_ID: &str = "b1d2e3f4-aaaa-4bbb-8ccc-0123456789ab";
const PI_ID: &str = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
const GEMINI_ID: &str = "7e4f0c21-9d3b-4a55-b0e2-5f1d2c3b4a69";

/// A home directory with one session per agent, each older than the next in the order
/// claude-code, codex, kimi, pi, gemini (Gemini's is the newest), and the side files that are
/// not sessions.
pub struct Home {
    pub dir: tempfile::TempDir,
}

impl Home {
    pub fn new() -> Home {
        let home = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        let sessions = [
            (
                format!(".claude/projects/-work-proj/{CLAUDE_ID}.jsonl"),
                "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
            ),
            (
                format!(".codex/sessions/2026/08/03/rollout-2026-08-03T10-48-56-{CODEX_ID}.jsonl"),
                "corpus/codex/agent-sessions-small.jsonl",
            ),
            (
                format!(".kimi/sessions/0b7d1f/{KIMI_ID}/context.jsonl"),
                "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
            ),
            (
                format!(".pi/agent/sessions/--work-proj--/2025-11-20T23-33-50-805Z_{PI_ID}.jsonl"),
                "corpus/pi/pi-mono-large-session.jsonl",
            ),
            (
                format!(
                    ".gemini/tmp/0b7dfb12/chats/session-2026-04-29T21-39-{}.jsonl",
                    &GEMINI_ID[..8]
                ),
                "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
            ),
        ];
        let base = SystemTime::now() - Duration::from_secs(3600);
        for (i, (path, corpus)) in sessions.iter().enumerate() {
            home.put(path, corpus, base + Duration::from_secs(60 * i as u64));
        }
        // Side files, all newer than every session: none may be taken for one.
        let newer = base + Duration::from_secs(1800);
        for side in [
            ".claude/projects/-work-proj/agent-a1b2c3.jsonl".to_owned(),
            format!(".claude/projects/-work-proj/{CLAUDE_ID}/subagents/agent-x.jsonl"),
            format!(".kimi/sessions/0b7d1f/{KIMI_ID}/wire.jsonl"),
            format!(".kimi/sessions/0b7d1f/{KIMI_ID}/context_1.jsonl"),
            ".gemini/tmp/0b7dfb12/logs/session-1.jsonl".to_owned(),
            ".claude/projects/-work-proj/notes.json".to_owned(),
        ] {
            home.put(
                &side,
                "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
                newer,
            );
        }
        home
    }

    fn put(&self, relative: &str, corpus: &str, modified: SystemTime) {
        let path = self.dir.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::copy(fixture(corpus), &path).unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// `condense` with HOME set to this home.
    pub fn condense(&self) -> assert_cmd::Command {
        let mut cmd = condense();
        cmd.env("HOME", self.dir.path());
        cmd
    }
}

fn stdout_lines(output: &std::process::Output) -> Vec<String> {
    assert_success(output, "");
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn relative(home: &Home, lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            Path::new(l)
                .strip_prefix(home.dir.path())
                .unwrap()
                .display()
                .to_string()
        })
        .collect()
}

#[test]
fn sessions_lists_every_agents_session_newest_first_and_no_side_file() {
    let home = Home::new();
    let lines = stdout_lines(&home.condense().arg("sessions").output().unwrap());
    let names = relative(&home, &lines);
    assert_eq!(names.len(), 5, "{names:#?}");
    for (name, agent_dir) in names.iter().zip([
        ".gemini/tmp/0b7dfb12/chats/",
        ".pi/agent/sessions/",
        ".kimi/sessions/",
        ".codex/sessions/",
        ".claude/projects/",
    ]) {
        assert!(
            name.starts_with(agent_dir),
            "{name} should be under {agent_dir}"
        );
    }
    assert!(names[2].ends_with("/context.jsonl"));

    let codex = stdout_lines(
        &home
            .condense()
            .args(["sessions", "--agent", "codex"])
            .output()
            .unwrap(),
    );
    assert_eq!(codex.len(), 1);
    assert!(codex[0].contains(CODEX_ID));

    let latest = stdout_lines(
        &home
            .condense()
            .args(["sessions", "--latest"])
            .output()
            .unwrap(),
    );
    assert_eq!(latest, lines[..1]);

    // -0 separates with NUL bytes, for xargs -0 and --files-from.
    let output = home.condense().args(["sessions", "-0"]).output().unwrap();
    assert_eq!(output.stdout.iter().filter(|&&b| b == 0).count(), 5);
    assert!(!output.stdout.contains(&b'\n'));
}

#[test]
fn latest_reads_the_newest_session_of_any_agent_or_of_one() {
    let home = Home::new();
    let report = |args: &[&str]| {
        let output = home.condense().arg("estimate").args(args).output().unwrap();
        assert_success(&output, format_args!("{args:?}"));
        json_lines(&output.stdout).remove(0)
    };
    let newest = report(&["--latest"]);
    assert_eq!(newest["format"], "gemini");
    for (agent, format, id) in [
        ("claude-code", "claude-code", CLAUDE_ID),
        ("codex", "codex", CODEX_ID),
        ("kimi", "openai", KIMI_ID),
        ("pi", "pi", PI_ID),
        ("gemini", "gemini", &GEMINI_ID[..8]),
    ] {
        let one = report(&["--latest", "--agent", agent]);
        assert_eq!(one["format"], format, "{agent}");
        assert!(one["file"].as_str().unwrap().contains(id), "{agent}: {one}");
    }
    // The one-file commands take the same flags.
    let output = home
        .condense()
        .args(["bare", "--latest", "--agent", "pi"])
        .output()
        .unwrap();
    assert_success(&output, "");
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("NOW:"));
}

#[test]
fn session_finds_an_id_in_file_names_kimi_directories_and_gemini_short_ids() {
    let home = Home::new();
    for (id, expected) in [
        (&CLAUDE_ID[..8], CLAUDE_ID),
        (CODEX_ID, CODEX_ID),
        (KIMI_ID, "context.jsonl"),
        // The start of a kimi-cli id, as of the others.
        (&KIMI_ID[..8], "context.jsonl"),
        (PI_ID, PI_ID),
        // Gemini CLI names a file by the first eight characters of the session id.
        (GEMINI_ID, &GEMINI_ID[..8]),
    ] {
        let lines = stdout_lines(
            &home
                .condense()
                .args(["sessions", "--session", id])
                .output()
                .unwrap(),
        );
        assert_eq!(lines.len(), 1, "{id}");
        assert!(lines[0].contains(expected), "{id}: {lines:?}");
        let output = home
            .condense()
            .args(["estimate", "--total", "--session", id])
            .output()
            .unwrap();
        assert_success(&output, format_args!("{id}"));
    }
    let missing = home
        .condense()
        .args(["caveman", "--session", "no-such-id"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.starts_with("condense: error: no session with id no-such-id in "),
        "{err}"
    );
    assert!(missing.stdout.is_empty());
}

#[test]
fn the_agents_own_variables_move_their_places() {
    let home = Home::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere
        .path()
        .join("sessions/2026/01/01/rollout-moved.jsonl");
    fs::create_dir_all(moved.parent().unwrap()).unwrap();
    fs::copy(fixture("corpus/codex/agent-sessions-small.jsonl"), &moved).unwrap();
    let lines = stdout_lines(
        &home
            .condense()
            .env("CODEX_HOME", elsewhere.path())
            .args(["sessions", "--agent", "codex"])
            .output()
            .unwrap(),
    );
    assert_eq!(lines, [moved.display().to_string()]);

    for (var, value, agent) in [
        ("CLAUDE_CONFIG_DIR", ".claude", "claude-code"),
        ("KIMI_SHARE_DIR", ".kimi", "kimi"),
        ("PI_CODING_AGENT_DIR", ".pi/agent", "pi"),
        ("GEMINI_CLI_HOME", "", "gemini"),
    ] {
        // The variable names the same place the default does, from outside HOME.
        let output = condense()
            .env("HOME", "/nonexistent")
            .env(var, home.path(value))
            .args(["sessions", "--agent", agent])
            .output()
            .unwrap();
        assert_eq!(stdout_lines(&output).len(), 1, "{var}");
    }
    let output = condense()
        .env("HOME", "/nonexistent")
        .env(
            "PI_CODING_AGENT_SESSION_DIR",
            home.path(".pi/agent/sessions"),
        )
        .args(["sessions", "--agent", "pi"])
        .output()
        .unwrap();
    assert_eq!(stdout_lines(&output).len(), 1);

    // No HOME and no variable: an error that says so.
    let output = condense().args(["estimate", "--latest"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("HOME is not set"));
    // An empty home: an error naming the places searched.
    let empty = tempfile::tempdir().unwrap();
    let output = condense()
        .env("HOME", empty.path())
        .args(["caveman", "--latest"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("no session found in ") && err.contains(".codex/sessions"),
        "{err}"
    );
}

#[test]
fn a_directory_is_its_sessions_for_estimate_and_its_newest_for_the_others() {
    let home = Home::new();
    let projects = home.path(".claude/projects");
    let output = home
        .condense()
        .args(["estimate", "--no-total"])
        .arg(home.dir.path())
        .output()
        .unwrap();
    let reports = json_lines(&stdout_lines(&output).join("\n").into_bytes());
    assert_eq!(reports.len(), 5);
    let files: Vec<&str> = reports
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(
        files, sorted,
        "a directory's files are reported sorted by path"
    );

    let output = home
        .condense()
        .args(["bare", "--format", "jsonl"])
        .arg(&projects)
        .output()
        .unwrap();
    assert_success(&output, "");

    let empty = tempfile::tempdir().unwrap();
    let output = condense().arg("split").arg(empty.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no session file"));
}

#[test]
fn hook_reads_the_transcript_path_of_a_hook_input() {
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    let input = serde_json::json!({
        "session_id": "5c0375b4",
        "transcript_path": session,
        "cwd": "/work",
        "hook_event_name": "PreCompact",
        "trigger": "auto",
    });
    let by_hook = condense()
        .args(["estimate", "--total", "--hook"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    let by_file = condense()
        .args(["estimate", "--total"])
        .arg(&session)
        .output()
        .unwrap();
    assert_success(&by_hook, "");
    assert_eq!(by_hook.stdout, by_file.stdout);

    let output = condense()
        .args(["bare", "--hook"])
        .write_stdin("{\"session_id\":\"x\"}")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no transcript_path"));
    // --agent alone picks nothing, and a FILE with --latest is two answers: usage errors.
    for args in [
        vec!["estimate", "--agent", "codex"],
        vec!["bare", "--latest", "x.jsonl"],
        vec!["estimate", "--latest", "--session", "x"],
        vec!["estimate", "--latest", "--files-from", "-"],
    ] {
        let output = condense().args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
    // A hook input and a FILE are a usage error.
    let output = condense()
        .args(["bare", "--hook"])
        .arg(&session)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// Claude Code's `PreCompact` hook input carries what the user typed after `/compact` as
/// `custom_instructions`: with `--hook`, caveman and bare state it first among the next steps
/// and prompt puts it under the custom-instruction marker, as `--instructions` does; the flag,
/// when given, wins; blank instructions (an automatic compaction) are none.
#[test]
fn a_precompact_hooks_custom_instructions_are_the_instructions() {
    let session = fixture("corpus/claude-code/claude-code-viewer-5c0375b4.jsonl");
    let input = |instructions: &str| {
        serde_json::json!({
            "session_id": "5c0375b4",
            "transcript_path": session,
            "hook_event_name": "PreCompact",
            "trigger": "manual",
            "custom_instructions": instructions,
        })
        .to_string()
    };
    let hooked = |args: &[&str], stdin: String| {
        let output = condense().args(args).write_stdin(stdin).output().unwrap();
        assert_success(&output, "");
        String::from_utf8(output.stdout).unwrap()
    };
    let caveman = hooked(&["caveman", "--hook"], input("keep the plan"));
    assert!(caveman.contains("\n/compact: keep the plan\n"), "{caveman}");
    let bare = hooked(&["bare", "--hook"], input("keep the plan"));
    assert!(bare.contains("\nNEXT:/compact: keep the plan"), "{bare}");
    let request = hooked(&["prompt", "--hook"], input("keep the plan"));
    assert!(
        request.contains("**User's Custom Compaction Instruction:**")
            && request.contains("keep the plan"),
        "{request}"
    );
    let given = hooked(
        &["bare", "--hook", "--instructions", "review it"],
        input("keep the plan"),
    );
    assert!(given.contains("\nNEXT:/compact: review it"), "{given}");
    for blank in ["", "  "] {
        let caveman = hooked(&["caveman", "--hook"], input(blank));
        assert!(!caveman.contains("/compact:"), "{caveman}");
    }
}

/// Qwen Code's sessions: `~/.qwen/projects/<project>/chats/<id>.jsonl`, found by `--agent
/// qwen-code`, `--latest` and `--session`; a project's other JSONL files are no sessions; and
/// `$QWEN_HOME`, then `$QWEN_RUNTIME_DIR`, move the place.
#[test]
fn qwen_codes_sessions_are_found_in_its_projects_chats() {
    let id = "6f1c2a3b-0000-4000-8000-0000000a0e02";
    let home = tempfile::tempdir().unwrap();
    let put = |base: &Path, relative: &str| {
        let path = base.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::copy(fixture("agents/qwen-code/compressed.jsonl"), &path).unwrap();
        path
    };
    let session = put(
        home.path(),
        &format!(".qwen/projects/-work-proj/chats/{id}.jsonl"),
    );
    put(home.path(), ".qwen/projects/-work-proj/subagents/run.jsonl");
    let run = |env: &[(&str, &Path)], args: &[&str]| {
        let mut cmd = condense();
        for (key, value) in env {
            cmd.env(key, value);
        }
        let output = cmd.args(args).output().unwrap();
        assert_success(&output, format_args!("{args:?}"));
        output
    };
    let at_home = [("HOME", home.path())];
    let listed = stdout_lines(&run(&at_home, &["sessions", "--agent", "qwen-code"]));
    assert_eq!(listed, [session.display().to_string()]);
    for args in [
        &["estimate", "--latest", "--agent", "qwen-code"][..],
        &["estimate", "--session", &id[..13]][..],
    ] {
        let report = json_lines(&run(&at_home, args).stdout).remove(0);
        assert_eq!(report["format"], "qwen-code", "{args:?}");
        assert_eq!(report["file"], session.display().to_string());
    }
    let bare = run(&at_home, &["bare", "--latest", "--agent", "qwen-code"]);
    assert!(String::from_utf8_lossy(&bare.stdout)
        .starts_with("NOW:QW-NEW-Q3: add a test for the input module. | QW-NEW-Q4"));

    let nowhere = Path::new("/nonexistent");
    let qwen_home = home.path().join(".qwen");
    for var in ["QWEN_HOME", "QWEN_RUNTIME_DIR"] {
        let env = [("HOME", nowhere), (var, qwen_home.as_path())];
        let listed = stdout_lines(&run(&env, &["sessions", "--agent", "qwen-code"]));
        assert_eq!(listed, [session.display().to_string()], "{var}");
    }
    // The runtime folder wins over QWEN_HOME.
    let env = [
        ("HOME", nowhere),
        ("QWEN_HOME", qwen_home.as_path()),
        ("QWEN_RUNTIME_DIR", nowhere),
    ];
    let output = condense()
        .envs(env)
        .args(["sessions", "--agent", "qwen-code"])
        .output()
        .unwrap();
    assert!(stdout_lines(&output).is_empty());
}
