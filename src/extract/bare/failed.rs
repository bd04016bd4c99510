//! `TEST: <command> → 0pass 2fail: TestResume`: the test a failed run failed, by name, when
//! bare's lines have room left for it (see `with_failed`). The counts say that the run failed;
//! the agent's next step is to open the failing test or run it alone, and for that it needs its
//! name (Go's `--- FAIL: TestX`, pytest's `FAILED tests/test_a.py::test_x`, Jest's `FAIL
//! src/a.test.ts`) or, when the output names only an assertion's place (`a_test.go:374: …`),
//! the test file.

use super::super::failures::is_finding;
use super::super::model::{CommandUse, Extract};
use super::super::subtests::failed_go_test;

/// Failed tests named after a run's counts: the first says where to look, and more would
/// crowd the command and the other lines out of a hundred tokens.
const NAMED: usize = 1;

/// The tests the latest run of `run` failed, at most [`NAMED`], in the order its output
/// printed them: what the extract kept of that run's error lines (see `outcome`), each
/// read by [`failed_test`]. None when the run did not fail.
pub(super) fn failed_tests(ex: &Extract, run: &CommandUse) -> Vec<String> {
    let Some(outcome) = run.outcome.filter(|o| o.ok == Some(false)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    let this_run = ex
        .errors
        .iter()
        .filter(|e| e.last == outcome.index && e.command.as_deref() == Some(run.command.as_str()));
    for error in this_run {
        let Some(name) = failed_test(&error.text) else {
            continue;
        };
        // A subtest's name holds its parent's; a file holds the tests in it.
        if !names
            .iter()
            .any(|n| n.contains(&name) || name.contains(n.as_str()))
        {
            names.push(name);
        }
    }
    names.truncate(NAMED);
    names
}

/// The test an error line names as failed: a Go test (with its subtest), a pytest node
/// (`test_a.py::test_x`), a Jest or Vitest file, or the test file an assertion's
/// `path:line: message` sits in; none for any other line.
fn failed_test(line: &str) -> Option<String> {
    if let Some(test) = failed_go_test(line) {
        return Some(test.to_owned());
    }
    let t = line.trim();
    if let Some(rest) = t
        .strip_prefix("FAILED ")
        .or_else(|| t.strip_prefix("FAIL "))
    {
        let word = rest.split_whitespace().next()?;
        return is_test_file(word.split("::").next()?).then(|| file_name(word).to_owned());
    }
    if is_finding(t) {
        let path = t.split(':').next()?;
        return is_test_file(path).then(|| file_name(path).to_owned());
    }
    None
}

/// The last part of a path (with a pytest node's `::name`, which follows it).
fn file_name(path: &str) -> &str {
    let file = path.split("::").next().unwrap_or(path);
    let start = file.rfind('/').map_or(0, |at| at + 1);
    &path[start..]
}

/// True for a file of tests by the usual names: `a_test.go`, `test_a.py`, `a.test.ts`,
/// `a.spec.js`, `a_spec.rb`, `ATests.cs`.
fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    if ext.is_empty() || !ext.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let stem = stem.to_ascii_lowercase();
    // The affix alone (`_test.go` of an output cut mid-name) names no file.
    let named = |rest: Option<&str>| rest.is_some_and(|r| !r.is_empty());
    named(stem.strip_prefix("test_"))
        || ["_test", ".test", ".spec", "_spec", "tests"]
            .iter()
            .any(|affix| named(stem.strip_suffix(affix)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn a_failed_run_names_its_failed_tests_and_a_passing_one_none() {
        let records = [
            user("fix the resume tests"),
            bash("1", "go test ./cmd/..."),
            result(
                "1",
                "--- FAIL: TestResume (0.09s)\n    resume_test.go:88: want 2, got 1\n\
                 --- FAIL: TestResume/from-branch (0.02s)\n--- FAIL: TestRewind (0.1s)\n\
                 FAIL\tentire.io/cli/cmd\t0.3s\nExit code 1",
            ),
        ];
        let ex = extract(&records);
        let run = ex.test_command().unwrap();
        // The subtest stands for its parent; the first failure is named.
        assert_eq!(failed_tests(&ex, run), ["TestResume/from-branch"]);
        // Once it passes, nothing failed.
        let mut fixed = records.to_vec();
        fixed.push(bash("2", "go test ./cmd/..."));
        fixed.push(result("2", "ok  \tentire.io/cli/cmd\t0.3s"));
        let ex = extract(&fixed);
        assert!(failed_tests(&ex, ex.test_command().unwrap()).is_empty());
    }

    #[test]
    fn failed_lines_of_each_runner_name_a_test_and_other_lines_none() {
        assert_eq!(
            failed_test("FAILED tests/test_upload.py::test_retry - AssertionError").as_deref(),
            Some("test_upload.py::test_retry")
        );
        assert_eq!(
            failed_test(" FAIL  src/upload.test.ts > retries").as_deref(),
            Some("upload.test.ts")
        );
        assert_eq!(
            failed_test("    concurrent_test.go:374: both sessions condensed").as_deref(),
            Some("concurrent_test.go")
        );
        for line in [
            "_test.go:760: AgentPercentage = 33.3%, want ~42.9%",
            "FAIL\tentire.io/cli/cmd\t0.3s",
            "src/upload.rs:12:3: error: mismatched types",
            "FAIL with the current implementation",
        ] {
            assert_eq!(failed_test(line), None, "{line}");
        }
    }
}
