//! CLI manners: `--check --quiet`, `--keep-going`, `--no-total`, `--files-from`, compressed
//! input, `--from` that matches nothing, mixed formats, the Anthropic request body, `--body`.

use std::fs;
use std::io::Write;

use crate::util::{assert_success, condense, fixture, json_lines, run_ok, stderr, CORPUS};

const CODEX: &str = "corpus/codex/agent-sessions-small.jsonl";
const GEMINI: &str = "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl";
const OPENAI: &str = "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl";
const CLAUDE: &str = "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl";

#[test]
fn check_quiet_prints_nothing_and_answers_with_the_status() {
    for (max_context, code) in [("1000", 3), ("10000000", 0)] {
        let output = condense()
            .args([
                "estimate",
                "--check",
                "--quiet",
                "--max-context",
                max_context,
            ])
            .arg(fixture(OPENAI))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(code));
        assert!(output.stdout.is_empty() && output.stderr.is_empty());
    }
    // --quiet means nothing without --check.
    let output = condense()
        .args(["estimate", "--quiet"])
        .arg(fixture(OPENAI))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn keep_going_reports_a_bad_file_measures_the_rest_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    fs::write(&bad, "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n").unwrap();
    let missing = dir.path().join("missing.jsonl");
    let args = |keep_going: bool| {
        let mut cmd = condense();
        cmd.arg("estimate");
        if keep_going {
            cmd.arg("--keep-going");
        }
        cmd.arg(fixture(OPENAI))
            .arg(&bad)
            .arg(fixture(CODEX))
            .arg(&missing)
            .output()
            .unwrap()
    };
    // Without it the first failure is the error and nothing is printed.
    let output = args(false);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(stderr(&output).contains("bad.jsonl:2: invalid JSON"));

    let output = args(true);
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output.stdout);
    assert_eq!(lines.len(), 3, "two reports and their total");
    assert_eq!(lines[0]["format"], "openai");
    assert_eq!(lines[1]["format"], "codex");
    assert_eq!(lines[2]["files"], 2);
    let err = stderr(&output);
    let errors: Vec<&str> = err.lines().collect();
    assert!(errors[0].starts_with("condense: error: ") && errors[0].contains("bad.jsonl:2"));
    assert!(errors[1].contains("missing.jsonl: cannot open"), "{err}");
    assert!(
        errors[2].contains("2 of 4 inputs could not be read"),
        "{err}"
    );
    // --check still fails with 1, not 3: the answer is incomplete.
    let output = condense()
        .args(["estimate", "--keep-going", "--check", "--max-context", "10"])
        .arg(fixture(OPENAI))
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn no_total_leaves_out_the_total_line_in_json_and_markdown() {
    let files = [fixture(OPENAI), fixture(CODEX)];
    let output = condense()
        .args(["estimate", "--no-total"])
        .args(&files)
        .output()
        .unwrap();
    let lines = json_lines(&output.stdout);
    assert_eq!(lines.len(), 2);
    assert!(lines.iter().all(|l| l.get("total").is_none()));
    let output = condense()
        .args(["estimate", "--no-total", "--format", "markdown"])
        .args(&files)
        .output()
        .unwrap();
    let table = String::from_utf8(output.stdout).unwrap();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(!table.contains("total"));
    let output = condense()
        .args(["estimate", "--no-total", "--total"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn files_from_reads_newline_and_nul_separated_lists_from_a_file_or_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<String> = CORPUS
        .iter()
        .map(|(path, _)| fixture(path).display().to_string())
        .collect();
    let expected = condense()
        .args(["estimate", "--no-total"])
        .args(&all)
        .output()
        .unwrap()
        .stdout;
    let list = dir.path().join("list");
    fs::write(&list, format!("{}\r\n\n", all.join("\n"))).unwrap();
    let from_file = condense()
        .args(["estimate", "--no-total", "--files-from"])
        .arg(&list)
        .output()
        .unwrap();
    assert_eq!(from_file.stdout, expected, "{}", stderr(&from_file));
    let nul = all.join("\0") + "\0";
    let from_stdin = condense()
        .args(["estimate", "--no-total", "--files-from", "-"])
        .write_stdin(nul)
        .output()
        .unwrap();
    assert_eq!(from_stdin.stdout, expected);
    // FILEs come first, then the list.
    let both = condense()
        .args(["estimate", "--no-total", "--files-from"])
        .arg(&list)
        .arg(fixture(GEMINI))
        .output()
        .unwrap();
    assert_eq!(json_lines(&both.stdout).len(), all.len() + 1);
    assert_eq!(json_lines(&both.stdout)[0]["format"], "gemini");
    // An empty list is no input at all, not standard input.
    fs::write(&list, "").unwrap();
    let none = run_ok(condense().args(["estimate", "--files-from"]).arg(&list));
    assert!(none.stdout.is_empty());
}

/// Whether this build reads zstd (`--version` lists its features).
fn has_zstd() -> bool {
    let output = condense().arg("--version").output().unwrap();
    String::from_utf8_lossy(&output.stdout).contains("+zstd")
}

#[test]
fn gzip_and_zstd_input_reads_as_the_plain_file_and_xz_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let plain = fs::read(fixture(CODEX)).unwrap();
    let gz = dir.path().join("s.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&plain).unwrap();
    fs::write(&gz, encoder.finish().unwrap()).unwrap();
    let tokens = |args: &[&str], file: Option<&std::path::Path>, stdin: Option<Vec<u8>>| {
        let mut cmd = condense();
        cmd.args(args);
        if let Some(file) = file {
            cmd.arg(file);
        }
        if let Some(stdin) = stdin {
            cmd.write_stdin(stdin);
        }
        let output = cmd.output().unwrap();
        assert_success(&output, "");
        output.stdout
    };
    let expected = tokens(&["estimate", "--total"], Some(&fixture(CODEX)), None);
    assert_eq!(tokens(&["estimate", "--total"], Some(&gz), None), expected);
    assert_eq!(
        tokens(&["estimate", "--total"], None, Some(fs::read(&gz).unwrap())),
        expected,
        "a piped gzip stream is recognised by its bytes"
    );
    // The one-file commands read it the same way.
    assert_eq!(
        tokens(&["bare"], Some(&gz), None),
        tokens(&["bare"], Some(&fixture(CODEX)), None)
    );

    // inject --in-place would write plain JSONL over the .gz: refused, the file untouched.
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "NOW: x\n").unwrap();
    let before = fs::read(&gz).unwrap();
    let output = condense()
        .args(["inject", "--in-place", "--summary"])
        .arg(&summary)
        .arg(&gz)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("--in-place cannot rewrite a compressed transcript"));
    assert_eq!(fs::read(&gz).unwrap(), before);
    // To stdout it works.
    let output = condense()
        .args(["inject", "--summary"])
        .arg(&summary)
        .arg(&gz)
        .output()
        .unwrap();
    assert!(
        output.status.success() || output.status.code() == Some(4),
        "{}",
        stderr(&output)
    );

    let zst = dir.path().join("s.jsonl.zst");
    // The zstd frame of the plain file, written by the zstd format's simplest encoder: a raw
    // (uncompressed) block. The magic is what condense recognises; the frame is valid zstd.
    fs::write(&zst, raw_zstd_frame(&plain)).unwrap();
    if has_zstd() {
        assert_eq!(tokens(&["estimate", "--total"], Some(&zst), None), expected);
    } else {
        let output = condense().arg("estimate").arg(&zst).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert!(stderr(&output).contains("zstd -dc"), "{}", stderr(&output));
    }

    let xz = dir.path().join("s.jsonl.xz");
    fs::write(&xz, [0xfd, b'7', b'z', b'X', b'Z', 0, 0, 4]).unwrap();
    let output = condense().arg("estimate").arg(&xz).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("xz-compressed; decompress it first: xz -dc"));
}

