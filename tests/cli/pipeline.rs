//! `split`, `prompt` and `inject` against the spec's vectors and the real corpus, and the whole
//! pipeline through a real LLM CLI: `condense prompt | llm -m echo | condense inject`.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};

use predicates::prelude::*;
use serde_json::{json, Value};

use crate::util::{assert_success, condense, fixture, json_lines, required_llm, run_ok, CORPUS};

const SYSTEM_PROMPT: &str = "You are a helpful assistant that compacts conversation context.";
const WRAPPER: &str =
    "<system>Previous context has been compacted. Here is the compaction output:</system>";

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn text(role: &str, text: &str) -> Value {
    json!({"role": role, "content": text})
}

/// `prompt --format jsonl` on `input`: the user message's text parts.
fn request_parts(args: &[&str], input: &str) -> Vec<String> {
    let output = run_ok(
        condense()
            .args(["prompt", "--format", "jsonl", "--prompt-file"])
            .arg(fixture("prompts/P.md"))
            .args(args)
            .write_stdin(input.to_owned()),
    );
    let lines = json_lines(&output.stdout);
    assert_eq!(
        lines[0],
        json!({"role": "system", "content": SYSTEM_PROMPT})
    );
    lines[1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["text"].as_str().unwrap().to_owned())
        .collect()
}

fn body() -> String {
    std::fs::read_to_string(fixture("prompts/P.md")).unwrap()
}

fn header(i: usize, role: &str) -> String {
    format!("## Message {i}\nRole: {role}\nContent:\n")
}

#[test]
fn v3_the_request_numbers_messages_and_keeps_only_text() {
    let input = jsonl(&[
        json!({"role": "system", "content": "System note"}),
        json!({"role": "user", "content": [{"type": "text", "text": "Old question"}, {"type": "think", "think": "Hidden thoughts", "encrypted": null}]}),
        text("assistant", "Old answer"),
        text("user", "Latest question"),
        text("assistant", "Latest answer"),
    ]);
    assert_eq!(
        request_parts(&[], &input),
        vec![
            header(1, "system"),
            "System note".into(),
            header(2, "user"),
            "Old question".into(),
            header(3, "assistant"),
            "Old answer".into(),
            format!("\n{}", body()),
        ]
    );
    // The tail is the last two messages, byte for byte.
    let tail = condense()
        .args(["split", "--emit", "tail"])
        .write_stdin(input.clone())
        .output()
        .unwrap()
        .stdout;
    let expected: String = input.lines().skip(3).map(|l| format!("{l}\n")).collect();
    assert_eq!(String::from_utf8(tail).unwrap(), expected);
}

#[test]
fn v1_v2_d3_nothing_to_compact_exits_4_with_empty_stdout() {
    let cases = [
        (jsonl(&[text("user", "Only one message")]), vec![]),
        (
            jsonl(&[
                text("user", "Latest question"),
                text("assistant", "Latest reply"),
            ]),
            vec![],
        ),
        (
            jsonl(&[text("user", "a"), text("assistant", "b"), text("user", "c")]),
            vec!["--preserve", "0"],
        ),
        (String::new(), vec![]),
    ];
    for (input, args) in cases {
        condense()
            .arg("prompt")
            .args(&args)
            .write_stdin(input)
            .assert()
            .code(4)
            .stdout("")
            .stderr(predicate::str::contains("nothing to compact"));
    }
}

#[test]
fn v8_v9_custom_instruction_joins_the_last_part() {
    let input = jsonl(&[
        text("user", "Old question"),
        text("assistant", "Old answer"),
        text("user", "Latest question"),
        text("assistant", "Latest answer"),
    ]);
    let with = request_parts(
        &[
            "--instructions",
            "Preserve all discussions about the database",
        ],
        &input,
    );
    assert_eq!(with.len(), 5);
    let last = with.last().unwrap();
    assert!(last.starts_with(&format!("\n{}", body())));
    assert!(last.contains("\n\n**User's Custom Compaction Instruction:**\n"));
    assert!(last.ends_with("\nPreserve all discussions about the database"));
    let without = request_parts(&[], &input);
    assert_eq!(without.last().unwrap(), &format!("\n{}", body()));
}

