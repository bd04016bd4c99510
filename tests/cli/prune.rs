//! `condense prune` on the real corpus sessions: the output reads in its own format with every
//! tool call still paired with its result, changes nothing but the pruned values, keeps
//! protected tools and the last turns verbatim, respects `--target` and the thinking rules, is
//! a no-op when run again, and leaves `estimate --context` and `--check` measuring the pruned
//! context, so a Makefile step that prunes when due prunes once.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use condense::transcript::load::{LoadOptions, Transcript};
use condense::transcript::{Part, Record};
use serde_json::Value;

use crate::util::{assert_success, condense, fixture, json_lines, run_ok, CORPUS};

const PLACEHOLDER: &str = "[condense pruned";

/// The options that prune the most: nothing recent kept, every size, arguments and thinking.
const AGGRESSIVE: [&str; 7] = [
    "--keep",
    "0",
    "--min-tokens",
    "0",
    "--clear-inputs",
    "--keep-thinking",
    "1",
];

/// `condense prune ARGS FILE`: its stdout and exit status.
fn prune(args: &[&str], file: &Path) -> (Vec<u8>, i32) {
    let output = condense()
        .arg("prune")
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 4,
        "prune {args:?} {} exited {code}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout, code)
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn context_tokens(path: &Path) -> u64 {
    let output = run_ok(condense().args(["estimate", "--context"]).arg(path));
    json_lines(&output.stdout)[0]["context"]["tokens"]
        .as_u64()
        .unwrap()
}

fn parse<'a>(name: &str, bytes: &'a [u8]) -> Transcript<'a> {
    Transcript::parse(name, bytes, LoadOptions::default())
        .unwrap_or_else(|e| panic!("{name}: the pruned session no longer reads: {e:#}"))
}

/// The tool calls of the live context (id → name) and its results (id → text), in order.
fn tools(records: &[Record]) -> (HashMap<String, String>, Vec<(String, String)>) {
    let mut calls = HashMap::new();
    let mut results = Vec::new();
    for message in records.iter().filter_map(Record::message) {
        for part in &message.parts {
            match part {
                Part::ToolCall {
                    id: Some(id), name, ..
                } => {
                    calls.insert(id.to_string(), name.to_string());
                }
                Part::ToolResult {
                    call_id: Some(id),
                    text,
                } => results.push((id.to_string(), text.to_string())),
                _ => {}
            }
        }
        if let Some(id) = &message.call_id {
            let text: String = message
                .parts
                .iter()
                .filter_map(|part| match part {
                    Part::Text(text) | Part::ToolResult { text, .. } => Some(text.as_ref()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n");
            results.push((id.to_string(), text));
        }
    }
    (calls, results)
}

/// Results whose id no call of the context made before them.
fn orphans(records: &[Record]) -> usize {
    let mut seen = HashSet::new();
    let mut orphans = 0;
    for message in records.iter().filter_map(Record::message) {
        for id in message.answered_ids() {
            orphans += usize::from(!seen.contains(id));
        }
        seen.extend(message.call_ids().map(str::to_owned));
    }
    orphans
}

/// Whether `new` differs from `old` only where prune may change a line: values that now hold a
/// placeholder, removed thinking blocks, and (Claude Code) a `parentUuid` relinked past a
/// removed line.
fn explained(old: &Value, new: &Value) -> bool {
    if old == new {
        return true;
    }
    let replaced = new.to_string().contains(PLACEHOLDER) && !old.to_string().contains(PLACEHOLDER);
    match (old, new) {
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => a
            .iter()
            .all(|(k, v)| k == "parentUuid" || explained(v, &b[k])),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).all(|(x, y)| explained(x, y))
        }
        (Value::Array(a), Value::Array(b)) => {
            let thinking = |v: &&Value| {
                matches!(
                    v.get("type").and_then(Value::as_str),
                    Some("thinking" | "redacted_thinking" | "think")
                ) || v.get("subject").is_some()
            };
            let kept: Vec<&Value> = a.iter().filter(|v| !thinking(v)).collect();
            let rest: Vec<&Value> = b.iter().filter(|v| !thinking(v)).collect();
            if kept.len() == rest.len() {
                return kept.iter().zip(&rest).all(|(x, y)| explained(x, y));
            }
            // A list of parts replaced by a one-part placeholder.
            replaced
        }
        // The value itself was replaced by one holding the placeholder.
        _ => replaced,
    }
}

/// Checks one pruned output against its input: it reads in the same format, the live context
/// keeps its pairs, and every line is the original one, a removed thinking line, the original
/// with pruned values, or the one appended marker.
fn check_output(name: &str, input: &[u8], output: &[u8]) {
    let before = parse(name, input);
    let after = parse(name, output);
    assert_eq!(before.format, after.format, "{name}");
    assert_eq!(
        orphans(before.context()),
        orphans(after.context()),
        "{name}: a tool result lost its call"
    );
    let (calls_before, results_before) = tools(before.context());
    let (calls_after, results_after) = tools(after.context());
    assert_eq!(calls_before, calls_after, "{name}: the calls changed");
    let ids =
        |results: &[(String, String)]| results.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&results_before), ids(&results_after), "{name}");

    let old_lines: Vec<&[u8]> = input
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let new_lines: Vec<&[u8]> = output
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let old_set: HashSet<&[u8]> = old_lines.iter().copied().collect();
    let mut changed = 0;
    let mut j = 0;
    for (i, new) in new_lines.iter().enumerate() {
        if old_set.contains(new) {
            while j < old_lines.len() && old_lines[j] != *new {
                j += 1;
            }
            j += 1;
            continue;
        }
        let new_value: Value = serde_json::from_slice(new).unwrap();
        if i == new_lines.len() - 1 && new.len() < 2000 {
            continue; // the marker
        }
        // The original of a changed line is the next one not dropped whole.
        let mut found = false;
        while j < old_lines.len() {
            let old_value: Value = serde_json::from_slice(old_lines[j]).unwrap();
            j += 1;
            if explained(&old_value, &new_value) {
                found = true;
                break;
            }
        }
        assert!(
            found,
            "{name}: line {} changed beyond its pruned values",
            i + 1
        );
        changed += 1;
    }
    assert!(changed > 0 || new_lines.len() <= old_lines.len() + 1);
}

