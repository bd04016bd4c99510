//! The README's shell examples and the agent recipes in `examples/`, run as a user would run
//! them: against corpus sessions in a fake home, with stand-ins for the agents and LLM CLIs on
//! PATH that refuse to run without the flags that keep a summariser safe (no session of its
//! own, no tools).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::util::{assert_success, condense, fixture, json_lines};

const OPENAI: &str = "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl";
const CLAUDE: &str = "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl";
const PI: &str = "corpus/pi/pi-mono-large-session.jsonl";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose examples the tests run: the README and the guide it points to.
const TESTED_DOCS: [&str; 2] = ["README.md", "docs/GUIDE.md"];

/// The fenced block that follows `<!-- tested: NAME -->` in the README or the guide.
fn readme_block(name: &str) -> String {
    let marker = format!("<!-- tested: {name} -->");
    let docs: Vec<String> = TESTED_DOCS
        .iter()
        .map(|doc| fs::read_to_string(root().join(doc)).unwrap())
        .collect();
    let doc = docs
        .iter()
        .find(|doc| doc.contains(&marker))
        .unwrap_or_else(|| panic!("no {marker} in {TESTED_DOCS:?}"));
    let after = &doc[doc.find(&marker).unwrap()..];
    let open = after.find("```").unwrap();
    let body = &after[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("\n```").unwrap() + 1].to_owned()
}

/// The README's Makefile rule, for the test that runs it.
pub fn readme_makefile() -> String {
    readme_block("makefile")
}

/// A scratch directory with stand-in programs, and the PATH that puts them before condense and
/// the system's tools.
struct Bench {
    dir: tempfile::TempDir,
}

/// A stand-in that checks its arguments with `check` (a shell condition over "$*" and the
/// variables it sets), records the call, reads the request and answers with a summary.
const STUB: &str = r#"#!/bin/bash
name=$(basename "$0")
args=" $* "
request=$(cat)
[ -n "$request" ] || { echo "$name: empty request" >&2; exit 65; }
CHECK
echo "$name" >> "$BENCH/calls"
ANSWER
"#;