/// What the `zstd` tool writes (see `fixtures/compressed/README.md`) reads as the plain file:
/// compressed blocks, a checksum, several frames and a skippable frame between them. A frame
/// whose checksum does not match its content is an error naming the file, with nothing on
/// standard output.
#[test]
fn zstd_files_the_zstd_tool_wrote_read_as_the_plain_file_and_a_bad_checksum_is_an_error() {
    if !has_zstd() {
        return say_skipped_without_zstd();
    }
    let total = |file: &std::path::Path| {
        let output = run_ok(condense().args(["estimate", "--total"]).arg(file));
        output.stdout
    };
    let expected = total(&fixture(CODEX));
    for name in [
        "agent-sessions-small.jsonl.zst",
        "agent-sessions-small.frames.jsonl.zst",
    ] {
        let zst = fixture(&format!("compressed/{name}"));
        assert_eq!(total(&zst), expected, "{name}");
        // Piped, recognised by its first bytes.
        let output = condense()
            .args(["estimate", "--total"])
            .write_stdin(fs::read(&zst).unwrap())
            .output()
            .unwrap();
        assert_success(&output, format_args!("{name}"));
        assert_eq!(output.stdout, expected, "{name} on standard input");
    }
    // The checksum is the frame's last 4 bytes.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = fs::read(fixture("compressed/agent-sessions-small.jsonl.zst")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    let bad = dir.path().join("bad.jsonl.zst");
    fs::write(&bad, &bytes).unwrap();
    let output = condense().arg("estimate").arg(&bad).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.contains("bad.jsonl.zst") && message.contains("checksum of a zstd frame"),
        "{message}"
    );
    assert!(output.stdout.is_empty());
    // Bytes after the last frame that are no frame.
    let mut trailing = fs::read(fixture("compressed/agent-sessions-small.jsonl.zst")).unwrap();
    trailing.extend_from_slice(b"{\"role\":\"user\"}\n");
    fs::write(&bad, &trailing).unwrap();
    let output = condense().arg("estimate").arg(&bad).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not a valid zstd stream"),
        "{}",
        stderr(&output)
    );
}