#[test]
fn every_corpus_session_still_reads_with_its_pairs_and_only_pruned_values_changed() {
    for (path, _) in CORPUS {
        let file = fixture(path);
        let input = std::fs::read(&file).unwrap();
        for args in [&[][..], &AGGRESSIVE[..]] {
            let (output, code) = prune(args, &file);
            if code == 4 {
                assert_eq!(output, input, "{path}: nothing to prune writes the input");
                continue;
            }
            check_output(path, &input, &output);
        }
    }
}

#[test]
fn pruning_again_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    for (path, _) in CORPUS {
        for args in [&[][..], &AGGRESSIVE[..]] {
            let (once, _) = prune(args, &fixture(path));
            let pruned = write_temp(dir.path(), "once.jsonl", &once);
            let (twice, code) = prune(args, &pruned);
            assert_eq!(code, 4, "{path} {args:?}: a second prune found more to do");
            assert_eq!(twice, once, "{path}");
        }
    }
}

#[test]
fn protected_tools_and_the_last_turns_keep_their_outputs() {
    for (path, _) in CORPUS {
        let file = fixture(path);
        let input = std::fs::read(&file).unwrap();
        let before = parse(path, &input);
        let (calls, results) = tools(before.context());
        // Protect the most used tool, and keep the last user turn.
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for (id, _) in &results {
            if let Some(name) = calls.get(id) {
                *counts.entry(name).or_default() += 1;
            }
        }
        let Some((&busiest, _)) = counts.iter().max_by_key(|(name, n)| (**n, **name)) else {
            continue;
        };
        let args = [
            "--keep",
            "0",
            "--min-tokens",
            "0",
            "--keep-turns",
            "1",
            "--protect",
            busiest,
        ];
        let (output, code) = prune(&args, &file);
        if code == 4 {
            continue;
        }
        let after = parse(path, &output);
        let (_, pruned) = tools(after.context());
        // Where the last user turn begins, in the live context.
        let turns: Vec<usize> = before
            .context()
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.message()
                    .is_some_and(condense::transcript::classify::is_real_user_request)
            })
            .map(|(i, _)| i)
            .collect();
        let recent = turns.last().copied().unwrap_or(0);
        let positions: HashMap<&str, usize> = before
            .context()
            .iter()
            .enumerate()
            .flat_map(|(i, r)| {
                r.message()
                    .into_iter()
                    .flat_map(move |m| m.answered_ids().map(move |id| (id, i)).collect::<Vec<_>>())
            })
            .collect();
        let mut kept_protected = 0;
        for ((id, old), (_, new)) in results.iter().zip(&pruned) {
            let protected = calls.get(id).map(String::as_str) == Some(busiest);
            let late = positions.get(id.as_str()).is_some_and(|&p| p >= recent);
            if protected || late {
                assert_eq!(old, new, "{path}: the result of {id} was pruned");
                kept_protected += usize::from(protected);
            }
        }
        assert!(kept_protected > 0, "{path}: {busiest} has results");
        assert!(
            results.iter().zip(&pruned).any(|(a, b)| a.1 != b.1),
            "{path}: something else was pruned"
        );
    }
}

