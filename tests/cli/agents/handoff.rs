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
use crate::util::fixture;

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
            flags.extend(["--model", "kimi-k2-turbo-preview"]);
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
                assert!(
                    !kind.contains("call"),
                    "{name}: Codex sent a {kind} item"
                );
            }
            strings(&input)
        }
        Agent::Gemini => {
            let history = gemini::history(session);
            assert_eq!(history[0].0, "user", "{name}: Gemini's history opens with the model");
            for pair in history.windows(2) {
                assert_ne!(pair[0].0, pair[1].0, "{name}: two {} turns in a row", pair[0].0);
            }
            let contents = gemini::resume(session);
            for part in contents.iter().filter_map(|c| c["parts"].as_array()).flatten() {
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
