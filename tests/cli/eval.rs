//! `eval`: grading summaries at compactions, on a crafted session whose re-used entities were
//! counted by hand, and on every fixture session.

use serde_json::Value;

use crate::util::{condense, fixture, json_lines, run_ok, CORPUS};

fn eval(args: &[&str]) -> Vec<Value> {
    let output = run_ok(condense().arg("eval").args(args));
    json_lines(&output.stdout)
}

fn row<'v>(rows: &'v [Value], summary: &str) -> &'v Value {
    rows.iter()
        .find(|r| r["summary"] == summary)
        .unwrap_or_else(|| panic!("no {summary} row"))
}

/// `fixtures/eval/pi/crafted.jsonl` compacts on line 6. After it the agent writes (line 7)
/// parse_token, error[E0308], 12 ms, gen/tables.rs and the words "generated" and "tables" of
/// the user's constraint from line 2, reads /repo/src/parser/lexer.rs, and (line 9) runs
/// `cargo test --lib`; all of these were in the prefix. NewThing and src/new.rs (line 10) and
/// the tool output of line 8 were not, or do not count. The native summary names lexer.rs and
/// `cargo test` and nothing else of these.
#[test]
fn the_crafted_session_re_uses_what_was_counted_by_hand() {
    let path = fixture("eval/pi/crafted.jsonl");
    let probes = fixture("eval/probes");
    // Counted by hand in characters ÷ 4.
    let rows = eval(&[
        "--tokenizer",
        "chars4",
        "--show-lost",
        "--probes",
        probes.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["summary"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["native", "caveman", "bare", "baseline"]);
    for row in &rows {
        assert_eq!(
            (row["cut_line"].as_u64(), row["cut_kind"].as_str()),
            (Some(6), Some("compaction"))
        );
        assert_eq!(row["reused_total"], 8);
        let reused = &row["reused"];
        for (kind, n) in [
            ("path", 2),
            ("command", 1),
            ("identifier", 1),
            ("flag", 1),
            ("env", 0),
            ("error", 1),
            ("number", 1),
            ("url", 0),
            ("constraint", 1),
        ] {
            assert_eq!(reused[kind], n, "{kind}");
        }
    }
    let native = row(&rows, "native");
    assert_eq!(native["carried_total"], 2);
    assert_eq!(native["carried"]["path"], 1);
    assert_eq!(native["carried"]["command"], 1);
    let lost: Vec<(&str, &str, u64)> = native["lost"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["kind"].as_str().unwrap(),
                l["entity"].as_str().unwrap(),
                l["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lost,
        [
            ("error", "error[E0308]", 7),
            ("identifier", "parse_token", 7),
            ("number", "12ms", 7),
            ("path", "gen/tables.rs", 7),
            ("flag", "--lib", 9),
            (
                "constraint",
                "Never edit generated tables in gen/tables.rs by hand",
                7
            ),
        ]
    );
    // 2 carried in 16 tokens ("Goal: fix the lexer test in src/parser/lexer.rs. Ran `cargo
    // test`." is 66 characters).
    assert_eq!(native["summary_tokens"], 16);
    assert_eq!(native["carried_per_1k_tokens"], 125.0);
    assert_eq!(native["probes"]["test"]["carried"], 1);
    assert_eq!(native["probes"]["now"]["carried"], 0);
    // caveman quotes the user's request (the constraint), the error, the command, and names
    // parse_token; it has no "12 ms".
    let caveman = row(&rows, "caveman");
    assert_eq!(caveman["carried_total"], 7);
    assert_eq!(caveman["lost"][0]["entity"], "12ms");
    // The baseline lists every entity of the prefix (they fit in 500 tokens) but holds no
    // sentence, so only the constraint is lost.
    let baseline = row(&rows, "baseline");
    assert_eq!(baseline["carried_total"], 7);
    assert_eq!(baseline["lost"][0]["kind"], "constraint");
    let probes_carried: u64 = ["now", "error", "test", "constraint"]
        .iter()
        .map(|k| caveman["probes"][k]["carried"].as_u64().unwrap())
        .sum();
    assert_eq!(probes_carried, 4);
}

/// A `--cmd` summariser gets the prefix on stdin and in $CONDENSE_PREFIX: the prefix is the 5
/// lines before the marker.
#[test]
fn a_cmd_summary_reads_the_prefix() {
    let path = fixture("eval/pi/crafted.jsonl");
    let rows = eval(&[
        "--builtin",
        "native",
        "--cmd",
        "lines=wc -l < \"$CONDENSE_PREFIX\" | tr -d ' '; grep -o 'gen/tables.rs' | head -1",
        path.to_str().unwrap(),
    ]);
    assert_eq!(rows.len(), 2);
    let cmd = row(&rows, "lines");
    assert_eq!(cmd["carried_total"], 1);
    assert_eq!(cmd["carried"]["path"], 1);
    let failing = condense()
        .args(["eval", "--cmd", "bad=exit 3"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(failing.status.code(), Some(1));
    assert!(failing.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&failing.stderr);
    assert!(
        stderr.contains("crafted.jsonl:6: --cmd bad failed"),
        "{stderr}"
    );
}

/// The real Claude Code compaction of the fixture corpus is graded at its boundary (line 31),
/// and every fixture session runs without error, the ones without a compaction cut at 70 %.
#[test]
fn every_fixture_session_is_graded() {
    let real = fixture("corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl");
    let rows = eval(&[real.to_str().unwrap()]);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["cut_line"] == 31));
    // Checked with --show-lost: after the boundary the agent re-used 13 entities of the
    // prefix (2 paths, hooks_claudecode_handlers.go and cmd/entire/cli; `mise run test` and
    // `mise run lint`; 9 identifiers such as checkConcurrentSessions and OpenRepository); the
    // native summary lacks both commands, handleSessionInitErrors, initErr and cmd/entire/cli.
    let native = row(&rows, "native");
    assert_eq!(native["reused_total"], 13);
    assert_eq!(
        (
            native["reused"]["path"].as_u64(),
            native["reused"]["command"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert_eq!(native["carried_total"], 8);
    let mut files = vec!["--at".to_owned(), "70%".to_owned()];
    files.extend(CORPUS.iter().map(|(f, _)| fixture(f).display().to_string()));
    let output = run_ok(condense().arg("eval").args(&files));
    let rows = json_lines(&output.stdout);
    let graded: std::collections::BTreeSet<&str> =
        rows.iter().map(|r| r["file"].as_str().unwrap()).collect();
    // The Codex fixture's six compactions carry "[trimmed for fixture]" summaries, still cuts.
    assert_eq!(graded.len(), CORPUS.len());
}

/// A probe file without its `file:` line is an error naming it, and nothing is printed.
#[test]
fn a_bad_probe_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let probes = dir.path().join("p.txt");
    std::fs::write(&probes, "cut: 6\nprobe now: x\n").unwrap();
    let output = condense()
        .arg("eval")
        .arg("--probes")
        .arg(&probes)
        .arg(fixture("eval/pi/crafted.jsonl"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("p.txt: no `file:` line"), "{stderr}");
}
