//! What every test file shares: a hermetic way to run `condense` (cleared environment, fixture
//! paths from the repository), the check that a command succeeded, and golden files.

use std::ffi::OsStr;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output};

use assert_cmd::Command;

/// `condense` with an empty environment, so no user setting leaks into a test.
pub fn condense() -> Command {
    let mut cmd = Command::cargo_bin("condense").expect("the condense binary is built");
    cmd.env_clear();
    cmd
}

/// The standard error of a finished command, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Fails the test unless `output` ended with status 0, saying `what` ran (nothing when it is
/// empty), its exit status and its standard error.
#[track_caller]
pub fn assert_success(output: &Output, what: impl Display) {
    if output.status.success() {
        return;
    }
    let what = what.to_string();
    let what = if what.is_empty() {
        String::new()
    } else {
        format!("{what}: ")
    };
    panic!(
        "{what}failed ({})\nstderr: {}",
        output.status,
        stderr(output)
    );
}

/// Runs `cmd`, fails the test unless it succeeds (showing its standard error), and returns its
/// output.
#[track_caller]
pub fn run_ok(cmd: &mut Command) -> Output {
    let output = cmd.output().expect("the command runs");
    assert_success(&output, "");
    output
}

/// The standard output of `condense ARGS`, which must succeed.
#[track_caller]
pub fn condense_ok<S: AsRef<OsStr>>(args: &[S]) -> Vec<u8> {
    let output = condense().args(args).output().expect("condense runs");
    let shown: Vec<&OsStr> = args.iter().map(AsRef::as_ref).collect();
    assert_success(&output, format_args!("condense {shown:?}"));
    output.stdout
}

/// [`condense_ok`] as text.
#[track_caller]
pub fn condense_text<S: AsRef<OsStr>>(args: &[S]) -> String {
    String::from_utf8(condense_ok(args)).expect("condense prints UTF-8")
}

/// Compares `actual` with the golden file at `path`; with `CONDENSE_BLESS` set, writes it
/// there instead. A difference fails the test with its first differing line, and both texts
/// when they are short; `review` says what to check before blessing the new text.
#[track_caller]
pub fn check_golden(path: &Path, actual: &str, review: &str) {
    if std::env::var_os("CONDENSE_BLESS").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|_| panic!("{} is missing; run with CONDENSE_BLESS=1", path.display()));
    if expected == actual {
        return;
    }
    let (line, want, got) = expected
        .split_inclusive('\n')
        .zip(actual.split_inclusive('\n'))
        .enumerate()
        .find(|(_, (want, got))| want != got)
        .map(|(n, (want, got))| (n + 1, want, got))
        .unwrap_or_else(|| {
            let n = expected.lines().count().min(actual.lines().count());
            (n + 1, "(the end)", "(the end)")
        });
    let whole = if expected.lines().count() + actual.lines().count() <= 400 {
        format!("\n--- expected\n{expected}\n--- actual\n{actual}")
    } else {
        String::new()
    };
    panic!(
        "{} differs from line {line} on ({} lines expected, {} now); {review}, then rerun with \
         CONDENSE_BLESS=1\n--- expected line {line}\n{want}\n--- actual line {line}\n{got}{whole}",
        path.display(),
        expected.lines().count(),
        actual.lines().count(),
    );
}

/// A path inside `fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// Every real transcript in `fixtures/corpus/` that is JSONL, with the format it must be
/// detected as.
pub const CORPUS: [(&str, &str); 9] = [
    (
        "corpus/claude-code/claude-code-viewer-5c0375b4.jsonl",
        "claude-code",
    ),
    (
        "corpus/claude-code/claude-code-viewer-fe5e1c67.jsonl",
        "claude-code",
    ),
    (
        "corpus/claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
        "claude-code",
    ),
    (
        "corpus/claude-code/kimi-cli-5b2c427a42e0.jsonl",
        "claude-code",
    ),
    ("corpus/codex/agent-sessions-small.jsonl", "codex"),
    (
        "corpus/gemini-cli/agent-sessions-jsonl_v040.jsonl",
        "gemini",
    ),
    (
        "corpus/openai-chat/kimi-cli-swebench-531d195b.jsonl",
        "openai",
    ),
    (
        "corpus/openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
        "openai",
    ),
    ("corpus/pi/pi-mono-large-session.jsonl", "pi"),
];

/// Parses each stdout line as JSON.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8(stdout.to_vec())
        .expect("stdout is UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("every stdout line is JSON"))
        .collect()
}

/// Runs `condense estimate ARGS` with `stdin` and returns the single JSON report.
pub fn estimate_stdin(args: &[&str], stdin: &str) -> serde_json::Value {
    let output = condense()
        .arg("estimate")
        .args(args)
        .write_stdin(stdin.to_owned())
        .output()
        .expect("condense runs");
    assert_success(&output, format_args!("estimate {args:?}"));
    let mut lines = json_lines(&output.stdout);
    assert_eq!(lines.len(), 1);
    lines.remove(0)
}

/// The `llm` executable: `$CONDENSE_TEST_LLM`, or the virtualenv `.ci/run` makes, or `llm` on
/// the PATH.
pub fn llm_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CONDENSE_TEST_LLM") {
        return Some(PathBuf::from(path));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/llm-venv/bin/llm");
    if venv.exists() {
        return Some(venv);
    }
    let on_path = StdCommand::new("llm").arg("--version").output();
    on_path
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("llm"))
}

/// Says on the terminal that the running test skips, and why. Written to stderr itself, not
/// through `eprintln!`, which the test harness captures and shows only for failing tests: a
/// local `cargo test` then lists every skip among the results.
pub fn say_skipped(why: &str) {
    use std::io::Write;
    let test = std::thread::current();
    let _ = writeln!(
        std::io::stderr().lock(),
        "SKIPPED {}: {why}",
        test.name().unwrap_or("a test")
    );
}

/// The `llm` executable for a test that needs it: in CI a missing one fails the test; locally
/// the test is skipped, saying so.
pub fn required_llm() -> Option<PathBuf> {
    let found = llm_binary();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install llm and llm-echo (see .ci/run)"
        );
        say_skipped("llm is not installed (run .ci/run, or set CONDENSE_TEST_LLM)");
    }
    found
}

/// The live context's size `estimate` reports for a file.
pub fn context_tokens(path: &Path) -> u64 {
    let output = condense()
        .args(["estimate", "--format", "jsonl"])
        .arg(path)
        .output()
        .unwrap();
    assert_success(&output, format_args!("estimate {}", path.display()));
    json_lines(&output.stdout)[0]["context"]["tokens"]
        .as_u64()
        .unwrap()
}
