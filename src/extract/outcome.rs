//! How a tool result says a command ended: the format's error flag, the exit status in each
//! agent's wording, and the error lines worth keeping from the output.

use super::failures::{finding_message, is_finding};
use super::log_lines::logs_progress;
use super::stopped::is_interrupt;
use super::subtests::subtest_place;
use super::text::{has, one_line};

/// Characters kept of an error line.
const ERROR_CHARS: usize = 160;

/// Error lines kept from one tool result: a compiler failing on 40 lines repeats itself.
const ERRORS_PER_RESULT: usize = 3;

/// The failure flag a line records for its one tool result: Claude Code `is_error`, pi
/// `isError`.
pub(super) fn error_flag(raw: &[u8]) -> Option<bool> {
    use memchr::memmem::find;
    if find(raw, b"\"is_error\":true").is_some() || find(raw, b"\"isError\":true").is_some() {
        Some(true)
    } else if find(raw, b"\"is_error\":false").is_some()
        || find(raw, b"\"isError\":false").is_some()
    {
        Some(false)
    } else {
        None
    }
}

/// The exit status a tool result states, in the wordings of the agents: kimi-cli's
/// `Command executed successfully.` / `Command failed with exit code: N.`, Claude Code's
/// `Exit code N`, Codex's `Exit code: N` / `Process exited with code N` / JSON `exit_code`,
/// pi's `Command exited with code N`, Gemini's `Exit Code: N`, Claude Code's `<exit_code>N` when it
/// reads a background command. Only the first and last few
/// lines are looked at, where the agents put it, so output that merely mentions an exit code
/// is not taken for one.
pub(super) fn exit_status(text: &str) -> Option<i64> {
    let head = text.get(..text.len().min(200)).unwrap_or(text);
    if has(head, "<system>Command executed successfully.") {
        return Some(0);
    }
    if text.trim_start().starts_with('{') {
        if let Some(at) = text.find("\"exit_code\":") {
            return leading_int(text[at + 12..].trim_start());
        }
    }
    // The first and last four lines (they overlap in a short text; no matter).
    let edges = text.lines().take(4).chain(text.lines().rev().take(4));
    for line in edges {
        let lower = line.trim().to_ascii_lowercase();
        for mark in [
            "failed with exit code",
            "exited with code",
            "exit code",
            "exit status",
            // Claude Code's read of a background command (`TaskOutput`).
            "<exit_code>",
        ] {
            if let Some(at) = memchr::memmem::find(lower.as_bytes(), mark.as_bytes()) {
                let after = lower[at + mark.len()..].trim_start_matches([':', ' ']);
                if let Some(code) = leading_int(after) {
                    return Some(code);
                }
            }
        }
    }
    None
}

pub(super) fn leading_int(text: &str) -> Option<i64> {
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    text[..end].parse().ok()
}

/// Distinct error lines of a command's output, at most [`ERRORS_PER_RESULT`]: compiler
/// errors (`error[E0308]`, `error:`, `error TS2305`, `file:1:2: error:`), Python exceptions
/// (the last line of a `Traceback`, `AssertionError`), panics, `FAILED` / `--- FAIL` test
/// lines, `Error:`, `fatal:`, `npm ERR!`, and missing files or commands.
///
/// A failed run's findings (`path:line: message`, see [`is_finding`]) count too, when `failed`.
pub(super) fn error_lines(output: &str, failed: bool) -> Vec<String> {
    // Every error shape below holds one of these; most outputs hold none.
    const SIGNS: [&str; 9] = [
        "rror",
        "FAIL",
        "fatal",
        "panic",
        "ERR",
        "No such file",
        "not found",
        "Exception",
        "Traceback",
    ];
    let mut found: Vec<String> = Vec::new();
    if !failed && !SIGNS.iter().any(|sign| has(output, sign)) {
        return found;
    }
    let mut traceback = false;
    for line in output.lines() {
        if found.len() >= ERRORS_PER_RESULT {
            break;
        }
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("Traceback (most recent call last)") {
            traceback = true;
            continue;
        }
        if traceback {
            // The exception is the first line back at the left margin.
            if line.starts_with(char::is_whitespace) {
                continue;
            }
            traceback = false;
            if !is_interrupt(t) {
                push_error(&mut found, t);
            }
            continue;
        }
        // Gemini CLI reports `Error: (none)` after every command.
        if is_error_line(t) && !t.ends_with(": (none)") {
            push_error(&mut found, t);
        } else if failed && is_finding(t) {
            // One mistake in many places (`undefined: agent` on three lines) is one error.
            let message = finding_message(t);
            // What a failing test logged is not its failure (see `log_lines`).
            let logged = message.is_some_and(logs_progress);
            if !logged && !found.iter().any(|f| finding_message(f) == message) {
                push_error(&mut found, t);
            }
        }
    }
    found
}