impl Bench {
    fn new() -> Bench {
        let bench = Bench {
            dir: tempfile::tempdir().unwrap(),
        };
        fs::create_dir(bench.path("bin")).unwrap();
        fs::create_dir(bench.path("home")).unwrap();
        let flag = |name: &str, flags: &[&str]| -> String {
            flags
                .iter()
                .map(|f| {
                    format!(
                        "case $args in *' {f} '*) ;; *) echo '{name}: {f} is missing' >&2; exit 64;; esac\n"
                    )
                })
                .collect()
        };
        let summary = "echo \"NOW: summarised by $name\"";
        let stubs = [
            ("llm", flag("llm", &["-s"]), summary.to_owned()),
            (
                "claude",
                // `--tools ""` arrives as an empty argument: two spaces in " $* ".
                flag("claude", &["-p", "--no-session-persistence", "--system-prompt"])
                    + "case $args in *' --tools  '*) ;; *) echo 'claude: --tools \"\" is missing' >&2; exit 64;; esac\n",
                summary.to_owned(),
            ),
            (
                "codex",
                flag("codex", &["exec", "--ephemeral", "--sandbox", "read-only", "-"]),
                // The summary goes to --output-last-message's file.
                "out=$(printf '%s\\n' \"$@\" | sed -n '/^--output-last-message$/{n;p;}')\n\
                 [ -n \"$out\" ] || { echo 'codex: --output-last-message is missing' >&2; exit 64; }\n\
                 echo \"NOW: summarised by codex\" > \"$out\"; echo 'progress on stdout'"
                    .to_owned(),
            ),
            (
                "pi",
                flag("pi", &["-p", "--no-session", "--no-tools", "--system-prompt"]),
                summary.to_owned(),
            ),
            (
                "kimi",
                // The agent file must be there and give the model no tools.
                flag("kimi", &["--quiet", "--agent-file", "--work-dir"])
                    + "agent=$(printf '%s\\n' \"$@\" | sed -n '/^--agent-file$/{n;p;}')\n\
                       grep -q '^  tools: \\[\\]$' \"$agent\" || { echo \"kimi: $agent gives tools\" >&2; exit 64; }\n",
                summary.to_owned(),
            ),
            (
                "curl",
                // The body must be JSON; the answer is shaped like the API it was sent to.
                "printf '%s' \"$request\" | jq -e . > /dev/null || { echo 'curl: the body is not JSON' >&2; exit 64; }\n"
                    .to_owned(),
                "case $args in\n\
                 *api.anthropic.com*) echo '{\"content\":[{\"type\":\"text\",\"text\":\"NOW: summarised by anthropic\"}]}' ;;\n\
                 *) echo '{\"choices\":[{\"message\":{\"content\":\"NOW: summarised by openai\"}}]}' ;;\n\
                 esac"
                    .to_owned(),
            ),
        ];
        for (name, check, answer) in stubs {
            let script = STUB.replace("CHECK", &check).replace("ANSWER", &answer);
            bench.executable(&format!("bin/{name}"), &script);
        }
        bench
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn executable(&self, relative: &str, script: &str) {
        let path = self.path(relative);
        fs::write(&path, script).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn search_path(&self) -> String {
        let condense_dir = Path::new(env!("CARGO_BIN_EXE_condense")).parent().unwrap();
        format!(
            "{}:{}:/usr/local/bin:/usr/bin:/bin",
            self.path("bin").display(),
            condense_dir.display()
        )
    }

    /// `program args…` in the bench directory, with the fake home and the stand-ins.
    fn run(&self, program: &str, args: &[&str], stdin: Option<&str>) -> Output {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", self.search_path())
            .env("HOME", self.path("home"))
            .env("BENCH", self.dir.path());
        if let Some(input) = stdin {
            let mut child = command
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            return child.wait_with_output().unwrap();
        }
        command.output().unwrap()
    }

    fn calls(&self) -> Vec<String> {
        fs::read_to_string(self.path("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn clear_calls(&self) {
        let _ = fs::remove_file(self.path("calls"));
    }

    /// Copies a corpus session into the fake home.
    fn session(&self, relative: &str, corpus: &str) -> PathBuf {
        let path = self.path("home").join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::copy(fixture(corpus), &path).unwrap();
        path
    }
}

fn ok(output: &Output, what: &str) -> String {
    assert_success(output, what);
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn the_intro_idiom_compacts_when_due_does_nothing_when_not_and_stops_on_an_error() {
    let bench = Bench::new();
    fs::copy(fixture(OPENAI), bench.path("session.jsonl")).unwrap();
    let block = readme_block("intro");
    assert!(block.contains("--max-context 200000"));
    let run = |max: &str| {
        let script = block.replace("200000", max);
        fs::write(bench.path("intro.sh"), &script).unwrap();
        bench.run("sh", &["intro.sh"], None)
    };
    ok(&run("1000"), "due");
    assert_eq!(bench.calls(), ["llm"]);
    let compacted = fs::read(bench.path("compacted.jsonl")).unwrap();
    assert!(String::from_utf8_lossy(&compacted).contains("summarised by llm"));

    bench.clear_calls();
    fs::remove_file(bench.path("compacted.jsonl")).unwrap();
    ok(&run("100000000"), "not due");
    assert!(bench.calls().is_empty());
    assert!(!bench.path("compacted.jsonl").exists());

    // An error is not "due": the script stops with it and the LLM is never called.
    fs::remove_file(bench.path("session.jsonl")).unwrap();
    let output = run("1000");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("session.jsonl: cannot open"));
    assert!(bench.calls().is_empty());
}

#[test]
fn the_readme_summarisers_run_with_their_safe_flags() {
    let bench = Bench::new();
    fs::copy(fixture(OPENAI), bench.path("s.jsonl")).unwrap();
    fs::write(bench.path("summarisers.sh"), readme_block("summarisers")).unwrap();
    let output = bench.run("bash", &["-e", "-o", "pipefail", "summarisers.sh"], None);
    ok(&output, "the README's summariser pipelines");
    assert_eq!(
        bench.calls(),
        ["llm", "claude", "codex", "pi", "kimi", "curl", "curl"],
        "every summariser ran once"
    );
    // The last pipeline's answer is the summary, read out of the Messages API response.
    let summary = fs::read_to_string(bench.path("summary.md")).unwrap();
    assert_eq!(summary, "NOW: summarised by anthropic\n");
    let compacted = fs::read_to_string(bench.path("compacted.jsonl")).unwrap();
    assert!(compacted.contains("summarised by llm"));
}

/// Claude Code's hook input for `event` on `transcript`.
fn hook_input(event: &str, transcript: &Path, extra: serde_json::Value) -> String {
    let mut input = serde_json::json!({
        "session_id": "5c0375b4",
        "transcript_path": transcript,
        "cwd": "/work",
        "hook_event_name": event,
    });
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    input.to_string()
}

#[test]
fn the_claude_code_settings_run_each_hook_and_the_status_line() {
    let bench = Bench::new();
    let transcript = bench.session(".claude/projects/-work/5c0375b4.jsonl", CLAUDE);
    let settings: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("examples/claude-code/settings.json")).unwrap(),
    )
    .unwrap();

    let status = settings["statusLine"]["command"].as_str().unwrap();
    let input = serde_json::json!({"transcript_path": transcript, "model": {"id": "m"}});
    let line = ok(
        &bench.run("sh", &["-c", status], Some(&input.to_string())),
        "statusLine",
    );
    let tokens = condense()
        .args(["estimate", "--context", "--total"])
        .arg(&transcript)
        .output()
        .unwrap()
        .stdout;
    let tokens = String::from_utf8(tokens).unwrap();
    assert_eq!(line, format!("ctx {} tokens", tokens.trim()));

    let hooks = &settings["hooks"];
    let command = |event: &str, matcher: &str| -> String {
        hooks[event]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["matcher"] == matcher)
            .unwrap_or_else(|| panic!("{event} {matcher}"))["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let pre = command("PreCompact", "");
    // An automatic compaction has no instructions; `/compact keep the plan` has.
    for (trigger, instructions) in [("auto", ""), ("manual", "keep the plan")] {
        let input = hook_input(
            "PreCompact",
            &transcript,
            serde_json::json!({"trigger": trigger, "custom_instructions": instructions}),
        );
        ok(&bench.run("sh", &["-c", &pre], Some(&input)), "PreCompact");
    }
    let kept = fs::read(bench.path("home/.claude/condense/before-compact.jsonl")).unwrap();
    let kept = json_lines(&kept);
    assert_eq!(kept.len(), 2, "one line per compaction");
    let summary = |n: usize| kept[n]["summary"].as_str().unwrap().to_owned();
    assert!(summary(0).starts_with("# caveman"));
    assert!(!summary(0).contains("/compact:"), "{}", summary(0));
    assert!(
        summary(1).contains("\n/compact: keep the plan\n"),
        "{}",
        summary(1)
    );
    // Each line says whose session it summarises and when.
    for line in &kept {
        assert_eq!(line["file"], transcript.display().to_string());
        assert_eq!(line["session"], "5c0375b4");
        let time = line["time"].as_str().unwrap();
        assert!(
            time.len() == 20 && time.starts_with("20") && time.ends_with('Z'),
            "{time}"
        );
    }

    let after_compact = command("SessionStart", "compact");
    let input = hook_input(
        "SessionStart",
        &transcript,
        serde_json::json!({"source": "compact"}),
    );
    let context = ok(
        &bench.run("sh", &["-c", &after_compact], Some(&input)),
        "SessionStart",
    );
    assert!(context.starts_with("# caveman"), "{context}");

    let on_resume = command("SessionStart", "resume");
    let input = hook_input(
        "SessionStart",
        &transcript,
        serde_json::json!({"source": "resume"}),
    );
    let lines = ok(
        &bench.run("sh", &["-c", &on_resume], Some(&input)),
        "resume",
    );
    let labels: Vec<&str> = lines
        .lines()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(labels, ["NOW", "NEXT", "TEST", "CI"]);
}

#[test]
fn the_codex_script_sets_compact_prompt_before_any_table() {
    let bench = Bench::new();
    let config = bench.path("home/.codex/config.toml");
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(
        &config,
        "model = \"o3\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n",
    )
    .unwrap();
    let script = root().join("examples/codex/install-compact-prompt.sh");
    let script = script.to_str().unwrap();
    ok(&bench.run("sh", &[script, "checkpoint"], None), "install");
    let body = condense()
        .args(["prompt", "--body", "--style", "checkpoint"])
        .output()
        .unwrap()
        .stdout;
    let written = fs::read_to_string(&config).unwrap();
    assert!(written.starts_with("compact_prompt = '''\n"));
    assert!(written.ends_with("[profiles.fast]\nmodel = \"o4-mini\"\n"));
    // Read back by a TOML parser: the key is top-level and holds the body exactly.
    let python = Command::new("python3")
        .arg("-c")
        .arg("import sys, tomllib; c = tomllib.load(open(sys.argv[1], 'rb')); sys.stdout.write(c['compact_prompt']); assert c['profiles']['fast']['model'] == 'o4-mini'")
        .arg(&config)
        .output();
    match python {
        Ok(out) if out.status.success() => assert_eq!(out.stdout, body),
        Ok(out) if String::from_utf8_lossy(&out.stderr).contains("No module named 'tomllib'") => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI has python3 3.11+ (tomllib)"
            );
            crate::util::say_skipped("the TOML check: python3 has no tomllib (3.11+)");
        }
        Ok(out) => panic!("{}", String::from_utf8_lossy(&out.stderr)),
        Err(_) => {
            assert!(std::env::var_os("CI").is_none(), "CI has python3");
            crate::util::say_skipped("the TOML check: no python3");
        }
    }
    // A second run refuses to set the key twice.
    let again = bench.run("sh", &[script], None);
    assert_eq!(again.status.code(), Some(1));
    // It names every line of the key, whose value spans many: the body's lines and two more.
    let written = String::from_utf8_lossy(&body).lines().count() + 2;
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains(&format!(
            "already sets compact_prompt (lines 1-{written}); remove the key and its value first"
        )),
        "{said}"
    );
}