/// Says why a zstd test has nothing to check in a build without the `zstd` feature.
fn say_skipped_without_zstd() {
    crate::util::say_skipped("this condense is built without the `zstd` feature");
}

/// A zstd frame holding `data` in raw blocks (no compression, no checksum).
fn raw_zstd_frame(data: &[u8]) -> Vec<u8> {
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd];
    // Frame header: single segment, 8-byte content size.
    frame.push(0b1110_0000);
    frame.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let chunks: Vec<&[u8]> = data.chunks(1 << 16).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let last = u32::from(i + 1 == chunks.len());
        // Block header: last flag, raw type (0), size.
        let header = last | ((chunk.len() as u32) << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.extend_from_slice(chunk);
    }
    frame
}

#[test]
fn from_that_matches_no_line_is_an_error() {
    // Claude Code lines read as Gemini records are messages without parts; Codex lines read as
    // Claude Code ones are bookkeeping. Either way 0 tokens, which is a wrong --from.
    for (command, from, file) in [
        ("estimate", "gemini", CLAUDE),
        ("estimate", "claude-code", CODEX),
        ("split", "gemini", CLAUDE),
        ("caveman", "claude-code", CODEX),
    ] {
        let output = condense()
            .args([command, "--from", from])
            .arg(fixture(file))
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{command}");
        let expected = format!("no line is a {from} message with content; is --from right?");
        assert!(
            stderr(&output).contains(&expected),
            "{command}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty());
    }
    // The right format still reads.
    run_ok(
        condense()
            .args(["estimate", "--from", "openai"])
            .arg(fixture(OPENAI)),
    );
}

#[test]
fn mixed_formats_are_an_error_unless_from_names_one() {
    let codex = fs::read_to_string(fixture(CODEX)).unwrap();
    let gemini_line = fs::read_to_string(fixture(GEMINI))
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_owned();
    // Codex lines without their session header, then one Gemini line.
    let body: Vec<&str> = codex.lines().skip(1).take(20).collect();
    let mixed = format!("{}\n{gemini_line}\n", body.join("\n"));
    let output = condense()
        .arg("estimate")
        .write_stdin(mixed.clone())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("a codex line and line 21 a gemini line"),
        "{err}"
    );
    assert!(err.contains("mixes transcript formats; name the one to read with --from"));
    run_ok(
        condense()
            .args(["estimate", "--from", "codex"])
            .write_stdin(mixed),
    );
    // No corpus session is taken for a mixture.
    for (path, format) in CORPUS {
        let output = condense()
            .arg("estimate")
            .arg(fixture(path))
            .output()
            .unwrap();
        assert_success(&output, format_args!("{path}"));
        assert_eq!(json_lines(&output.stdout)[0]["format"], format);
    }
}

