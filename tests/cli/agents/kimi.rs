//! kimi-cli: its own `Context` restores condense's output (messages, checkpoint ids, token
//! count), and its own `SimpleCompaction.prepare` builds the same `## Message N` blocks as
//! `condense prompt`, on the corpus `context.jsonl` files and on condense's compacted output.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::harness::{
    inject, installed, kimi_python, newest_question, offline, prompt_parts, run_json, script,
};
use super::SUMMARY;
use crate::util::{condense, fixture, run_ok};

const SESSIONS: [&str; 2] = [
    "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
    "corpus/openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
];

/// The marker kimi-cli's compaction puts before its summary (`COMPACTION_OUTPUT_PREFIX`).
const PREFIX: &str =
    "<system>Previous context has been compacted. Here is the compaction output:</system>";

pub(super) fn ready() -> bool {
    installed("kimi-cli 1.49.0 (target/kimi-venv)", &kimi_python())
}

pub(super) fn kimi(script_name: &str, args: &[&str], session: &Path) -> Value {
    run_json(
        offline(kimi_python())
            .arg(script(script_name))
            .arg(session)
            .args(args),
    )
}

fn messages(context: &Value) -> Vec<Value> {
    context["messages"].as_array().unwrap().clone()
}

fn numbers(context: &Value, key: &str) -> Vec<u64> {
    context[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect()
}

#[test]
fn kimi_restores_the_summary_the_tail_fresh_checkpoints_and_a_fresh_token_count() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        let before = kimi("kimi_context.py", &[], &session);
        let out = inject(&session, SUMMARY, &[], dir.path(), "context.jsonl");
        let after = kimi("kimi_context.py", &[], &out);
        let (b, a) = (messages(&before), messages(&after));
        assert_eq!(
            after["rejected"], 0,
            "{file}: kimi skipped records of the output"
        );
        let first = a[0]["text"].as_str().unwrap();
        assert!(
            a[0]["role"] == "user" && first.starts_with(PREFIX) && first.contains(SUMMARY),
            "{file}: kimi's first message is not the compaction output: {first:.120}"
        );
        assert!(a.len() >= 2, "{file}: nothing kept after the summary");
        // The user's newest request first, when the last two messages do not reach it.
        let question = newest_question(&session);
        let is_question = |m: &Value| {
            m["role"] == "user"
                && question
                    .as_ref()
                    .is_some_and(|q| m["text"].as_str().unwrap_or_default().contains(q.as_str()))
        };
        let kept = if b.ends_with(&a[1..]) {
            &a[1..]
        } else {
            assert!(
                is_question(&a[1]),
                "{file}: what follows the summary is not the request"
            );
            &a[2..]
        };
        assert!(
            b.ends_with(kept),
            "{file}: the kept messages are not the original's last"
        );
        // kimi's own rule, condense's default: the last two user/assistant messages are kept.
        let turns = kept
            .iter()
            .filter(|m| m["role"] == "user" || m["role"] == "assistant")
            .count();
        assert!(
            turns >= 2,
            "{file}: {turns} user/assistant messages kept, not 2"
        );
        assert!(
            !a.contains(&b[0]) || is_question(&b[0]),
            "{file}: the first message survived compaction"
        );
        assert!(
            a.len() < b.len(),
            "{file}: {} messages, were {}",
            a.len(),
            b.len()
        );
        // kimi's own compaction starts the file over: checkpoint 0, then 1, 2, ... as turns come.
        let ids = numbers(&after, "checkpoint_ids");
        assert!(
            !ids.is_empty(),
            "{file}: no checkpoint, so /undo has nowhere to go"
        );
        assert_eq!(
            ids,
            (0..ids.len() as u64).collect::<Vec<_>>(),
            "{file}: checkpoint ids do not count from 0"
        );
        assert_eq!(
            after["n_checkpoints"],
            ids.len(),
            "{file}: kimi's next checkpoint id"
        );
        // The token count kimi resumes with describes the new context, not the old one.
        let (old, new) = (
            before["token_count"].as_u64().unwrap(),
            after["token_count"].as_u64().unwrap(),
        );
        assert!(new > 0 && new < old, "{file}: token count {new}, was {old}");
        let stale: HashSet<u64> = numbers(&before, "usage_counts").into_iter().collect();
        let carried: Vec<u64> = numbers(&after, "usage_counts")
            .into_iter()
            .filter(|n| stale.contains(n))
            .collect();
        assert!(
            carried.is_empty(),
            "{file}: stale _usage records carried over: {carried:?}"
        );
    }
}

#[test]
fn kimi_builds_the_same_message_blocks_as_condense_prompt() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for file in SESSIONS {
        let session = fixture(file);
        // The compacted output too: a second compaction must agree with kimi's as well.
        let compacted = inject(&session, SUMMARY, &[], dir.path(), "context.jsonl");
        for (name, input) in [
            (file.to_owned(), session),
            (format!("{file} injected"), compacted),
        ] {
            for preserve in ["2", "3"] {
                let theirs = kimi("kimi_prepare.py", &[preserve], &input);
                if theirs["parts"].is_null() {
                    // kimi has nothing to compact here; condense must say the same (exit 4).
                    condense()
                        .args(["prompt", "--preserve", preserve])
                        .arg(&input)
                        .assert()
                        .code(4);
                    continue;
                }
                let theirs: Vec<String> = serde_json::from_value(theirs["parts"].clone()).unwrap();
                let ours = prompt_parts(&input, &["--preserve", preserve]);
                // The last part is the prompt body: condense's own by design.
                assert!(theirs.len() > 1, "{name}: kimi's request has no messages");
                assert_eq!(
                    ours[..ours.len() - 1],
                    theirs[..theirs.len() - 1],
                    "{name} --preserve {preserve}: the message blocks differ from kimi's"
                );
            }
        }
    }
}

/// The kimi recipe's summariser agent, as kimi-cli itself loads it (`load_agent_spec`, which
/// resolves `extend: default`, and `_load_system_prompt`): no tools, no sub-agents, and
/// condense's system prompt, word for word. Print mode (`--quiet`) approves every tool call, so
/// a summariser with kimi's default tools could act on what the transcript asks.
#[test]
fn kimi_loads_the_recipe_s_summariser_with_no_tools_and_condense_s_system_prompt() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("summariser.yaml");
    let recipe = run_ok(condense().args(["recipes", "kimi/summariser.yaml"]));
    std::fs::write(&agent, &recipe.stdout).unwrap();
    let system = run_ok(condense().args(["prompt", "--system"]));
    std::fs::write(dir.path().join("system.md"), &system.stdout).unwrap();

    let loaded = run_json(
        offline(kimi_python())
            .arg(script("kimi_agent.py"))
            .arg(&agent),
    );
    assert_eq!(loaded["name"], "condense-summariser");
    assert_eq!(loaded["tools"], serde_json::json!([]), "{loaded}");
    assert_eq!(loaded["subagents"], serde_json::json!([]), "{loaded}");
    // kimi strips the file's outer whitespace before rendering it.
    let expected = String::from_utf8(system.stdout).unwrap();
    assert_eq!(loaded["system_prompt"], expected.trim());
    // kimi's default agent, for contrast, has tools: the file is what takes them away.
    let default_agent = kimi_python()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("lib/python3.13/site-packages/kimi_cli/agents/default/agent.yaml");
    let default = run_json(
        offline(kimi_python())
            .arg(script("kimi_agent.py"))
            .arg(&default_agent),
    );
    assert!(default["tools"].as_array().unwrap().len() > 5, "{default}");
}