#[test]
fn the_kimi_and_pi_scripts_compact_the_newest_session_when_due_with_the_agent() {
    let bench = Bench::new();
    for (agent, relative, corpus) in [
        (
            "kimi",
            ".kimi/sessions/0b7d1f/5c0375b4-id/context.jsonl",
            OPENAI,
        ),
        (
            "pi",
            ".pi/agent/sessions/--work--/2025-11-20T23-33-50-805Z_d703a1a9.jsonl",
            PI,
        ),
    ] {
        let session = bench.session(relative, corpus);
        let before = fs::read(&session).unwrap();
        let script = root().join(format!("examples/{agent}/{agent}-compact.sh"));
        let script = script.to_str().unwrap();
        let run = |max: &str| {
            let mut command = Command::new("sh");
            command
                .arg(script)
                .current_dir(bench.dir.path())
                .env_clear()
                .env("PATH", bench.search_path())
                .env("HOME", bench.path("home"))
                .env("BENCH", bench.dir.path())
                .env("MAX_CONTEXT", max);
            command.output().unwrap()
        };
        bench.clear_calls();
        ok(&run("100000000"), agent);
        assert!(bench.calls().is_empty(), "{agent}: not due, no call");
        assert_eq!(fs::read(&session).unwrap(), before);

        let out = ok(&run("1000"), agent);
        assert!(out.contains("compacted"), "{out}");
        assert_eq!(bench.calls(), [agent], "{agent} wrote the summary");
        let after = fs::read_to_string(&session).unwrap();
        assert!(after.contains(&format!("summarised by {agent}")));
        if agent == "pi" {
            // pi's file is append-only: it starts with every line it had.
            assert!(after.as_bytes().starts_with(&before));
        }
        let estimate = condense().arg("estimate").arg(&session).output().unwrap();
        ok(&estimate, "the compacted session reads back");
    }
}