#[test]
fn a_target_is_reached_oldest_first_and_no_further() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (path, _) in CORPUS {
        let file = fixture(path);
        let before = context_tokens(&file);
        let (all, code) = prune(&["--keep", "0", "--min-tokens", "0"], &file);
        if code == 4 {
            continue;
        }
        let floor = context_tokens(&write_temp(dir.path(), "all.jsonl", &all));
        let target = floor + (before - floor) / 2;
        let (output, _) = prune(
            &[
                "--keep",
                "0",
                "--min-tokens",
                "0",
                "--target",
                &target.to_string(),
            ],
            &file,
        );
        let pruned = write_temp(dir.path(), "target.jsonl", &output);
        let reached = context_tokens(&pruned);
        assert!(reached <= target, "{path}: {reached} > --target {target}");
        assert!(reached > floor, "{path}: --target pruned everything");
        // Oldest first: the results pruned are the oldest of those pruning everything prunes.
        let pruned_at = |bytes: &[u8]| -> Vec<usize> {
            let (_, results) = tools(parse(path, bytes).context());
            (0..results.len())
                .filter(|&i| results[i].1.starts_with(PLACEHOLDER))
                .collect()
        };
        let everything = pruned_at(&all);
        let some = pruned_at(&output);
        assert!(some.len() < everything.len(), "{path}");
        assert_eq!(
            some[..],
            everything[..some.len()],
            "{path}: not oldest first"
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} sessions could be pruned");
}

#[test]
fn thinking_goes_whole_except_the_last_turns() {
    for (path, _) in CORPUS {
        let file = fixture(path);
        let input = std::fs::read(&file).unwrap();
        let before = parse(path, &input);
        let thinking = |records: &[Record]| -> Vec<String> {
            records
                .iter()
                .filter_map(Record::message)
                .flat_map(|m| m.parts.iter())
                .filter_map(|p| match p {
                    Part::Thinking(text) => Some(text.to_string()),
                    _ => None,
                })
                .collect()
        };
        let old = thinking(before.context());
        if old.len() < 2 {
            continue;
        }
        let (untouched, _) = prune(&["--keep", "0", "--min-tokens", "0"], &file);
        assert_eq!(
            thinking(parse(path, &untouched).context()),
            old,
            "{path}: thinking without --keep-thinking"
        );
        let (output, code) = prune(&["--keep-thinking", "1", "--keep", "1000"], &file);
        assert_eq!(code, 0, "{path}");
        let after = parse(path, &output);
        let new = thinking(after.context());
        assert!(
            !new.is_empty() && new.len() < old.len(),
            "{path}: {} of {}",
            new.len(),
            old.len()
        );
        assert_eq!(
            new[..],
            old[old.len() - new.len()..],
            "{path}: the newest thinking stays"
        );
        // What stays is byte for byte what was there, signature and all.
        let original = String::from_utf8_lossy(&input);
        for value in String::from_utf8_lossy(&output)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let blocks = value
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("thinking"));
            for block in blocks {
                let signature = block
                    .get("signature")
                    .or_else(|| block.get("thinkingSignature"));
                if let Some(Value::String(signature)) = signature {
                    assert!(
                        original.contains(signature.as_str()),
                        "{path}: a signature changed"
                    );
                }
            }
        }
    }
}