#[test]
fn v11_v12_media_never_reaches_the_request_but_stays_in_the_tail() {
    let v11 = jsonl(&[
        json!({"role": "user", "content": [
            {"type": "text", "text": "Analyze these files:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,IMG", "id": null}},
            {"type": "audio_url", "audio_url": {"url": "data:audio/mp3;base64,AUD", "id": null}},
            {"type": "video_url", "video_url": {"url": "data:video/mp4;base64,VID", "id": null}},
            {"type": "think", "think": "internal reasoning", "encrypted": null}]}),
        text("assistant", "I can see all the media files."),
        text("user", "What's your conclusion?"),
    ]);
    assert_eq!(
        request_parts(&["--preserve", "1"], &v11),
        vec![
            header(1, "user"),
            "Analyze these files:".into(),
            header(2, "assistant"),
            "I can see all the media files.".into(),
            format!("\n{}", body()),
        ]
    );
    let video = json!({"role": "user", "content": [
        {"type": "text", "text": "Look at this video:"},
        {"type": "video_url", "video_url": {"url": "data:video/mp4;base64,VID", "id": null}}]});
    let v12 = jsonl(&[
        text("user", "Old question"),
        text("assistant", "Old answer"),
        video.clone(),
        text("assistant", "Nice video!"),
    ]);
    assert_eq!(request_parts(&[], &v12).len(), 5);
    let tail = condense()
        .args(["split", "--emit", "tail"])
        .write_stdin(v12)
        .output()
        .unwrap()
        .stdout;
    assert!(String::from_utf8(tail)
        .unwrap()
        .starts_with(&video.to_string()));
}

fn d1_input() -> String {
    jsonl(&[
        text("user", "do it"),
        json!({"role": "assistant", "content": "running", "tool_calls": [{"type": "function", "id": "c1", "function": {"name": "Shell", "arguments": "{\"command\":\"ls\"}"}}]}),
        json!({"role": "tool", "content": [{"type": "text", "text": "<system>ok</system>"}, {"type": "text", "text": "a.txt"}], "tool_call_id": "c1"}),
        text("assistant", "done"),
        text("user", "thanks"),
        text("tool", "late"),
    ])
}

#[test]
fn d1_tool_output_is_rendered_and_tool_calls_are_not() {
    assert_eq!(
        request_parts(&[], &d1_input()),
        vec![
            header(1, "user"),
            "do it".into(),
            header(2, "assistant"),
            "running".into(),
            header(3, "tool"),
            "<system>ok</system>".into(),
            "a.txt".into(),
            format!("\n{}", body()),
        ]
    );
}

#[test]
fn d2_a_leading_system_message_alone_is_sent() {
    let input = jsonl(&[
        text("system", "S"),
        text("user", "q"),
        text("assistant", "a"),
    ]);
    assert_eq!(
        request_parts(&[], &input),
        vec![header(1, "system"), "S".into(), format!("\n{}", body())]
    );
}

#[test]
fn d4_the_summary_message_then_the_tail() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "<think>...</think>SUMMARY").unwrap();
    let input = d1_input();
    let output = run_ok(
        condense()
            .args(["inject", "--summary"])
            .arg(&summary)
            .write_stdin(input.clone()),
    );
    let lines: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .collect();
    let first: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        first,
        json!({"role": "user", "content": [
            {"type": "text", "text": WRAPPER},
            {"type": "text", "text": "SUMMARY"}]})
    );
    let tail: Vec<&str> = input.lines().skip(3).collect();
    assert_eq!(lines[1..], tail[..]);
}

#[test]
fn an_empty_or_missing_summary_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "<think>only thinking</think>\n  \n").unwrap();
    for summary in [empty, dir.path().join("missing.md")] {
        condense()
            .args(["inject", "--summary"])
            .arg(&summary)
            .write_stdin(d1_input())
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with("condense: error: "));
    }
}

