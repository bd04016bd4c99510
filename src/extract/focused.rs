//! The test the agent last ran by itself. A session that works on one test runs it alone
//! (`go test -run TestX`, `pytest -k test_x`, `pytest tests/a.py::test_x`, `vitest -t
//! "retries"`) between the full runs; after a full run fails, that test is what it runs
//! again, and its name is what the full run's output (`FAIL pkg 15.2s`) leaves out: bare's
//! test line and caveman's latest test run end on `; alone: <filter>` (bare's when it has
//! room).

use super::model::{CommandUse, Extract};
use super::plumbing::run_segments;

/// Options that take the name (or pattern) of the tests to run: Go's `-run`, pytest's `-k`,
/// Jest's and Vitest's `-t` / `--testNamePattern`, Mocha's and Playwright's `--grep`.
const NAME_OPTIONS: [&str; 5] = ["-run", "-k", "-t", "--testNamePattern", "--grep"];

impl Extract {
    /// The latest test run that selects tests by name, and its filter.
    pub fn focused_run(&self) -> Option<(&CommandUse, String)> {
        self.commands
            .iter()
            .filter(|c| c.test && c.outcome.is_some())
            .filter_map(|c| Some((c, test_filter(&c.command)?)))
            .max_by_key(|(c, _)| c.last)
    }
}

/// The filter of the latest test run that selects tests by name, when the reported test run
/// (see `Extract::test_command`) failed and does not hold it: after a failed run, the test the
/// agent last ran alone is the one it runs again; after a passing one it is done with it.
pub(super) fn focused_test(ex: &Extract) -> Option<String> {
    let reported = ex
        .test_command()
        .filter(|c| c.outcome.is_some_and(|o| o.ok == Some(false)))?;
    ex.focused_run()
        .map(|(_, filter)| filter)
        .filter(|filter| !reported.command.contains(filter.as_str()))
}

/// The tests `command` selects by name: the value of a name option (see [`NAME_OPTIONS`],
/// `-run X` or `-run=X`, quotes taken off), else the `::name` of a pytest node id.
fn test_filter(command: &str) -> Option<String> {
    for segment in run_segments(command) {
        let words: Vec<&str> = segment.split_whitespace().collect();
        for (n, word) in words.iter().enumerate() {
            let value = match word.split_once('=') {
                Some((option, value)) if NAME_OPTIONS.contains(&option) => Some(value),
                _ if NAME_OPTIONS.contains(word) => words.get(n + 1).copied(),
                _ => None,
            };
            let value = value.map(|v| v.trim_matches(|c| c == '"' || c == '\''));
            if let Some(value) = value.filter(|v| !v.is_empty() && !v.starts_with('-')) {
                return Some(value.to_owned());
            }
            if let Some((file, name)) = word.split_once("::") {
                if file.ends_with(".py") && !name.is_empty() {
                    return Some(name.to_owned());
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn the_filter_is_the_tests_a_run_selects_by_name() {
        let filter = |c: &str| test_filter(c);
        assert_eq!(
            filter("go test -tags=integration -run TestBoth ./cmd/... -v").as_deref(),
            Some("TestBoth")
        );
        assert_eq!(
            filter("go test -run=TestBoth ./...").as_deref(),
            Some("TestBoth")
        );
        assert_eq!(
            filter("cd api && uv run pytest -k 'retry and not slow'").as_deref(),
            Some("retry")
        );
        assert_eq!(
            filter("pytest tests/test_upload.py::test_retry -x").as_deref(),
            Some("test_retry")
        );
        assert_eq!(filter("go test ./... -v"), None);
        assert_eq!(filter("npx vitest run src/a.test.ts"), None);
    }

    #[test]
    fn after_a_failed_run_the_latest_run_alone_shows_unless_that_run_holds_it() {
        let records = [
            user("make both sessions condense"),
            bash("1", "go test -run TestBoth ./integration/ -v"),
            result("1", "--- PASS: TestBoth (0.2s)\nok  \tx/integration\t0.3s"),
            bash("2", "mise run test:integration"),
            result("2", "FAIL\tx/integration\t15.2s\nExit code 1"),
        ];
        let ex = extract(&records);
        assert_eq!(
            ex.test_command().unwrap().command,
            "mise run test:integration"
        );
        assert_eq!(focused_test(&ex).as_deref(), Some("TestBoth"));
        // A passing full run leaves nothing to run again.
        let mut passed = records.to_vec();
        passed[4] = result("2", "ok  \tx/integration\t15.2s");
        assert_eq!(focused_test(&extract(&passed)), None);
        // The failed run alone is the one reported: it names its test already.
        let alone = [
            user("make both sessions condense"),
            bash("1", "go test -run TestBoth ./integration/ -v"),
            result(
                "1",
                "--- FAIL: TestBoth (0.2s)\nFAIL\tx/integration\t0.3s\nExit code 1",
            ),
        ];
        assert_eq!(focused_test(&extract(&alone)), None);
    }
}
