//! Handoffs between the agents: for every pair of source and target among Claude Code, Codex,
//! pi, kimi-cli and Gemini CLI, one session of the source (a fixture the source agent wrote, or
//! the kimi-cli corpus context, whose tail holds tool calls) goes through `inject --to`, and
//! the target agent itself takes the new session: Claude Code, Codex and Gemini CLI resume it
//! against the mock API and their request is the judge; pi and kimi-cli load it with their own
//! code (tests/agents/pi-context.mjs, kimi_context.py). Each must hold the summary and the
//! converted tail, and nothing the target cannot parse: no tool call or result structures, no
//! record the target rejects, user and assistant alternating where Gemini needs it.

use std::path::Path;

use serde_json::Value;

use super::harness::{inject, strings};
use super::{claude, codex, gemini, kimi, pi, SUMMARY};
use crate::util::{assert_success, fixture};

/// An agent of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Claude,
    Codex,
    Pi,
    Kimi,
    Gemini,
}

impl Agent {
    const ALL: [Agent; 5] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Pi,
        Agent::Kimi,
        Agent::Gemini,
    ];

    fn format(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
            Agent::Pi => "pi",
            Agent::Kimi => "openai",
            Agent::Gemini => "gemini",
        }
    }

    fn ready(self) -> bool {
        match self {
            Agent::Claude => claude::ready(),
            Agent::Codex => codex::ready(),
            Agent::Pi => pi::ready(),
            Agent::Kimi => kimi::ready(),
            Agent::Gemini => gemini::ready(),
        }
    }

    /// The session of this agent that is handed over, and the texts of its tail that must
    /// reach the target.
    fn source(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Agent::Claude => (
                "agents/claude-rewind.jsonl",
                &[
                    "NEWEST-CC-Q2: no, keep the reader",
                    "MOCK-REPLY to: NEWEST-CC-Q2",
                ],
            ),
            Agent::Codex => (
                "agents/codex-turns.jsonl",
                &["CODEX-Q3: run the tests.", "MOCK-REPLY to: CODEX-Q3"],
            ),
            Agent::Pi => (
                "agents/pi-branched.jsonl",
                &["NEWEST-Q2: no, keep the reader", "NEWEST-A2: done"],
            ),
            Agent::Kimi => (
                "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
                &[
                    "[ran the tool `Bash` with {\"command\": \"cd /testbed && python reproduce_issue.py\"}]",
                    "[`Bash` returned:]",
                ],
            ),
            Agent::Gemini => (
                "agents/gemini-turns.jsonl",
                &["GEM-Q4: commit the fix.", "MOCK-REPLY to: GEM-Q4"],
            ),
        }
    }

    /// What the source does not record that the target needs: kimi-cli and Gemini CLI keep no
    /// working directory in their sessions (Gemini CLI only its hash), kimi-cli no model.
    fn missing(self, target: Agent) -> Vec<&'static str> {
        let mut flags = Vec::new();
        let needs_cwd = target != Agent::Kimi;
        if needs_cwd && matches!(self, Agent::Kimi | Agent::Gemini) {
            flags.extend(["--cwd", "/tmp/handoff-project"]);
        }
        if target == Agent::Pi && self == Agent::Kimi {
            flags.extend(["--to-model", "kimi-k2-turbo-preview"]);
        }
        flags
    }
}

/// The text the target takes from `session`, after checking it parsed all of it.
fn taken(target: Agent, session: &Path, name: &str) -> String {
    match target {
        Agent::Claude => {
            let messages = claude::resume(session);
            let blocks: Vec<&Value> = messages
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .collect();
            assert!(
                blocks
                    .iter()
                    .all(|b| b["type"] != "tool_use" && b["type"] != "tool_result"),
                "{name}: Claude Code sent tool blocks"
            );
            strings(&messages)
        }
        Agent::Codex => {
            let input = codex::resume(session);
            for item in input.as_array().unwrap() {
                let kind = item["type"].as_str().unwrap_or_default();
                assert!(!kind.contains("call"), "{name}: Codex sent a {kind} item");
            }
            strings(&input)
        }
        Agent::Gemini => {
            let history = gemini::history(session);
            assert_eq!(
                history[0].0, "user",
                "{name}: Gemini's history opens with the model"
            );
            for pair in history.windows(2) {
                assert_ne!(
                    pair[0].0, pair[1].0,
                    "{name}: two {} turns in a row",
                    pair[0].0
                );
            }
            let contents = gemini::resume(session);
            for part in contents
                .iter()
                .filter_map(|c| c["parts"].as_array())
                .flatten()
            {
                assert!(
                    part.get("functionCall").is_none() && part.get("functionResponse").is_none(),
                    "{name}: Gemini sent a function part"
                );
            }
            strings(&Value::from(contents))
        }
        Agent::Pi => {
            let context = pi::context(session);
            let roles: Vec<&str> = context["agentRoles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            assert!(
                roles.iter().all(|r| matches!(*r, "user" | "assistant")),
                "{name}: pi's context has other roles: {roles:?}"
            );
            assert_eq!(context["version"], 3, "{name}: pi's session version");
            strings(&context["messages"])
        }
        Agent::Kimi => {
            let context = kimi::kimi("kimi_context.py", &[], session);
            assert_eq!(context["rejected"], 0, "{name}: kimi rejected records");
            let messages = context["messages"].as_array().unwrap();
            assert!(
                messages
                    .iter()
                    .all(|m| matches!(m["role"].as_str(), Some("user" | "assistant"))),
                "{name}: kimi restored other roles"
            );
            assert_eq!(context["checkpoint_ids"], serde_json::json!([0]));
            assert!(context["token_count"].as_u64().unwrap() > 0);
            strings(&context["messages"])
        }
    }
}