/// `condense inject --plan PLAN --summary SUMMARY SESSION`.
fn inject_with_plan(plan: &Path, summary: &Path, session: &Path) -> assert_cmd::Command {
    let mut command = condense();
    command
        .args(["inject", "--plan"])
        .arg(plan)
        .arg("--summary")
        .arg(summary)
        .arg(session);
    command
}

#[test]
fn records_appended_after_prompt_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let plan = dir.path().join("plan.json");
    let summary = dir.path().join("summary.md");
    std::fs::copy(
        fixture("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl"),
        &session,
    )
    .unwrap();
    condense()
        .args(["prompt", "--plan"])
        .arg(&plan)
        .arg(&session)
        .assert()
        .success();
    // The live session goes on while the LLM works.
    let appended = format!(
        "{}\n{}\n",
        text("user", "one more thing"),
        text("assistant", "on it")
    );
    let mut grown = std::fs::read(&session).unwrap();
    grown.extend_from_slice(appended.as_bytes());
    std::fs::write(&session, &grown).unwrap();
    std::fs::write(&summary, "SUMMARY").unwrap();
    let output = inject_with_plan(&plan, &summary, &session)
        .output()
        .unwrap();
    assert_success(&output, "");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(appended.trim_end()),
        "appended records are kept"
    );

    // A change to the compacted records is refused.
    let changed =
        String::from_utf8(grown)
            .unwrap()
            .replacen("ColumnTransformer", "ColumnTransformor", 1);
    std::fs::write(&session, changed).unwrap();
    inject_with_plan(&plan, &summary, &session)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("changed since the plan was made"));
}

#[test]
fn markdown_handoff_document() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "SUMMARY").unwrap();
    let output = condense()
        .args(["inject", "--format", "markdown", "--summary"])
        .arg(&summary)
        .arg(fixture(
            "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
        ))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    for heading in [
        "## Compacted Handoff",
        "### Original Request (preserved)",
        "tokens compacted ...]",
        "### Current State (preserved)",
        "### Compacted Summary\n\nSUMMARY",
    ] {
        assert!(text.contains(heading), "{heading}");
    }
}

#[test]
fn in_place_keeps_a_backup_and_replaces_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.jsonl");
    let original = d1_input();
    std::fs::write(&session, &original).unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "SUMMARY").unwrap();
    condense()
        .args(["inject", "--in-place", "--summary"])
        .arg(&summary)
        .arg(&session)
        .assert()
        .success()
        .stdout("");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.jsonl.bak")).unwrap(),
        original
    );
    let now = std::fs::read_to_string(&session).unwrap();
    assert!(
        now.starts_with("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<system>")
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "no temporary files are left behind");
}

/// Names in `dir` that a killed run could have left: temporary files of `s.jsonl`.
fn strays(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".s.jsonl."))
        .collect()
}

#[test]
fn in_place_killed_at_any_moment_leaves_the_original_intact_and_no_full_size_stray() {
    // pi is appended to (no backup); an OpenAI-style list is replaced (backup and temp file).
    for (fixture_path, appends) in [
        ("corpus/pi/pi-mono-large-session.jsonl", true),
        ("corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let original = std::fs::read(fixture(fixture_path)).unwrap();
        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, "SUMMARY").unwrap();
        let mut left_behind = 0;
        for attempt in 0..12u64 {
            std::fs::write(&session, &original).unwrap();
            for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
                if entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with("s.jsonl.bak")
                {
                    std::fs::remove_file(entry.path()).unwrap();
                }
            }
            let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("condense"))
                .args(["inject", "--in-place", "--summary"])
                .arg(&summary)
                .arg(&session)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            // Kill it at a different moment each time, from at once to after it finished.
            std::thread::sleep(std::time::Duration::from_micros(attempt * attempt * 400));
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
            let now = std::fs::read(&session).unwrap();
            if now != original {
                // Either the original or the complete new transcript, never anything between.
                let check = condense().arg("estimate").arg(&session).output().unwrap();
                assert_success(&check, format_args!("attempt {attempt}: a partial file"));
                if appends {
                    assert!(now.starts_with(&original), "attempt {attempt}");
                } else {
                    assert_eq!(
                        std::fs::read(dir.path().join("s.jsonl.bak")).unwrap(),
                        original
                    );
                }
            }
            // The temporary file has no name while it is written; only the instant between
            // naming it and the rename can leave one, and the next run removes it.
            if !strays(dir.path()).is_empty() {
                left_behind += 1;
                condense()
                    .args(["inject", "--in-place", "--summary"])
                    .arg(&summary)
                    .arg(&session)
                    .assert()
                    .success();
                assert_eq!(strays(dir.path()), Vec::<String>::new());
            }
        }
        assert!(left_behind <= 1, "{left_behind} of 12 kills left a stray");
    }
}