fn push_error(found: &mut Vec<String>, line: &str) {
    let line = one_line(line, ERROR_CHARS);
    if line.is_empty() || found.contains(&line) {
        return;
    }
    // A failed subtest names its parent: one line for both (see `subtests`).
    match subtest_place(found, &line) {
        Ok(Some(parent)) => found[parent] = line,
        Ok(None) => found.push(line),
        Err(()) => {}
    }
}

fn is_error_line(t: &str) -> bool {
    starts_error(t)
        || has(t, "panicked at")
        || has(t, ": error:")
        || has(t, ": error TS")
        || has(t, "): error ")
        || t.ends_with(": command not found")
        || has(t, ": No such file or directory")
}

/// Whether `t` starts with an error as a tool prints it: a compiler's or runner's marker
/// (`error[E0308]`, `fatal:`, `--- FAIL`), or an exception's name (`ValueError: …`, and as
/// Node prints a thrown one, `[TypeError: …]`). Also where quoted output starts in prose
/// (`caveman::terse`).
pub(super) fn starts_error(t: &str) -> bool {
    const STARTS: [&str; 15] = [
        "error[",
        "error:",
        "error TS",
        "ERROR:",
        "ERROR ",
        "Error:",
        "FAILED ",
        "--- FAIL",
        "FAIL ",
        // Go's failed package: `FAIL\tentire.io/cli/cmd\t3.2s`.
        "FAIL\t",
        "fatal:",
        "panic:",
        "npm ERR!",
        "AssertionError",
        "SyntaxError",
    ];
    if STARTS.iter().any(|s| t.starts_with(s)) {
        return true;
    }
    let t = t.strip_prefix('[').unwrap_or(t);
    let name_end = t.find(':').unwrap_or(0);
    let name = &t[..name_end];
    name_end > 0
        && !name.contains(char::is_whitespace)
        && (name.ends_with("Error") || name.ends_with("Exception"))
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_in_each_agents_wording() {
        assert_eq!(
            exit_status("<system>Command executed successfully.</system>\nok"),
            Some(0)
        );
        assert_eq!(
            exit_status("<system>Command failed with exit code: 2.</system>"),
            Some(2)
        );
        assert_eq!(exit_status("Exit code 1\nboom"), Some(1));
        assert_eq!(
            exit_status("Exit code: 0\nWall time: 1s\nOutput:\nx"),
            Some(0)
        );
        assert_eq!(
            exit_status("Chunk ID: a\nWall time: 1s\nProcess exited with code 3\nOutput:"),
            Some(3)
        );
        assert_eq!(
            exit_status("a\nb\nc\nd\ne\nf\n\nCommand exited with code 1"),
            Some(1)
        );
        assert_eq!(
            exit_status(r#"{"output":"x","metadata":{"exit_code":127}}"#),
            Some(127)
        );
        assert_eq!(
            exit_status("Output: x\nError: (none)\nExit Code: (none)"),
            None
        );
        let middle = format!(
            "start\n1\n2\n3\n{}\nexit code 5 was seen\n{}\nend",
            "x\n".repeat(5),
            "y\n".repeat(5)
        );
        assert_eq!(exit_status(&middle), None);
    }

    #[test]
    fn errors_are_first_lines_and_tracebacks_their_exception() {
        let output = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    x()\nValueError: bad value\nerror[E0308]: mismatched types\n --> src/a.rs:1:1\nthread 'main' panicked at src/main.rs:2:5:\nsrc/t.ts(5,15): error TS2305: Module has no member";
        assert_eq!(
            error_lines(output, false),
            [
                "ValueError: bad value",
                "error[E0308]: mismatched types",
                "thread 'main' panicked at src/main.rs:2:5:",
            ]
        );
        assert!(error_lines("all good\nwarning: unused", false).is_empty());
        let go = "=== RUN   TestA\n    a_test.go:760: got 33.3%, want 42.9%\n--- FAIL: TestA (0.00s)\nFAIL\tentire.io/cli\t3.2s";
        assert_eq!(
            error_lines(go, true),
            [
                "a_test.go:760: got 33.3%, want 42.9%",
                "--- FAIL: TestA (0.00s)",
                "FAIL entire.io/cli 3.2s"
            ]
        );
        assert_eq!(error_lines(go, false).len(), 2);
        let build = "a.go:579:13: undefined: agent\na.go:619:13: undefined: agent\nb.go:1:1: x";
        assert_eq!(
            error_lines(build, true),
            ["a.go:579:13: undefined: agent", "b.go:1:1: x"]
        );
    }
}