/// Every source handed to `target`, which takes the summary and the converted tail.
fn hand_over_to(target: Agent) {
    if !target.ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for source in Agent::ALL {
        if source == target {
            continue;
        }
        let name = format!("{source:?} -> {target:?}");
        let (file, markers) = source.source();
        let mut extra = vec!["--to", target.format()];
        let missing = source.missing(target);
        extra.extend(missing.iter().copied());
        let out = inject(&fixture(file), SUMMARY, &extra, dir.path(), "handoff.jsonl");
        let text = taken(target, &out, &name);
        assert!(text.contains(SUMMARY), "{name}: the summary is not there");
        assert!(
            text.contains("handed over from another agent"),
            "{name}: the handoff's opening is not there"
        );
        for marker in markers {
            assert!(text.contains(marker), "{name}: the tail lost {marker:.60}");
        }
        assert!(
            !text.contains("ABANDONED"),
            "{name}: an abandoned branch came along"
        );
    }
}

#[test]
fn claude_code_resumes_a_session_from_every_other_agent() {
    hand_over_to(Agent::Claude);
}

#[test]
fn codex_resumes_a_session_from_every_other_agent() {
    hand_over_to(Agent::Codex);
}

#[test]
fn gemini_resumes_a_session_from_every_other_agent() {
    hand_over_to(Agent::Gemini);
}

#[test]
fn pi_loads_a_session_from_every_other_agent() {
    hand_over_to(Agent::Pi);
}

#[test]
fn kimi_loads_a_session_from_every_other_agent() {
    hand_over_to(Agent::Kimi);
}

/// `inject --to TARGET --to-session-dir HOME` for the Codex fixture, run with `cwd` as the new
/// session's working directory: the resume command it prints and the id in it.
fn placed(target: &str, home: &Path, cwd: &Path) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, SUMMARY).unwrap();
    let output = crate::util::condense()
        .args(["inject", "--to", target, "--cwd"])
        .arg(cwd)
        .arg("--to-session-dir")
        .arg(home)
        .arg("--summary")
        .arg(&summary)
        .arg(fixture("agents/codex-turns.jsonl"))
        .output()
        .unwrap();
    assert_success(&output, "");
    let resume = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    let last = resume.rsplit(' ').next().unwrap().to_owned();
    (resume, last)
}

/// The session folders `--to-session-dir` writes into are the ones the agents' own code looks
/// in: Claude Code and Codex resume the id the printed command names from their homes, pi
/// lists the session for its working directory, kimi-cli's `Session.find` finds it.
#[test]
fn each_agent_finds_a_handoff_where_to_session_dir_put_it() {
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("home");
    let project = root.path().join("the.project");
    std::fs::create_dir_all(&project).unwrap();
    if claude::ready() {
        let (resume, id) = placed("claude-code", &home.join(".claude"), &project);
        assert!(resume.contains("claude --resume"), "{resume}");
        let requests = super::harness::isolated(
            &root.path().join("claude-record"),
            &project,
            &[("HOME", home.as_os_str())],
            claude::RESUME,
            &[
                super::harness::agent_bin("claude").as_os_str(),
                std::ffi::OsStr::new(&id),
                std::ffi::OsStr::new(claude::PROMPT),
            ],
        );
        let sent = strings(&Value::from(requests));
        assert!(
            sent.contains(SUMMARY) && sent.contains("CODEX-Q3"),
            "Claude Code did not resume the placed session"
        );
    }
    if codex::ready() {
        let codex_home = home.join(".codex");
        let (resume, _) = placed("codex", &codex_home, &project);
        let id = resume.rsplit(' ').next().unwrap().to_owned();
        std::fs::write(codex_home.join("config.in"), codex::CONFIG).unwrap();
        let requests = super::harness::isolated(
            &root.path().join("codex-record"),
            &project,
            &[
                ("HOME", home.as_os_str()),
                ("CODEX_HOME", codex_home.as_os_str()),
            ],
            codex::RESUME,
            &[
                super::harness::agent_bin("codex").as_os_str(),
                std::ffi::OsStr::new(&id),
                std::ffi::OsStr::new(codex::PROMPT),
            ],
        );
        let sent = strings(&Value::from(requests));
        assert!(
            sent.contains(SUMMARY) && sent.contains("CODEX-Q3"),
            "Codex did not resume the placed session"
        );
    }
    if pi::ready() {
        let agent_dir = home.join(".pi/agent");
        let (resume, file) = placed("pi", &agent_dir, &project);
        assert!(resume.contains("pi --session"), "{resume}");
        let script = format!(
            "import {{ sessions }} from {:?}; \
             const found = await sessions.SessionManager.list({:?}); \
             console.log(JSON.stringify(found.map((s) => s.path)));",
            super::harness::script("pi-modules.mjs")
                .display()
                .to_string(),
            project.display().to_string(),
        );
        let listed = super::harness::run_json(
            std::process::Command::new("node")
                .args(["--input-type=module", "-e", &script])
                .env("PI_CODING_AGENT_DIR", &agent_dir),
        );
        assert_eq!(
            listed,
            serde_json::json!([file]),
            "pi does not list the placed session for its directory"
        );
    }
    if kimi::ready() {
        let share = home.join(".kimi");
        let (_, id) = placed("openai", &share, &project);
        let script = "import asyncio, json, sys\n\
                      from pathlib import Path\n\
                      from kaos.path import KaosPath\n\
                      from kimi_cli.session import Session\n\
                      s = asyncio.run(Session.find(KaosPath.unsafe_from_local_path(Path(sys.argv[1])), sys.argv[2]))\n\
                      print(json.dumps(None if s is None else str(s.context_file)))";
        let found = super::harness::run_json(
            std::process::Command::new(super::harness::kimi_python())
                .args(["-c", script])
                .arg(&project)
                .arg(&id)
                .env("KIMI_SHARE_DIR", &share),
        );
        assert!(
            found.as_str().is_some_and(|f| f.ends_with("context.jsonl")),
            "kimi-cli does not find the placed session: {found}"
        );
    }
}