/// Runs the Makefile rule "prune the session when compaction is due" in `dir`.
fn make(dir: &Path) -> String {
    let output = std::process::Command::new("make")
        .args(["-s", "prune"])
        .current_dir(dir)
        .env("CONDENSE", assert_cmd::cargo::cargo_bin("condense"))
        .output()
        .expect("make runs");
    assert_success(&output, "");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_makefile_step_that_prunes_when_due_prunes_once() {
    for (path, _) in CORPUS {
        let file = fixture(path);
        let before = context_tokens(&file);
        let (_, code) = prune(&[], &file);
        if code == 4 {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&file, dir.path().join("session.jsonl")).unwrap();
        // Due at the session's own size: a prune that did not void the old usage would leave
        // it due, and the next run would prune again.
        let makefile = format!(
            "prune:\n\t@if $$CONDENSE estimate --check --reserved 0 --trigger-ratio 1 --max-context {before} session.jsonl >/dev/null; \\\n\
             \tthen echo fits; else $$CONDENSE prune --in-place session.jsonl && echo pruned; fi\n"
        );
        std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
        assert_eq!(make(dir.path()).trim(), "pruned", "{path}");
        let once = std::fs::read(dir.path().join("session.jsonl")).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("session.jsonl.bak")).unwrap(),
            std::fs::read(&file).unwrap()
        );
        assert!(
            context_tokens(&dir.path().join("session.jsonl")) < before,
            "{path}"
        );
        assert_eq!(make(dir.path()).trim(), "fits", "{path}: pruned twice");
        assert_eq!(
            std::fs::read(dir.path().join("session.jsonl")).unwrap(),
            once
        );
        // --in-place writes what stdout gets.
        assert_eq!(once, prune(&[], &file).0, "{path}");
    }
}

#[test]
fn usage_recorded_before_the_prune_is_void_and_the_marker_holds_the_new_size() {
    let dir = tempfile::tempdir().unwrap();
    for (path, format) in CORPUS {
        let file = fixture(path);
        let report = {
            let output = condense()
                .args(["prune", "--report"])
                .arg(&file)
                .output()
                .unwrap();
            json_lines(&output.stdout).remove(0)
        };
        let (output, code) = prune(&[], &file);
        if code == 4 {
            continue;
        }
        let pruned = write_temp(dir.path(), "pruned.jsonl", &output);
        assert_eq!(
            context_tokens(&file),
            report["tokens_before"].as_u64().unwrap(),
            "{path}"
        );
        assert_eq!(
            context_tokens(&pruned),
            report["tokens_after"].as_u64().unwrap(),
            "{path}"
        );
        let last: Value =
            serde_json::from_str(String::from_utf8(output).unwrap().lines().last().unwrap())
                .unwrap();
        let after = report["tokens_after"].as_u64().unwrap();
        let figure = match format {
            "claude-code" => last.pointer("/microcompactMetadata/postTokens"),
            "pi" => last.pointer("/data/tokensAfter"),
            "openai" => last.pointer("/token_count"),
            other => panic!("{other}: no pruned corpus session expected"),
        };
        assert_eq!(
            figure.and_then(Value::as_u64),
            Some(after),
            "{path}: {last}"
        );
        // A line the agent appends afterwards counts on top of the figure.
        let mut appended = std::fs::read(&pruned).unwrap();
        let more = match format {
            "openai" => Some(format!("{{\"role\":\"user\",\"content\":\"{}\"}}\n", "x".repeat(400))),
            // pi appends under the marker (v3) or after it (v1, no ids).
            "pi" => Some(match last.get("id") {
                Some(id) => format!(
                    "{{\"type\":\"message\",\"id\":\"zz000001\",\"parentId\":{id},\"timestamp\":\"t\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
                    "x".repeat(400)
                ),
                None => format!(
                    "{{\"type\":\"message\",\"timestamp\":\"t\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
                    "x".repeat(400)
                ),
            }),
            _ => None,
        };
        if let Some(more) = more {
            appended.extend_from_slice(more.as_bytes());
            let grown = write_temp(dir.path(), "grown.jsonl", &appended);
            // By the session's own estimator: the appended message's tokens, as estimate
            // counts them one by one.
            let rows = condense()
                .args(["estimate", "--per-message", "--format", "jsonl"])
                .arg(&grown)
                .output()
                .unwrap();
            let appended_tokens = json_lines(&rows.stdout).last().unwrap()["tokens"]
                .as_u64()
                .unwrap();
            assert!(appended_tokens > 0, "{path}");
            assert_eq!(context_tokens(&grown), after + appended_tokens, "{path}");
        }
    }
}

