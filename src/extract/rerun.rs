//! A failed test is fixed when a later run that names it passes: `mise run test:ci` fails
//! with `--- FAIL: TestResume_WithTrailer`, the agent fixes the code and runs `go test -run
//! TestResume_WithTrailer ./cmd/…`, which passes. The two commands are of different runners,
//! so `failures::fixed_by` (same command or same runner) keeps the error open, and the summary
//! then shows as the live failure a test that passed last.

use super::subtests::failed_go_test;

/// The test a failure line names: Go's `--- FAIL: TestX (0.01s)` (`TestX/sub` is `TestX`),
/// pytest's `FAILED tests/a.py::test_x - assert …` (`test_x`).
fn failed_test(error: &str) -> Option<&str> {
    let t = error.trim();
    let name = if let Some(test) = failed_go_test(t) {
        test.split('/').next()?
    } else if let Some(rest) = t.strip_prefix("FAILED ") {
        let id = rest.split_whitespace().next()?;
        let test = id.rsplit("::").next()?;
        (test != id).then_some(test)?.split('[').next()?
    } else {
        return None;
    };
    (name.len() >= 4).then_some(name)
}

/// True when `run`, a command that passed, runs the test that `error` says failed: the name
/// is in its line, or a `-run` / `-k` pattern of it selects the name by its start (Go's `-run
/// TestResume` runs `TestResume_WithTrailer`).
pub(super) fn reruns_failed_test(error: &str, run: &str) -> bool {
    let Some(name) = failed_test(error) else {
        return false;
    };
    let words: Vec<&str> = run.split_whitespace().collect();
    words.iter().enumerate().any(|(i, word)| {
        let pattern = i > 0 && matches!(words[i - 1], "-run" | "-k");
        word.split(['|', ':', '/', '=', ',', '"', '\''])
            .map(|w| w.trim_matches(['^', '$', '(', ')']))
            .any(|w| w == name || (pattern && w.len() >= 4 && name.starts_with(w)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passing_run_of_the_failed_test_fixes_it() {
        let go = "--- FAIL: TestResume_WithTrailer (0.09s)";
        assert!(reruns_failed_test(
            go,
            "go test -race -run TestResume_WithTrailer ./cmd/entire/cli/ -count=1"
        ));
        assert!(reruns_failed_test(go, "go test -run \"^TestResume\" ./..."));
        assert!(!reruns_failed_test(go, "go test -run TestOther ./..."));
        assert!(!reruns_failed_test(go, "go build ./..."));
        let pytest = "FAILED tests/test_a.py::test_parse[x] - assert 1 == 2";
        assert!(reruns_failed_test(pytest, "uv run pytest -k test_parse -q"));
        assert!(reruns_failed_test(
            pytest,
            "pytest tests/test_a.py::test_parse"
        ));
        assert!(!reruns_failed_test(pytest, "pytest tests/test_b.py"));
        assert!(!reruns_failed_test("error: x", "go test -run TestX"));
    }
}
