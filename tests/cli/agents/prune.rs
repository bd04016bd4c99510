//! `condense prune`'s output loaded by each agent's own code: Claude Code and Codex resume it
//! against the mock API, pi's SessionManager, Gemini CLI's session loader and kimi-cli's
//! Context read it. Each must see the same conversation, every tool result still after its
//! call, with the placeholders in place of the old outputs.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::harness::{agents_dir, installed, kimi_python, node_loader, run_json, script};
use super::{claude, codex};
use crate::util::{condense, fixture};

const PLACEHOLDER: &str = "[condense pruned";

/// `condense prune ARGS SESSION` into `dir/name`, which must prune something.
fn prune(session: &Path, args: &[&str], dir: &Path, name: &str) -> std::path::PathBuf {
    let output = condense()
        .arg("prune")
        .args(args)
        .arg(session)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "prune {args:?} {}: {}",
        session.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let path = dir.join(name);
    std::fs::write(&path, output.stdout).unwrap();
    path
}

/// A tool output of `lines` numbered lines: long enough for prune to replace.
fn long_output(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("line {i} of a long tool output\n"))
        .collect()
}

/// Whether Gemini CLI is installed (its bundle holds the loader the Gemini tests call).
fn gemini_ready() -> bool {
    let bundle = agents_dir().join("node_modules/@google/gemini-cli/bundle");
    installed("Gemini CLI (@google/gemini-cli)", &bundle)
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// The blocks of an Anthropic message's content.
fn blocks(message: &Value) -> Vec<Value> {
    message["content"].as_array().cloned().unwrap_or_default()
}

#[test]
fn claude_code_resumes_a_pruned_session_with_every_result_after_its_call() {
    if !claude::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
    let before = claude::resume(&session);
    let pruned = prune(
        &session,
        &["--keep-thinking", "1", "--clear-inputs"],
        dir.path(),
        "pruned.jsonl",
    );
    let after = claude::resume(&pruned);
    let (old, new) = (before.as_array().unwrap(), after.as_array().unwrap());
    assert_eq!(old.len(), new.len(), "Claude Code sends as many messages");
    let text = after.to_string();
    assert!(
        count(&text, PLACEHOLDER) > 0,
        "no placeholder reached the request"
    );
    assert!(text.len() < before.to_string().len());
    for (i, message) in new.iter().enumerate() {
        for block in blocks(message)
            .iter()
            .filter(|b| b["type"] == "tool_result")
        {
            let id = &block["tool_use_id"];
            let called = i > 0
                && blocks(&new[i - 1])
                    .iter()
                    .any(|b| b["type"] == "tool_use" && &b["id"] == id);
            assert!(
                called,
                "message {i}: a tool_result without its tool_use just before"
            );
        }
    }
    let thinking = |messages: &[Value]| -> Vec<Value> {
        messages
            .iter()
            .flat_map(blocks)
            .filter(|b| b["type"] == "thinking")
            .collect()
    };
    let kept = thinking(new);
    assert_eq!(kept.len(), 1, "only the newest thinking turn stays");
    assert_eq!(
        kept.last(),
        thinking(old).last(),
        "it stays as it was, signature and all"
    );
}

#[test]
fn codex_resumes_a_pruned_rollout_with_its_call_and_output_paired() {
    if !codex::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A rollout Codex wrote (the corpus one is a fixture Codex refuses), with one long shell
    // output added after its first answer: the mock gives no tool calls of its own.
    let base = std::fs::read_to_string(fixture("agents/codex-turns.jsonl")).unwrap();
    let long = long_output(80);
    let call = r#"{"timestamp":"2026-12-01T08:38:34.180Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_prune1"}}"#;
    let output = serde_json::json!({"timestamp": "2026-12-01T08:38:34.181Z", "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "call_prune1", "output": long}});
    let lines: Vec<&str> = base.lines().collect();
    let mut with_tool: Vec<String> = lines[..16].iter().map(|l| (*l).to_owned()).collect();
    with_tool.push(call.to_owned());
    with_tool.push(output.to_string());
    with_tool.extend(lines[16..].iter().map(|l| (*l).to_owned()));
    let session = dir.path().join("with-tool.jsonl");
    std::fs::write(&session, with_tool.join("\n") + "\n").unwrap();
    let before = codex::resume(&session);
    let pruned = prune(&session, &["--keep", "0"], dir.path(), "pruned.jsonl");
    let after = codex::resume(&pruned);
    let items = |input: &Value| -> Vec<Value> { input.as_array().unwrap().clone() };
    assert_eq!(items(&before).len(), items(&after).len());
    let pair: Vec<Value> = items(&after)
        .iter()
        .filter(|item| item["call_id"] == "call_prune1")
        .map(|item| item["type"].clone())
        .collect();
    assert_eq!(pair, ["function_call", "function_call_output"]);
    let output = items(&after)
        .into_iter()
        .find(|item| item["type"] == "function_call_output")
        .unwrap();
    assert!(
        output["output"].to_string().contains(PLACEHOLDER),
        "{output}"
    );
}

#[test]
fn pi_loads_a_pruned_session_as_the_same_conversation() {
    let pi = agents_dir().join("node_modules/@mariozechner/pi-coding-agent");
    if !installed("pi (@mariozechner/pi-coding-agent)", &pi) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/pi/pi-mono-large-session.jsonl");
    let before = node_loader("pi-context.mjs", &session);
    let pruned = prune(&session, &["--clear-inputs"], dir.path(), "pruned.jsonl");
    let after = node_loader("pi-context.mjs", &pruned);
    assert_eq!(
        before["agentRoles"], after["agentRoles"],
        "the same messages, in order"
    );
    let placeholders = after["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["text"]
                .as_str()
                .unwrap_or_default()
                .starts_with(PLACEHOLDER)
        })
        .count();
    assert!(placeholders > 0);
    assert!(after["estimatedTokens"].as_u64() < before["estimatedTokens"].as_u64());
}

#[test]
fn gemini_loads_a_pruned_session_with_the_placeholder_in_its_function_response() {
    if !gemini_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The corpus session's one tool output, made long enough to prune.
    let long = long_output(60);
    let text =
        std::fs::read_to_string(fixture("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl"))
            .unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut value: Value = serde_json::from_str(line).unwrap();
            if let Some(Value::Array(calls)) = value.get_mut("toolCalls") {
                for call in calls {
                    if let Some(response) = call.pointer_mut("/result/0/functionResponse/response")
                    {
                        *response = serde_json::json!({ "output": long });
                    }
                }
            }
            value.to_string()
        })
        .collect();
    let session = dir.path().join("long.jsonl");
    std::fs::write(&session, lines.join("\n") + "\n").unwrap();
    let before = node_loader("gemini-history.mjs", &session);
    let pruned = prune(&session, &["--keep", "0"], dir.path(), "pruned.jsonl");
    let after = node_loader("gemini-history.mjs", &pruned);
    let roles = |v: &Value| -> Vec<Value> {
        v["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["role"].clone())
            .collect()
    };
    assert_eq!(roles(&before), roles(&after));
    assert_eq!(count(&after["history"].to_string(), PLACEHOLDER), 1);
}

#[test]
fn kimi_restores_a_pruned_context_with_its_fresh_token_count() {
    if !installed("kimi-cli 1.49.0 (target/kimi-venv)", &kimi_python()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let session = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let restore = |path: &Path| {
        run_json(
            Command::new(kimi_python())
                .arg(script("kimi_context.py"))
                .arg(path),
        )
    };
    let before = restore(&session);
    let pruned = prune(&session, &["--clear-inputs"], dir.path(), "context.jsonl");
    let after = restore(&pruned);
    assert_eq!(after["rejected"], 0, "kimi-cli rejects no record");
    let roles = |v: &Value| -> Vec<Value> {
        v["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].clone())
            .collect()
    };
    assert_eq!(roles(&before), roles(&after));
    let report = condense()
        .args(["prune", "--report", "--clear-inputs"])
        .arg(&session)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(
        after["token_count"], report["tokens_after"],
        "kimi-cli's count is the new size"
    );
    assert!(after["token_count"].as_u64() < before["token_count"].as_u64());
}

/// Issue 27: Gemini CLI writes the whole history as a `$set` of `messages` when it resumes,
/// rewinds or imports a session. The prune is made there, so the history Gemini CLI's own
/// loader restores holds the placeholder instead of the output (before, the line was copied
/// unchanged while a smaller size was recorded), and a second prune finds nothing to do.
#[test]
fn gemini_loads_a_pruned_set_history_with_the_placeholder() {
    if !gemini_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let long = long_output(60);
    let text =
        std::fs::read_to_string(fixture("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl"))
            .unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_owned();
    let messages: Vec<Value> = lines
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|value| value.get("type").is_some())
        .map(|mut value| {
            if let Some(Value::Array(calls)) = value.get_mut("toolCalls") {
                for call in calls {
                    if let Some(response) = call.pointer_mut("/result/0/functionResponse/response")
                    {
                        *response = serde_json::json!({ "output": long });
                    }
                }
            }
            value
        })
        .collect();
    let set = serde_json::json!({"$set": {"messages": messages, "lastUpdated": "t"}});
    let session = dir.path().join("resumed.jsonl");
    std::fs::write(&session, format!("{header}\n{set}\n")).unwrap();
    let before = node_loader("gemini-history.mjs", &session);
    assert!(before["history"]
        .to_string()
        .contains("line 30 of a long tool output"));
    let pruned = prune(&session, &["--keep", "0"], dir.path(), "pruned.jsonl");
    let after = node_loader("gemini-history.mjs", &pruned);
    let roles = |v: &Value| -> Vec<Value> {
        v["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["role"].clone())
            .collect()
    };
    assert_eq!(roles(&before), roles(&after));
    let history = after["history"].to_string();
    assert_eq!(count(&history, PLACEHOLDER), 1, "{history}");
    assert!(!history.contains("line 30 of a long tool output"));
    let again = condense()
        .args(["prune", "--keep", "0"])
        .arg(&pruned)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(4), "a second prune prunes again");
}