/// A real session with its tool outputs made long (the Codex and Gemini corpus sessions are too
/// small to prune as they are): every output string of a result becomes 60 numbered lines.
pub(crate) fn inflated(path: &str) -> Vec<u8> {
    let long: String = (0..60)
        .map(|i| format!("line {i} of a long tool output\n"))
        .collect();
    let text = std::fs::read_to_string(fixture(path)).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(_) => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
        };
        if let Some(item) = value.get_mut("payload") {
            if matches!(
                item.get("type").and_then(Value::as_str),
                Some("function_call_output" | "custom_tool_call_output")
            ) {
                item["output"] = Value::String(long.clone());
            }
        }
        if let Some(Value::Array(calls)) = value.get_mut("toolCalls") {
            for call in calls {
                if let Some(Value::Array(results)) = call.get_mut("result") {
                    for result in results {
                        if let Some(response) = result.pointer_mut("/functionResponse/response") {
                            *response = serde_json::json!({ "output": long });
                        }
                    }
                }
            }
        }
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn codex_and_gemini_sessions_with_long_outputs_prune_and_stay_valid() {
    let dir = tempfile::tempdir().unwrap();
    for path in [
        "corpus/codex/agent-sessions-small.jsonl",
        "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
    ] {
        let input = inflated(path);
        let file = write_temp(dir.path(), "inflated.jsonl", &input);
        let before = context_tokens(&file);
        let (output, code) = prune(
            &["--keep", "0", "--clear-inputs", "--keep-thinking", "1"],
            &file,
        );
        assert_eq!(code, 0, "{path}");
        check_output(path, &input, &output);
        let pruned = write_temp(dir.path(), "pruned.jsonl", &output);
        let after = context_tokens(&pruned);
        assert!(after < before, "{path}: {after} >= {before}");
        let (twice, code) = prune(
            &["--keep", "0", "--clear-inputs", "--keep-thinking", "1"],
            &pruned,
        );
        assert_eq!((code, &twice), (4, &output), "{path}");
        let last: Value =
            serde_json::from_str(String::from_utf8(output).unwrap().lines().last().unwrap())
                .unwrap();
        let figure = last
            .pointer("/payload/info/last_token_usage/total_tokens")
            .or_else(|| last.pointer("/$set/condensePrune/tokensAfter"));
        assert_eq!(
            figure.and_then(Value::as_u64),
            Some(after),
            "{path}: {last}"
        );
    }
}

