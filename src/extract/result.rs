//! The line a run ends on to say what it did: `Wrote 48 rows to out/report.md`, `check: 3
//! files`, `Built 12 pages in 0.4s`. Exit statuses and test counts say whether a run passed;
//! this line says what it produced, which the next turn is often asked about ("how many rows
//! does the report have now?"). Only the latest run's is kept: an older one is stale.
//!
//! It is the last of the output's final lines that counts something: a number and at least
//! two words of letters, a sentence rather than data or a diagnostic. A shell's status echo (`exit 0`), git's `create mode` lines and
//! Codex's cell wrapper (`Wall time 0.1 seconds`) are not results.

use super::failures::is_finding;
use super::outcome::error_lines;
use super::text::one_line;

/// Characters kept of a result line.
const RESULT_CHARS: usize = 100;

/// Lines looked at from the end of an output: a result is printed last.
const LAST_LINES: usize = 3;

/// Openings of lines that report on the run rather than on what it did.
const NOT_RESULTS: [&str; 6] = [
    "exit ",
    "create mode",
    "delete mode",
    "wall time",
    "process exited",
    "script completed",
];

/// The result line of a run's output (see the module docs), if its final lines hold one.
pub(super) fn result_line(output: &str) -> Option<String> {
    output
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .rev()
        .take(LAST_LINES)
        .find(|line| is_result(line))
        .map(|line| one_line(line, RESULT_CHARS))
}

fn is_result(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    // A result is a sentence: not data (`"id": 3`, `{…}`), a diagnostic or an error.
    let sentence = line.starts_with(|c: char| c.is_alphabetic());
    if !sentence
        || NOT_RESULTS.iter().any(|n| lower.starts_with(n))
        || line.len() > 2 * RESULT_CHARS
        || is_finding(line)
        || !error_lines(line, false).is_empty()
    {
        return false;
    }
    let words = line
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 2)
        .count();
    line.bytes().any(|b| b.is_ascii_digit()) && words >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_that_counts_what_the_run_did() {
        assert_eq!(
            result_line(
                "python3 report.py --out out/report.md\nWarning: 2 records without region \
                 skipped\nWrote 48 rows to out/report.md\nexit 0\n"
            )
            .as_deref(),
            Some("Wrote 48 rows to out/report.md")
        );
        assert_eq!(
            result_line("> sh scripts/check.sh\n\ncheck: 3 files\n").as_deref(),
            Some("check: 3 files")
        );
        for nothing in [
            "",
            "exit 0",
            "Script completed\nWall time 0.1 seconds\n create mode 100644 a.py",
            "done\nok",
            "resume.go:440:42: cannot use id (variable of type string) as CheckpointID",
            "  \"last_checkpoint_id\": \"e3402324506f\"",
        ] {
            assert_eq!(result_line(nothing), None, "{nothing}");
        }
    }
}
