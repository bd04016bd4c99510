//! Codex's remote compaction (the `openai` provider's default): the rollout Codex 0.171.0 wrote
//! against the mock (`fixtures/agents/codex-compacted.jsonl`, line 56) keeps only an encrypted
//! `compaction` item, Codex's instructions and the user's requests in its `compacted` line.
//! `history` says so with its sizes; `prompt`, `caveman` and `eval` read the conversation before
//! it and never take Codex's instructions for a summary.

use crate::util::{condense, fixture, json_lines};

const ROLLOUT: &str = "agents/codex-compacted.jsonl";

fn stdout(args: &[&str]) -> String {
    let output = condense()
        .args(args)
        .arg(fixture(ROLLOUT))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn history_names_the_encrypted_summary_and_its_sizes() {
    let rows = json_lines(stdout(&["history"]).as_bytes());
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["marker_line"], 56);
    // 25 bytes: the mock's "MOCK-ENCRYPTED-COMPACTION"; the four requests CODEX-Q1 to Q4
    // (`jq -r 'select(.type=="compacted") | .payload.replacement_history[]
    //   | select(.role=="user") | .content[].text' | grep -c ^CODEX-Q` → 4).
    assert_eq!(
        row["summary"],
        "remote (encrypted) summary: 25 bytes only the server reads; 4 user messages kept \
         (133 bytes)"
    );
    // The last token_count before the line (jq: 5005).
    assert_eq!(row["tokens_before"], 5005);
    assert_eq!(row["records"], 55);
}

#[test]
fn prompt_and_caveman_read_the_conversation_before_it() {
    let prompt = stdout(&["prompt"]);
    // The answers before the compaction, which only the encrypted summary holds for Codex.
    assert!(prompt.contains("MOCK-REPLY to: CODEX-Q1"), "{prompt:.400}");
    assert!(prompt.contains("CODEX-NEW-Q5"));
    // Codex's instructions are the system message every Codex session opens with, once; never
    // a user message or a summary (before, the compacted line was read as one user message
    // opening with them).
    let user_instructions = prompt
        .split("## Message ")
        .filter(|m| m.contains("Role: user") && m.contains("You are Codex"))
        .count();
    assert_eq!(user_instructions, 0);
    assert_eq!(prompt.matches("You are Codex, an agent").count(), 1);
    let caveman = stdout(&["caveman"]);
    assert!(caveman.contains("CODEX-Q1"), "{caveman}");
    assert!(!caveman.contains("You are Codex"), "{caveman}");
}

#[test]
fn eval_has_no_native_summary_to_grade_at_it() {
    let rows = json_lines(stdout(&["eval"]).as_bytes());
    assert!(rows.iter().all(|r| r["cut_line"] == 56));
    let summaries: Vec<&str> = rows
        .iter()
        .map(|r| r["summary"].as_str().unwrap())
        .collect();
    assert_eq!(summaries, ["caveman", "bare", "baseline"]);
}
