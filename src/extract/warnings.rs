//! What a run that exited 0 still says went wrong. A script that swallows a failure
//! (`Warning: 1 TODO marker(s) left in src/ (exit status 2 suppressed)`), a report that skips
//! records (`Warning: 2 records without region skipped`), a build that warns: the run passed,
//! but the next turn may be asked about exactly that line. The error matchers only look at a
//! failed run's lines or at error words, so a passing run's warning was lost.
//!
//! A warning line starts with a warning word (`Warning:`, `warning:`, `WARNING:`, `WARN:`), or
//! states a non-zero exit status of something the run started (`… exit status 2`, `exited with
//! code 1`). A tool's own chatter (`npm WARN deprecated …`) starts with the tool's name, not
//! the word, and is left out.

use super::outcome::leading_int;
use super::text::{has, one_line};

/// Characters kept of a warning line, as of an error line.
const WARNING_CHARS: usize = 160;

/// Warning lines kept from one run: the first says what to look at.
const WARNINGS_PER_RESULT: usize = 1;

/// Words a warning line starts with.
const WARNING_WORDS: [&str; 4] = ["warning:", "warning ", "warn:", "warn "];

/// Phrases that state an exit status, followed by the number.
const STATUS_PHRASES: [&str; 3] = ["exit status ", "exit code ", "exited with code "];

/// The warning lines of a run's output that exited 0 (see the module docs), at most
/// [`WARNINGS_PER_RESULT`].
pub(super) fn warning_lines(output: &str) -> Vec<String> {
    // Every warning line holds one of these; most outputs hold none, and are not split.
    if !["arn", "ARN", "xit"].iter().any(|sign| has(output, sign)) {
        return Vec::new();
    }
    output
        .lines()
        .map(str::trim)
        .filter(|line| is_warning(line))
        .map(|line| one_line(line, WARNING_CHARS))
        .take(WARNINGS_PER_RESULT)
        .collect()
}

fn is_warning(line: &str) -> bool {
    if !(line.starts_with(['w', 'W']) || has(line, "xit") || has(line, "XIT")) {
        return false;
    }
    let lower = line.to_ascii_lowercase();
    if let Some(word) = WARNING_WORDS.iter().find(|w| lower.starts_with(*w)) {
        // `warning: none`, `warning: 0 issues` say nothing went wrong.
        let rest = lower[word.len()..].trim();
        return !(rest.is_empty() || rest == "none" || rest.starts_with("0 "));
    }
    STATUS_PHRASES.iter().any(|phrase| {
        lower
            .match_indices(phrase)
            .any(|(at, _)| leading_int(&lower[at + phrase.len()..]).is_some_and(|code| code != 0))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passing_runs_warnings_and_swallowed_statuses() {
        let check = "\n> todo-api@0.3.0 check\n> sh scripts/check.sh\n\nWarning: 1 TODO marker(s) \
                     left in src/ (exit status 2 suppressed)\ncheck: 3 files\n";
        assert_eq!(
            warning_lines(check),
            ["Warning: 1 TODO marker(s) left in src/ (exit status 2 suppressed)"]
        );
        assert_eq!(
            warning_lines("lint.sh: eslint exited with code 1, ignored\ndone"),
            ["lint.sh: eslint exited with code 1, ignored"]
        );
        assert_eq!(
            warning_lines("warning: unused variable: `x`\nwarning: unused import: `y`").len(),
            1
        );
        for quiet in [
            "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
            "Wrote 48 rows to out/report.md\nexit 0",
            "process exited with code 0",
            "warning: none",
        ] {
            assert!(warning_lines(quiet).is_empty(), "{quiet}");
        }
    }
}
