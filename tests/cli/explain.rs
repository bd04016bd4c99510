//! `condense estimate --explain`: each agent's own trigger at its edge (one token below, at and
//! above it) on crafted sessions whose recorded usage is exactly the context size, and the
//! calibration figures of the real corpus.

use serde_json::Value;

use crate::util::{assert_success, condense, estimate_stdin, fixture, json_lines, CORPUS};

/// A session of `format` whose context is `tokens` by the usage its last record carries, and
/// which names `model`.
fn session(format: &str, tokens: u64, model: &str) -> String {
    let lines = match format {
        "claude-code" => vec![
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hello"}}"#.to_owned(),
            format!(r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{{"id":"m1","role":"assistant","model":"{model}","content":[{{"type":"text","text":"hi"}}],"usage":{{"input_tokens":{tokens},"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#),
        ],
        "codex" => vec![
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"x","timestamp":"t","cwd":"/tmp","originator":"codex_cli_rs","cli_version":"0.1.0"}}"#.to_owned(),
            format!(r#"{{"timestamp":"t","type":"turn_context","payload":{{"cwd":"/tmp","model":"{model}"}}}}"#),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}}"#.to_owned(),
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}}"#.to_owned(),
            format!(r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{tokens},"output_tokens":0,"total_tokens":{tokens}}},"last_token_usage":{{"input_tokens":{tokens},"output_tokens":0,"total_tokens":{tokens}}},"model_context_window":null}}}}}}"#),
        ],
        "pi" => vec![
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/tmp"}"#.to_owned(),
            r#"{"type":"message","id":"e1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hello"}],"timestamp":1}}"#.to_owned(),
            format!(r#"{{"type":"message","id":"e2","parentId":"e1","timestamp":"t","message":{{"role":"assistant","content":[{{"type":"text","text":"hi"}}],"model":"{model}","usage":{{"input":{tokens},"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":{tokens}}},"timestamp":2}}}}"#),
        ],
        "gemini" => vec![
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#.to_owned(),
            r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"hello"}]}"#.to_owned(),
            format!(r#"{{"id":"g1","timestamp":"t","type":"gemini","content":"hi","tokens":{{"input":{tokens},"output":0,"cached":0,"thoughts":0,"tool":0,"total":{tokens}}},"model":"{model}"}}"#),
        ],
        "openai" => vec![
            r#"{"role":"user","content":"hello"}"#.to_owned(),
            r#"{"role":"assistant","content":"hi"}"#.to_owned(),
            format!(r#"{{"role":"_usage","token_count":{tokens}}}"#),
        ],
        other => panic!("no crafted session for {other}"),
    };
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn explain(format: &str, tokens: u64, model: &str, window: u64) -> Value {
    let input = session(format, tokens, model);
    let report = estimate_stdin(&["--explain", "--max-context", &window.to_string()], &input);
    assert_eq!(report["format"], format, "{report}");
    assert_eq!(report["context"]["tokens"], tokens, "{report}");
    report["explain"].clone()
}

/// Checks the agent's trigger one token below, at, and above `at`.
fn edge(format: &str, agent: &str, model: &str, window: u64, at: u64) {
    for (tokens, due, left) in [(at - 1, false, 1), (at, true, 0), (at + 1, true, 0)] {
        let e = explain(format, tokens, model, window);
        assert_eq!(e["agent"], agent);
        assert_eq!(e["compacts_at"], at, "{format}: {e}");
        assert_eq!(e["due"], due, "{format} at {tokens}: {e}");
        assert_eq!(e["tokens_left"], left, "{format} at {tokens}");
        assert!(e["source"].as_str().unwrap().len() > 20);
    }
}

#[test]
fn claude_code_at_window_minus_output_cap_minus_13k() {
    // 200000 - min(max output, 20000) - 13000.
    edge(
        "claude-code",
        "claude-code",
        "claude-opus-4-5",
        200_000,
        167_000,
    );
    // Claude 3.5 Sonnet writes at most 8192 tokens: the reserve is that.
    edge(
        "claude-code",
        "claude-code",
        "claude-3-5-sonnet-20241022",
        200_000,
        200_000 - 8_192 - 13_000,
    );
}

#[test]
fn codex_at_nine_tenths_of_the_window() {
    edge("codex", "codex", "gpt-5-codex", 272_000, 244_800);
}

#[test]
fn pi_above_window_minus_reserve() {
    edge(
        "pi",
        "pi",
        "claude-sonnet-4-5",
        200_000,
        200_000 - 16_384 + 1,
    );
}

#[test]
fn gemini_at_half_the_limit() {
    edge("gemini", "gemini", "gemini-2.5-pro", 1_048_576, 524_288);
    edge("gemini", "gemini", "gemini-2.5-pro", 1_000_001, 500_001);
}

#[test]
fn kimi_at_the_ratio_or_the_reserve() {
    edge("openai", "kimi", "kimi-k2", 262_144, 262_144 - 50_000);
    edge("openai", "kimi", "kimi-k2", 1_000_000, 850_000);
}

#[test]
fn the_window_comes_from_the_model_without_max_context() {
    let report = estimate_stdin(
        &["--explain"],
        &session("claude-code", 10, "claude-opus-4-5"),
    );
    let e = &report["explain"];
    assert_eq!(
        (e["window"].as_u64(), e["compacts_at"].as_u64()),
        (Some(200_000), Some(167_000))
    );
    assert_eq!(e["model"], "claude-opus-4-5");
    assert_eq!(report["compaction"]["max_context"], 200_000);
    // --check's own trigger (kimi-cli's defaults) comes before the agent's, by 17000.
    assert_eq!(e["check"]["compacts_at"], 150_000);
    assert!(
        e["why"].as_str().unwrap().contains("17000 tokens before"),
        "{e}"
    );
}

#[test]
fn a_session_without_a_model_or_window_is_an_error() {
    condense()
        .args(["estimate", "--explain"])
        .write_stdin(session("openai", 10, ""))
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("records no model"));
}

#[test]
fn the_corpus_reports_its_earlier_compactions() {
    for (path, format) in CORPUS {
        let output = condense()
            .args(["estimate", "--explain", "--max-context", "200000"])
            .arg(fixture(path))
            .output()
            .unwrap();
        assert_success(&output, format_args!("{path}"));
        let report = &json_lines(&output.stdout)[0];
        let e = &report["explain"];
        assert!(e["compacts_at"].as_u64().unwrap() > 0, "{path}: {format}");
        let earlier: Vec<(u64, u64)> = e["earlier"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["line"].as_u64().unwrap(), c["tokens"].as_u64().unwrap()))
            .collect();
        let expected: &[(u64, u64)] = match path {
            // grep -n '"preTokens"': line 31, compactMetadata.preTokens 155250
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl" => &[(31, 155_250)],
            // the compacted item on line 26 follows a token_count of total_tokens 16422
            "corpus/codex/agent-sessions-small.jsonl" => &[(26, 16_422)],
            _ => &[],
        };
        assert_eq!(earlier, expected, "{path}");
    }
}

#[test]
fn markdown_explains_in_prose() {
    let output = condense()
        .args(["estimate", "--explain", "--format", "markdown"])
        .arg(fixture(
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
        ))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("compacts by itself at 167000 tokens of 200000"),
        "{text}"
    );
    assert!(text.contains("earlier compaction at line 31: 155250 tokens (77.6% of the window"));
}
