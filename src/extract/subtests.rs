//! Go's failed subtests: `go test` prints `--- FAIL: TestFlow (0.00s)` and then, indented,
//! `--- FAIL: TestFlow/manual-commit (0.63s)` for the case inside it that failed. The subtest's
//! line names the parent too, so keeping both spends two of a result's few error lines on one
//! failure and leaves out the next one (the assertion's `a_test.go:128: …`, another test). The
//! subtest's line takes its parent's place instead.

/// The test a Go `--- FAIL: NAME (…)` line names, with its subtest (`TestFlow/manual-commit`);
/// none for any other line.
pub(super) fn failed_go_test(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("--- FAIL:")?.trim_start();
    rest.split_whitespace().next()
}

/// True when `inner` is a subtest (at any depth) of `outer`: `TestFlow/a` of `TestFlow`.
fn is_subtest_of(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.starts_with('/'))
}

/// Where `line` goes among the error lines `found` so far: `Some(i)` when it is a failed
/// subtest whose parent's line is `found[i]` (the subtest takes its place), and `Err(())` when
/// a subtest of the test it names is already there (it adds nothing); `None` otherwise.
pub(super) fn subtest_place(found: &[String], line: &str) -> Result<Option<usize>, ()> {
    let Some(test) = failed_go_test(line) else {
        return Ok(None);
    };
    for (i, earlier) in found.iter().enumerate() {
        let Some(other) = failed_go_test(earlier) else {
            continue;
        };
        if is_subtest_of(test, other) {
            return Ok(Some(i));
        }
        if is_subtest_of(other, test) {
            return Err(());
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_subtest_takes_its_parents_place() {
        let found = vec![
            "a_test.go:351: branch should exist".to_owned(),
            "--- FAIL: TestFlow (0.00s)".to_owned(),
        ];
        assert_eq!(
            subtest_place(&found, "--- FAIL: TestFlow/manual-commit (0.63s)"),
            Ok(Some(1))
        );
        // The parent after its subtest adds nothing.
        let found = vec!["--- FAIL: TestFlow/manual-commit (0.63s)".to_owned()];
        assert_eq!(subtest_place(&found, "--- FAIL: TestFlow (0.00s)"), Err(()));
        // Another test, or a test whose name only starts alike, is a failure of its own.
        assert_eq!(
            subtest_place(&found, "--- FAIL: TestFlowB (0.1s)"),
            Ok(None)
        );
        assert_eq!(subtest_place(&found, "FAIL\tentire.io/cli\t3.2s"), Ok(None));
    }
}