#[test]
fn the_fleet_script_merges_batches_into_one_total_with_xargs_and_with_parallel() {
    let bench = Bench::new();
    // Every corpus session four times: 36 files, three batches of 16 on one host.
    for (i, (corpus, _)) in crate::util::CORPUS.iter().enumerate() {
        for copy in 0..4 {
            bench.session(
                &format!(".claude/projects/-p{i}/{copy:02}-{i}.jsonl"),
                corpus,
            );
        }
    }
    let expected = condense()
        .args(["estimate", "--context"])
        .arg(bench.path("home/.claude/projects"))
        .output()
        .unwrap();
    let expected = json_lines(&expected.stdout).pop().unwrap();
    let block = readme_block("fleet");
    assert!(block.contains("sh examples/fleet/estimate-fleet.sh > local.jsonl"));
    let script = root().join("examples/fleet/estimate-fleet.sh");
    let script = script.to_str().unwrap();

    let check = |output: &Output, hosts: u64, host: &str| {
        let lines = json_lines(ok(output, "fleet").as_bytes());
        let (total, reports) = lines.split_last().unwrap();
        assert_eq!(reports.len(), 36);
        assert!(reports
            .iter()
            .all(|r| r["host"] == host && r.get("total").is_none()));
        assert_eq!(total["total"], true);
        assert_eq!(total["hosts"], hosts);
        assert_eq!(total["files"], expected["files"]);
        assert_eq!(total["tokens"], expected["tokens"]);
        assert_eq!(total["context_tokens"], expected["context_tokens"]);
    };
    check(&bench.run("sh", &[script], None), 1, "local");

    // Every host failing is a failure, not a report of zeros.
    let broken = Bench::new();
    broken.executable(
        "bin/condense",
        "#!/bin/sh\necho 'condense: error: broken' >&2\nexit 1\n",
    );
    let failed = broken.run("sh", &[script], None);
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        failed.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&failed.stdout)
    );
    assert!(String::from_utf8_lossy(&failed.stderr).contains("estimate-fleet: no host reported"));

    let parallel = Command::new("parallel").arg("--version").output();
    if parallel.is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install GNU parallel (see .ci/run)"
        );
        crate::util::say_skipped("the GNU parallel run: parallel is not installed");
        return;
    }
    // `:` is this machine to GNU parallel: the same pipeline as over ssh, without ssh.
    check(&bench.run("sh", &[script, ":"], None), 1, ":");
}
