//! `prompt --max-tokens`: the request fits the summarizer's window, and the summary of a
//! shrunk request still injects exactly.

use serde_json::Value;

use crate::util::{condense, fixture, run_ok};

const LARGEST: &str = "corpus/pi/pi-mono-large-session.jsonl";

/// The request's tokens by an estimator, counted the way the budget counts them: the system
/// prompt and the request text.
fn tokens(tokenizer: &str, request: &[u8]) -> u64 {
    let system = condense()
        .args(["prompt", "--system"])
        .output()
        .unwrap()
        .stdout;
    let text = [
        String::from_utf8(system).unwrap().trim_end().to_owned(),
        String::from_utf8(request.to_vec()).unwrap(),
    ]
    .concat();
    let line = serde_json::json!({"role": "user", "content": text}).to_string();
    let report = condense()
        .args(["estimate", "--from", "openai", "--tokenizer", tokenizer])
        .write_stdin(line)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    // The role's own units are the only difference to a bare text count.
    report["by_part"]["text"]["tokens"].as_u64().unwrap()
}

#[test]
fn the_largest_session_fits_a_budget_and_still_injects_exactly() {
    let tokenizer = if cfg!(feature = "bpe") {
        "o200k"
    } else {
        "chars4"
    };
    let session = fixture(LARGEST);
    let dir = tempfile::tempdir().unwrap();
    for max in [100_000u64, 30_000] {
        let plan = dir.path().join("plan.json");
        let output = run_ok(
            condense()
                .args(["prompt", "--tokenizer", tokenizer, "--max-tokens"])
                .arg(max.to_string())
                .arg("--plan")
                .arg(&plan)
                .arg(&session),
        );
        let counted = tokens(tokenizer, &output.stdout);
        assert!(counted <= max, "{max}: the request has {counted} tokens");
        let report: Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
        let request = &report["request"];
        assert_eq!(request["max_tokens"], max);
        assert!(request["tokens"].as_u64().unwrap() <= max);
        if max == 30_000 {
            assert!(!request["cuts"].as_array().unwrap().is_empty());
            assert!(String::from_utf8_lossy(&output.stdout).contains("left out to fit the request"));
        }
        // The summary replaces the same records as without a budget.
        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, "BUDGET-SUMMARY").unwrap();
        let with_plan = run_ok(
            condense()
                .args(["inject", "--plan"])
                .arg(&plan)
                .arg("--summary")
                .arg(&summary)
                .arg(&session),
        );
        let plain = condense()
            .args(["inject", "--summary"])
            .arg(&summary)
            .arg(&session)
            .output()
            .unwrap();
        assert_eq!(with_plan.stdout, plain.stdout);
    }
}

#[test]
fn a_budget_the_request_cannot_meet_is_an_error_saying_by_how_much() {
    let output = condense()
        .args(["prompt", "--max-tokens", "500"])
        .arg(fixture(LARGEST))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("over --max-tokens 500"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