#[test]
fn nothing_to_prune_writes_the_input_and_exits_4() {
    let file = fixture("corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl");
    let output = condense().arg("prune").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(output.stdout, std::fs::read(&file).unwrap());
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing to prune"));
    // A bad line fails with its location and writes nothing.
    let bad = condense()
        .arg("prune")
        .write_stdin("{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(bad.stdout.is_empty());
    assert!(String::from_utf8_lossy(&bad.stderr).starts_with("condense: error: <stdin>:2"));
    // A session still being written is refused: pruning now would lose its last line.
    let cut = condense()
        .arg("prune")
        .write_stdin("{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"us")
        .output()
        .unwrap();
    assert_eq!(cut.status.code(), Some(1));
    assert!(cut.stdout.is_empty());
    assert!(String::from_utf8_lossy(&cut.stderr).contains("<stdin>:2: the last line is cut off"));
    // --in-place needs a file.
    let stdin = condense()
        .args(["prune", "--in-place"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(stdin.status.code(), Some(1));
}

#[test]
fn the_config_file_sets_the_knobs_and_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl");
    let report = |args: &[&str]| -> Value {
        let output = run_ok(
            condense()
                .current_dir(dir.path())
                .args(["prune", "--report"])
                .args(args)
                .arg(&file),
        );
        json_lines(&output.stdout).remove(0)
    };
    let results = |v: &Value| v["pruned"]["results"].as_u64().unwrap();
    let defaults = report(&[]);
    std::fs::write(
        dir.path().join(".condense.toml"),
        "[prune]\nkeep = 0\nmin_tokens = 0\nprotect = [\"Bash\"]\n",
    )
    .unwrap();
    // ./.condense.toml is read: nothing kept for recency or size, but Bash protected.
    let configured = report(&[]);
    assert_ne!(results(&configured), results(&defaults));
    let items = configured["items"].as_array().unwrap();
    assert!(items.iter().all(|item| item["tool"] != "Bash"));
    // A flag wins over the file.
    let flagged = report(&["--protect", ""]);
    assert!(results(&flagged) > results(&configured));
    assert!(flagged["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|item| item["tool"] == "Bash"));
    // --config names another file; an unknown key is an error with its line.
    let other = dir.path().join("other.toml");
    std::fs::write(&other, "[prune]\n\nkeep_tools = 1\n").unwrap();
    let output = condense()
        .args(["prune", "--config"])
        .arg(&other)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("other.toml:3:") && stderr.contains("keep_tools"),
        "{stderr}"
    );
}

/// The inflated Gemini corpus session as Gemini CLI writes it on resume: its header, then one
/// `$set` line whose `messages` are the session's history.
fn gemini_reset_session() -> Vec<u8> {
    let inflated = String::from_utf8(inflated(
        "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
    ))
    .unwrap();
    let mut lines = inflated.lines();
    let header = lines.next().unwrap();
    let messages: Vec<Value> = lines
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|value| value.get("type").is_some())
        .collect();
    assert!(messages.len() >= 3);
    let set = serde_json::json!({"$set": {"messages": messages, "lastUpdated": "t"}});
    format!("{header}\n{set}\n").into_bytes()
}

#[test]
fn a_gemini_history_in_a_set_record_is_pruned_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let input = gemini_reset_session();
    let file = write_temp(dir.path(), "reset.jsonl", &input);
    let args = ["--keep", "0", "--min-tokens", "0"];
    let (output, code) = prune(&args, &file);
    assert_eq!(code, 0);
    let text = String::from_utf8(output.clone()).unwrap();
    let set_line = text.lines().nth(1).unwrap();
    // The placeholder is in the history Gemini CLI sends, and the long output is gone from it.
    assert!(set_line.starts_with(r#"{"$set":{"#), "{set_line}");
    assert!(set_line.contains("[condense pruned"), "{set_line}");
    assert!(!set_line.contains("line 30 of a long tool output"));
    // The history read back is smaller by what the marker says, and a second prune has
    // nothing left to do.
    let pruned = write_temp(dir.path(), "pruned.jsonl", &output);
    let tokens = |path: &Path| {
        let output = condense().arg("estimate").arg(path).output().unwrap();
        json_lines(&output.stdout)[0]["tokens"].as_u64().unwrap()
    };
    assert!(tokens(&pruned) < tokens(&file));
    let (twice, code) = prune(&args, &pruned);
    assert_eq!((code, twice), (4, output));
}

/// `--clear-inputs` frees what the agent sends, which the provider's figure counts: the size the
/// prune records is that much smaller, though chars/4 (kimi-cli's estimate) counts no
/// arguments.
#[test]
fn cleared_inputs_come_off_the_recorded_size() {
    let dir = tempfile::tempdir().unwrap();
    let content = "x".repeat(20_000);
    let arguments =
        serde_json::to_string(&serde_json::json!({"path": "a.txt", "content": content})).unwrap();
    let call = serde_json::json!({"role": "assistant", "content": "writing", "tool_calls": [
        {"type": "function", "id": "c1", "function": {"name": "WriteFile", "arguments": arguments}}
    ]});
    let lines = [
        r#"{"role":"user","content":"write the file"}"#.to_owned(),
        call.to_string(),
        r#"{"role":"tool","content":"ok","tool_call_id":"c1"}"#.to_owned(),
        r#"{"role":"assistant","content":"done"}"#.to_owned(),
        r#"{"role":"_usage","token_count":12000}"#.to_owned(),
        r#"{"role":"user","content":"thanks"}"#.to_owned(),
        r#"{"role":"assistant","content":"welcome"}"#.to_owned(),
    ];
    let file = write_temp(
        dir.path(),
        "context.jsonl",
        (lines.join("\n") + "\n").as_bytes(),
    );
    let (output, code) = prune(
        &["--keep", "0", "--min-tokens", "0", "--clear-inputs"],
        &file,
    );
    assert_eq!(code, 0);
    let pruned = write_temp(dir.path(), "pruned.jsonl", &output);
    let after = context_tokens(&pruned);
    // 20000 characters of arguments are about 5000 tokens, gone from the 12000 the provider
    // counted.
    assert!(after <= 12_000 - 4_500, "{after}");
}