/// Every corpus session through `condense prompt | llm -m echo | condense inject`, read back by
/// `condense estimate` in its own format, with the preserved records byte-identical.
#[test]
fn every_corpus_session_through_a_real_llm_cli() {
    let Some(llm) = required_llm() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (file, format) in CORPUS {
        let session = fixture(file);
        let plan = dir.path().join("plan.json");
        // One message kept: the smallest session (Gemini: a question and two model turns) has
        // one to compact beside its question, which is kept.
        let request = condense()
            .args(["prompt", "--preserve", "1", "--plan"])
            .arg(&plan)
            .arg(&session)
            .output()
            .unwrap();
        assert_success(&request, format_args!("{file}"));
        let reply = StdCommand::new(&llm)
            .args(["-m", "echo", "--no-log", "-s", SYSTEM_PROMPT])
            .env("LLM_USER_PATH", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(&request.stdout)?;
                child.wait_with_output()
            })
            .unwrap();
        assert_success(&reply, format_args!("{file}: llm failed"));
        // llm-echo answers with what it received: both prompts reached the model intact.
        let echoed: Value = serde_json::from_slice(&reply.stdout).unwrap();
        assert_eq!(echoed["system"], SYSTEM_PROMPT, "{file}");
        let sent = String::from_utf8(request.stdout.clone()).unwrap();
        assert_eq!(
            echoed["prompt"].as_str().unwrap().trim_end(),
            sent.trim_end(),
            "{file}"
        );

        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, &reply.stdout).unwrap();
        let compacted = dir.path().join("compacted.jsonl");
        let injected = inject_with_plan(&plan, &summary, &session)
            .output()
            .unwrap();
        assert_success(&injected, format_args!("{file}"));
        std::fs::write(&compacted, &injected.stdout).unwrap();

        let report = &json_lines(
            &condense()
                .arg("estimate")
                .arg(&compacted)
                .output()
                .unwrap()
                .stdout,
        )[0];
        assert_eq!(
            report["format"], format,
            "{file} reads back in its own format"
        );

        // The preserved records are byte-identical, but kimi-cli's checkpoint and usage
        // records (written anew) and the stale `tokens` figure of a Gemini turn (voided).
        let tail = condense()
            .args(["split", "--preserve", "1", "--emit", "tail"])
            .arg(&session)
            .output()
            .unwrap()
            .stdout;
        let out = String::from_utf8(injected.stdout).unwrap();
        let tail = String::from_utf8(tail).unwrap();
        for line in tail.lines() {
            let role: Value = serde_json::from_str(line).unwrap();
            if matches!(role["role"].as_str(), Some("_usage" | "_checkpoint")) {
                continue;
            }
            let expected = match format {
                "gemini" => {
                    condense::transcript::json::replace_top_level(line.as_bytes(), "tokens", "null")
                        .map_or(line.to_owned(), |l| String::from_utf8(l).unwrap())
                }
                _ => line.to_owned(),
            };
            assert!(
                out.contains(&expected),
                "{file}: a preserved record changed or is missing"
            );
        }
    }
}
