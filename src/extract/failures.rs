//! What a failed run says went wrong, and when a later run says it is fixed.
//!
//! - A failed run's `path:line[:column]: message` lines are its findings: a compiler's
//!   (`checkpoint.go:407:1: syntax error: …`), a linter's (`a.go:12:3: string has 3
//!   occurrences, make it a constant (goconst)`) and a failed assertion's (`attribution_test.go:
//!   760: AgentPercentage = 33.3%, want ~42.9%`), which carry no `error:` word. Only a failed
//!   run's count: a passing run prints such lines as logs.
//! - A test failure is fixed when a later run of the same runner passes (`go test ./... -run X`
//!   fails, `go test ./...` passes), not only a run of the very same command line.
//! - A failed test is fixed when a later passing run names it, whatever its runner (see
//!   `rerun`).
//! - A failed look (`ls`, `cat`, `grep` of a path that is not there) is exploration: once a later
//!   command succeeds, the agent has moved on.

use super::plumbing::{run_segment, run_segments};
use super::rerun::reruns_failed_test;
use super::text::has;

/// True for a diagnostic line `path:line[:column]: message`, the path a file name with an
/// extension (a `path(line,column): …` line is read by `outcome`).
pub(super) fn is_finding(line: &str) -> bool {
    let t = line.trim();
    let Some((place, message)) = t.split_once(": ") else {
        return false;
    };
    if message.trim().is_empty() || place.contains(char::is_whitespace) {
        return false;
    }
    let mut parts = place.split(':');
    let path = parts.next().unwrap_or_default();
    let numbers: Vec<&str> = parts.collect();
    let file = path.rsplit('/').next().unwrap_or(path);
    matches!(numbers.len(), 1 | 2)
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && file.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// Words that start a tool through a runner; the family of a command runs to the word after.
const RUNNERS: [&str; 14] = [
    "npx", "bunx", "uv", "uvx", "run", "exec", "npm", "pnpm", "yarn", "bun", "mise", "poetry",
    "python", "python3",
];

/// The message of a finding, without its place (`undefined: agent` of `a.go:579:13: undefined:
/// agent`): one mistake made in many places is one finding.
pub(super) fn finding_message(line: &str) -> Option<&str> {
    is_finding(line)
        .then(|| line.trim().split_once(": ").map(|(_, m)| m.trim()))
        .flatten()
}

/// Programs whose first argument is a subcommand (`go test`, `cargo test`, `make check`).
const SUBCOMMANDED: [&str; 11] = [
    "go", "cargo", "make", "just", "dotnet", "deno", "swift", "git", "gh", "docker", "kubectl",
];

/// The runner a command runs, without its arguments: `go test`, `cargo test`, `mise run test`
/// (a `test:ci` task is `test`), `uv run pytest`, `npm test`, of the segment that is the run
/// (see `plumbing`). Two
/// commands of one family run the same tests, the one perhaps fewer of them.
pub(super) fn family(command: &str) -> String {
    let segment = run_segment(command);
    let mut words: Vec<&str> = Vec::new();
    for word in segment.split_whitespace() {
        if words.is_empty() && word.contains('=') {
            continue;
        }
        if word.starts_with('-') && word != "-m" {
            break;
        }
        let word = word.split(':').next().unwrap_or(word);
        words.push(word);
        let launcher = RUNNERS.contains(&word) || word == "-m";
        let subcommand_next = words.len() == 1 && SUBCOMMANDED.contains(&word);
        if !(launcher || subcommand_next) {
            break;
        }
    }
    words.join(" ")
}

/// True for an error that says a path or a command is missing, the kind a look around meets.
pub(super) fn is_missing(error: &str) -> bool {
    [
        "No such file",
        "not found",
        "cannot find",
        "does not exist",
        "cannot access",
    ]
    .iter()
    .any(|m| has(error, m))
}

/// True when a successful run of command `run` fixes an error that command `by` met (`look`:
/// `by` only looks at things): the same command, or one of its family, passed, alone or as one
/// segment of a longer line (`npm run check && npm test`); or the error was
/// a look that missed and the agent has moved on.
pub(super) fn fixed_by(error: &str, by: &str, look: bool, run: &str) -> bool {
    let failed = family(by);
    // `git` alone (`git -C dir status`) names no family: any git command would match it.
    let named = !SUBCOMMANDED.contains(&failed.as_str());
    by == run
        || (named && run_segments(run).iter().any(|s| family(s) == failed))
        || (look && is_missing(error))
        || reruns_failed_test(error, run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_are_located_diagnostics() {
        for line in [
            "cmd/entire/cli/checkpoint/checkpoint.go:407:1: syntax error: unexpected keyword type",
            "    manual_commit_attribution_test.go:760: AgentPercentage = 33.3%, want ~42.9%",
            "a.go:12:3: string `x` has 3 occurrences, make it a constant (goconst)",
        ] {
            assert!(is_finding(line), "{line}");
        }
        assert_eq!(
            finding_message("a.go:579:13: undefined: agent"),
            Some("undefined: agent")
        );
        for line in [
            "2026/01/27 13:36:42 INFO attribution calculated",
            "ok  \tentire.io/cli/cmd\t(cached)",
            "http://localhost:3000: ready",
            "Note: see docs",
            "main.go:12: ",
        ] {
            assert!(!is_finding(line), "{line}");
        }
    }

    #[test]
    fn a_family_is_the_runner_without_its_arguments() {
        assert_eq!(family("go test ./cmd/... -run TestX -count=1"), "go test");
        assert_eq!(family("go test -race ./..."), "go test");
        assert_eq!(family("mise run test:ci"), "mise run test");
        assert_eq!(family("mise run fmt && mise run test"), "mise run test");
        assert_eq!(family("uv run pytest tests/test_a.py -x"), "uv run pytest");
        assert_eq!(family("CI=1 npm test -- --watch=false"), "npm test");
        assert_eq!(family("python -m pytest -q"), "python -m pytest");
        assert_eq!(family("cargo test -p condense"), "cargo test");
        assert_eq!(family("git checkout main && git branch -D x"), "git branch");
        assert!(fixed_by(
            "Warning: 1 TODO marker(s) left",
            "npm run check",
            false,
            "npm run check && npm test"
        ));
        assert!(!fixed_by(
            "fatal: unable to read e536",
            "xxd a/index; echo; git -C a status",
            false,
            "git -C b log"
        ));
        assert!(is_missing(
            "ls: cannot access 'x': No such file or directory"
        ));
        assert!(fixed_by(
            "--- FAIL: TestX",
            "go test ./a -run TestX",
            false,
            "go test ./..."
        ));
        assert!(!fixed_by(
            "--- FAIL: TestX",
            "go test ./a",
            false,
            "go build ./..."
        ));
        assert!(fixed_by(
            "cat: a.go: No such file or directory",
            "cat a.go",
            true,
            "ls src"
        ));
        assert!(!fixed_by("error: x", "make", false, "ls src"));
        // Another runner, but the passing run names the failed test.
        assert!(fixed_by(
            "--- FAIL: TestResume (0.09s)",
            "mise run test:ci",
            false,
            "go test -run TestResume ./cmd/..."
        ));
        assert!(!is_missing("error[E0308]: mismatched types"));
    }
}
