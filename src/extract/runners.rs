//! Test counts from test runners' summary lines.

use super::model::TestCounts;
use super::outcome::leading_int;
use super::text::has;

/// Test counts in a runner's output: cargo test (`test result: ok. N passed; M failed`, summed
/// over test binaries), pytest (`N passed, M failed in 0.2s`), jest / vitest (`Tests: N failed,
/// M passed`), mocha (`N passing`, `M failing`), node --test / TAP (`# pass N`), go test
/// (`--- PASS` / `--- FAIL` lines under `-v`, else `ok` / `FAIL` package lines).
pub fn test_counts(output: &str) -> Option<TestCounts> {
    let mut cargo: Option<TestCounts> = None;
    let mut summary: Option<TestCounts> = None;
    let (mut go_pass, mut go_fail, mut pkg_pass, mut pkg_fail) = (0, 0, 0, 0);
    let add = |slot: &mut Option<TestCounts>, passed: u64, failed: u64| {
        let counts = slot.get_or_insert_with(TestCounts::default);
        counts.passed += passed;
        counts.failed += failed;
    };
    // Most outputs are not a test run's; a few fast scans say so before any line is looked at.
    const SIGNS: [&str; 7] = ["pass", "fail", "PASS", "FAIL", "ok  \t", "ok \t", "ok\t"];
    if !SIGNS.iter().any(|sign| has(output, sign)) {
        return None;
    }
    for line in output.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(at) = memchr::memmem::find(t.as_bytes(), b"test result:") {
            let rest = &t[at..];
            add(
                &mut cargo,
                count_before(rest, "passed").unwrap_or(0),
                count_before(rest, "failed").unwrap_or(0),
            );
            continue;
        }
        if t.starts_with("--- PASS") {
            go_pass += 1;
            continue;
        }
        if t.starts_with("--- FAIL") {
            go_fail += 1;
            continue;
        }
        if (t.starts_with("ok ") || t.starts_with("ok\t")) && line.contains('\t') {
            if !has(t, "[no tests to run]") {
                pkg_pass += 1;
            }
            continue;
        }
        if t.starts_with("FAIL\t") {
            pkg_fail += 1;
            continue;
        }
        let jest = t.starts_with("Tests:") || t.starts_with("Tests ");
        // node --test: TAP's `# pass 5`, the spec reporter's `ℹ pass 5`.
        let tap = t
            .strip_prefix("# ")
            .or_else(|| t.strip_prefix("ℹ "))
            .filter(|rest| rest.starts_with("pass ") || rest.starts_with("fail "));
        if let Some(rest) = tap {
            let n = leading_int(rest[5..].trim()).unwrap_or(0).max(0) as u64;
            let (p, f) = if rest.starts_with("pass") {
                (n, 0)
            } else {
                (0, n)
            };
            add(&mut summary, p, f);
            continue;
        }
        let passed = count_before(t, "passed").or_else(|| count_before(t, "passing"));
        let failed = count_before(t, "failed")
            .or_else(|| count_before(t, "failing"))
            .map(|f| {
                f + count_before(t, "errors")
                    .or_else(|| count_before(t, "error"))
                    .unwrap_or(0)
            });
        if passed.is_none() && failed.is_none() {
            continue;
        }
        let digit_first = t.starts_with(|c: char| c.is_ascii_digit());
        // pytest's summary sits between `=` rules or ends with the run time (`in 0.25s`).
        let pytest = t.starts_with('=') || (digit_first && t.contains(" in "));
        let mocha = digit_first
            && (t.ends_with("passing") || t.contains("passing (") || t.contains("failing"));
        if jest || pytest || mocha {
            add(&mut summary, passed.unwrap_or(0), failed.unwrap_or(0));
        }
    }
    cargo.or(summary).or_else(|| {
        if go_pass + go_fail > 0 {
            // A package's `FAIL` line is printed last: when the output was cut to its tail
            // (`go test -v … | tail -50`), the `--- FAIL` lines may be gone and only it says the
            // run failed. Each failed package holds one failed test at least.
            Some(TestCounts {
                passed: go_pass,
                failed: go_fail.max(pkg_fail),
            })
        } else if pkg_pass + pkg_fail > 0 {
            Some(TestCounts {
                passed: pkg_pass,
                failed: pkg_fail,
            })
        } else {
            None
        }
    })
}

/// The number right before ` word` in `line` (`5 passed`), for a whole word.
fn count_before(line: &str, word: &str) -> Option<u64> {
    let mut rest = line;
    let mut offset = 0;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), word.as_bytes()) {
        let pos = offset + at;
        let end = pos + word.len();
        let whole = line[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if whole {
            let before = line[..pos].trim_end();
            let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 && before.len() < pos {
                if let Ok(n) = before[before.len() - digits..].parse() {
                    return Some(n);
                }
            }
        }
        offset = end;
        rest = &line[end..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::text::plain_text;

    #[test]
    fn test_runners_are_parsed() {
        let pytest = "\u{1b}[32m====== \u{1b}[1m53 passed\u{1b}[0m, \u{1b}[33m135 deselected\u{1b}[0m in 0.25s ======\u{1b}[0m";
        assert_eq!(
            test_counts(&plain_text(pytest)),
            Some(TestCounts {
                passed: 53,
                failed: 0
            })
        );
        assert_eq!(
            test_counts("FAILED a.py::t - assert 1\n2 failed, 10 passed in 1.2s"),
            Some(TestCounts {
                passed: 10,
                failed: 2
            })
        );
        assert_eq!(
            test_counts("Tests:       1 failed, 5 passed, 6 total"),
            Some(TestCounts {
                passed: 5,
                failed: 1
            })
        );
        assert_eq!(
            test_counts(" Test Files  1 passed (1)\n      Tests  12 passed (12)"),
            Some(TestCounts {
                passed: 12,
                failed: 0
            })
        );
        assert_eq!(
            test_counts("ok  \tpkg/a\t0.1s\nok  \tpkg/b\t(cached)\nFAIL\tpkg/c\t0.2s\n?   \tpkg/d\t[no test files]"),
            Some(TestCounts { passed: 2, failed: 1 })
        );
        assert_eq!(
            test_counts("=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\tpkg\t0.1s"),
            Some(TestCounts { passed: 1, failed: 1 })
        );
        // `go test -v … | tail -5`: the `--- FAIL` lines were cut off, the package's is left.
        assert_eq!(
            test_counts("--- PASS: TestC (0.00s)\n    --- PASS: TestC/a (0.00s)\nFAIL\nFAIL\tpkg\t0.6s\nFAIL"),
            Some(TestCounts { passed: 2, failed: 1 })
        );
        assert_eq!(
            test_counts("  12 passing (30ms)\n  1 failing"),
            Some(TestCounts {
                passed: 12,
                failed: 1
            })
        );
        assert_eq!(test_counts("All tests passed!\n✓ 3 cases passed"), None);
    }
}