/// No model at all: caveman's summary of a Claude Code session is the summary of its handoff,
/// and Codex resumes it.
#[test]
fn a_handoff_with_caveman_as_its_summary_needs_no_model() {
    if !codex::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("agents/claude-rewind.jsonl");
    let caveman = crate::util::condense_ok(&[std::ffi::OsStr::new("caveman"), session.as_os_str()]);
    let caveman = String::from_utf8(caveman).unwrap();
    let mut lines = caveman.lines();
    assert_eq!(lines.next(), Some("# caveman"), "{caveman}");
    // The title names nothing of the session; its first line under it does.
    let first = lines.next().unwrap().to_owned();
    let out = inject(
        &session,
        &caveman,
        &["--to", "codex"],
        dir.path(),
        "rollout.jsonl",
    );
    let sent = taken(Agent::Codex, &out, "caveman Claude -> Codex");
    assert!(
        sent.contains(&first),
        "caveman's summary is not in Codex's request"
    );
    assert!(
        sent.contains("MOCK-REPLY to: NEWEST-CC-Q2"),
        "the tail is lost"
    );
}

/// Issue 27: a handoff to Claude Code records the size of the context it hands over (its
/// assistant lines' `usage`), where it recorded 0, so a status line does not read `ctx 0`
/// until Claude Code's first reply. The figure is the size of the turns up to the last
/// assistant line, each of which Claude Code itself sends on resuming the session.
#[test]
fn a_handoff_to_claude_code_records_the_size_of_its_context() {
    use condense::tokens::{Family, Tokenizer};
    if !Agent::Claude.ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for source in [Agent::Codex, Agent::Pi, Agent::Gemini, Agent::Claude] {
        let (file, _) = source.source();
        let mut args = vec!["--to", "claude-code"];
        args.extend(source.missing(Agent::Claude));
        let session = inject(&fixture(file), SUMMARY, &args, dir.path(), "h.jsonl");
        let output = crate::util::condense()
            .args([
                "estimate",
                "--context",
                "--tokenizer",
                "fast",
                "--family",
                "claude",
            ])
            .arg(&session)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let context = &report["context"];
        assert_eq!(context["source"], "usage", "{file}: {context}");
        let recorded = context["tokens"].as_u64().unwrap();
        // Every turn of the new session is in what Claude Code sends, and the figure is the
        // size of those turns up to the last assistant line (Claude Code adds its own system
        // prompt, skills and reminders, which no session file records).
        let sent = strings(&claude::resume(&session));
        let text = std::fs::read_to_string(&session).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let last_assistant = lines
            .iter()
            .rposition(|l| l["type"] == "assistant")
            .unwrap();
        let mut turns = 0;
        for line in &lines[..=last_assistant] {
            let content = &line["message"]["content"];
            let turn = content
                .as_str()
                .or_else(|| content[0]["text"].as_str())
                .unwrap();
            assert!(
                sent.contains(turn.trim()),
                "{file}: a turn is not sent: {turn:.80}"
            );
            turns += Tokenizer::Fast(Family::Claude).text_tokens(turn);
        }
        let usage = &lines[last_assistant]["message"]["usage"];
        let figure =
            usage["input_tokens"].as_u64().unwrap() + usage["output_tokens"].as_u64().unwrap();
        assert!(
            figure > 0 && figure == turns,
            "{file}: usage {usage}, the turns {turns}"
        );
        assert!(
            recorded >= figure,
            "{file}: estimate --context {recorded} < {figure}"
        );
    }
}