#[test]
fn prompt_format_anthropic_is_a_messages_request_body() {
    let output = run_ok(
        condense()
            .args(["prompt", "--format", "anthropic"])
            .arg(fixture(OPENAI)),
    );
    let body = json_lines(&output.stdout).remove(0);
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert_eq!(body["max_tokens"], 8192);
    assert_eq!(
        body["system"],
        "You are a helpful assistant that compacts conversation context."
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["role"], "user");
    let blocks = messages[0]["content"].as_array().unwrap();
    assert!(blocks
        .iter()
        .all(|b| b["type"] == "text" && !b["text"].as_str().unwrap().is_empty()));
    // The text blocks joined are the text request.
    let text = condense()
        .arg("prompt")
        .arg(fixture(OPENAI))
        .output()
        .unwrap();
    let joined: String = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
    assert_eq!(joined.as_bytes(), text.stdout);
    assert!(body.get("tools").is_none());

    let output = condense()
        .args([
            "prompt",
            "--format",
            "anthropic",
            "--model",
            "claude-sonnet-4-5",
            "--reply-tokens",
            "2000",
        ])
        .arg(fixture(OPENAI))
        .output()
        .unwrap();
    let body = json_lines(&output.stdout).remove(0);
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 2000);
    // The OpenAI body keeps its own default model.
    let output = condense()
        .args(["prompt", "--format", "openai"])
        .arg(fixture(OPENAI))
        .output()
        .unwrap();
    assert_eq!(json_lines(&output.stdout)[0]["model"], "gpt-4o-mini");
}

#[test]
fn prompt_body_is_the_style_text_alone_with_the_instruction() {
    let output = run_ok(condense().args([
        "prompt",
        "--body",
        "--style",
        "handoff",
        "--instructions",
        "keep the schema",
    ]));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        !text.starts_with('\n') && !text.starts_with("---"),
        "{text}"
    );
    assert!(text.ends_with("keep the schema\n"));
    assert!(text.contains("**User's Custom Compaction Instruction:**"));
}

/// On a terminal, a command reading standard input says so on stderr (instead of waiting in
/// silence) and ends on the first Ctrl-D. `script` (util-linux) gives condense a terminal; the
/// test types a line and one Ctrl-D, and keeps the terminal open: a condense that waits for a
/// second end is still running when the test stops waiting.
#[test]
fn a_terminal_on_stdin_gets_a_hint_and_one_ctrl_d_ends_it() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let bin = assert_cmd::cargo::cargo_bin("condense");
    let mut child = Command::new("script")
        .args([
            "-qec",
            &format!("{} estimate --total", bin.display()),
            "/dev/null",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    let mut typing = child.stdin.take().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    typing
        .write_all(b"{\"role\":\"user\",\"content\":\"hello there\"}\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    typing.write_all(b"\x04").unwrap();
    typing.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("condense still waits for input after one Ctrl-D");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(typing);
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut text).unwrap();
    assert!(status.success(), "{text}");
    assert!(
        text.contains("condense: reading a transcript from the terminal; end it with Ctrl-D"),
        "{text}"
    );
    // The one message typed, counted: the last line the terminal shows is the total.
    assert_eq!(text.trim_end().lines().last(), Some("2"), "{text}");
}

/// Exit statuses as grep and cargo users expect: a search with no match is 1 with nothing
/// printed; no newest session is an error (1), for `sessions --latest` as for `bare --latest`;
/// an empty session is "nothing to do" (4) for `prune` as for `prompt`; a `--target` prune
/// cannot reach says so; `--total` is a bare number, so it takes no `--format`.
#[test]
fn exit_statuses_answer_as_grep_and_the_other_commands_do() {
    let dir = tempfile::tempdir().unwrap();
    let claude = fixture(CLAUDE);
    let code = |output: &std::process::Output| output.status.code();

    let no_match = condense()
        .args(["history", "--search", "no such text anywhere 7f3a"])
        .arg(&claude)
        .output()
        .unwrap();
    assert_eq!(code(&no_match), Some(1));
    assert!(no_match.stdout.is_empty() && no_match.stderr.is_empty());
    let word = condense()
        .args(["history", "--search", "the"])
        .arg(fixture(
            "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
        ))
        .output()
        .unwrap();
    assert_eq!(code(&word), Some(0), "{}", stderr(&word));
    assert!(!word.stdout.is_empty());

    for command in ["sessions", "bare"] {
        let none = condense()
            .env("HOME", dir.path())
            .args([command, "--latest"])
            .output()
            .unwrap();
        assert_eq!(code(&none), Some(1), "{command} --latest");
        assert!(none.stdout.is_empty());
        assert!(
            stderr(&none).contains("no session found in"),
            "{command}: {}",
            stderr(&none)
        );
    }

    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    for command in ["prune", "prompt"] {
        let output = condense().arg(command).arg(&empty).output().unwrap();
        assert_eq!(code(&output), Some(4), "{command}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("empty.jsonl: nothing to"),
            "{command}"
        );
        assert!(!stderr(&output).contains("warning"), "{command}");
    }

    let short = condense()
        .args(["prune", "--target", "100"])
        .arg(fixture(OPENAI))
        .output()
        .unwrap();
    assert_eq!(code(&short), Some(0));
    assert!(
        stderr(&short).contains("tokens of live context, above --target 100"),
        "{}",
        stderr(&short)
    );

    let total = condense()
        .args(["estimate", "--total", "--format", "markdown"])
        .arg(&claude)
        .output()
        .unwrap();
    assert_eq!(code(&total), Some(2));
}

/// Messages that point the right way: a binary file is "not a transcript" (no `--from` hint,
/// which could not help); a line of another agent's format after the lines the format was told
/// from says what it is, not the other format's complaint; `prune --in-place` on a compressed
/// session says in-place cannot rewrite it (not "invalid UTF-8 … --from").
#[test]
fn errors_name_the_real_cause() {
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("a.out.jsonl");
    fs::write(
        &binary,
        b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x01\0\0\0",
    )
    .unwrap();
    let output = condense().arg("estimate").arg(&binary).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains(
            "a.out.jsonl:1: not a transcript: the file holds binary data (byte 8 is not text)"
        ),
        "{err}"
    );
    assert!(!err.contains("--from"), "{err}");

    // 60 lines of a Claude Code session (more than the 50 the format is told from), then a
    // plain chat message.
    let claude = fs::read_to_string(fixture(
        "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
    ))
    .unwrap();
    let lines: Vec<&str> = claude.lines().collect();
    assert!(lines.len() > 50);
    let mixed = dir.path().join("mixed.jsonl");
    fs::write(
        &mixed,
        format!(
            "{}\n{{\"role\":\"user\",\"content\":\"hi\"}}\n",
            lines.join("\n")
        ),
    )
    .unwrap();
    let output = condense().arg("estimate").arg(&mixed).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains(&format!("mixed.jsonl:{}: ", lines.len() + 1))
            && err.contains("it reads as a line in the openai format, in a transcript the first lines showed to be claude-code; the input mixes formats"),
        "{err}"
    );

    let gz = dir.path().join("k.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(&fs::read(fixture(OPENAI)).unwrap())
        .unwrap();
    fs::write(&gz, encoder.finish().unwrap()).unwrap();
    let before = fs::read(&gz).unwrap();
    let output = condense()
        .args(["prune", "--in-place"])
        .arg(&gz)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("--in-place cannot rewrite a compressed transcript"),
        "{}",
        stderr(&output)
    );
    assert_eq!(fs::read(&gz).unwrap(), before);
}
