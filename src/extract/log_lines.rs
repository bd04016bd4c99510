//! Log lines among a failed run's findings. A test that fails prints what it logged beside its
//! assertion, and a logged line often has the `file:line: message` shape of a finding
//! (`hooks.go:196: Hook output: 2026/01/30 20:38:27 INFO saved component=hooks …`). A line
//! that logs at an informational level (`INFO`, `DEBUG`, `level=info`) reports progress, not a
//! failure, so it does not take one of a result's few error lines from the assertion after it.

/// The log levels that say a line is no failure.
const QUIET_LEVELS: [&str; 3] = ["INFO", "DEBUG", "TRACE"];

/// True when `message` (a finding's text after its place) logs at an informational level: one of
/// [`QUIET_LEVELS`] as a whole word (`20:38:27 INFO saved`, `[DEBUG]`), or `level=info` /
/// `level=debug` as structured loggers write it.
pub(super) fn logs_progress(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    if lower.contains("level=info") || lower.contains("level=debug") {
        return true;
    }
    message
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|word| QUIET_LEVELS.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_logged_progress_line_is_no_failure() {
        assert!(logs_progress(
            "Hook user-prompt-submit output: 2026/01/30 20:38:27 INFO user-prompt-submit component=hooks"
        ));
        assert!(logs_progress("time=12:00 level=debug msg=\"loaded\""));
        assert!(logs_progress("[DEBUG] cache warm"));
        // A failure, or a word that only contains a level's letters, stays an error.
        assert!(!logs_progress(
            "shadow branch entire/d25f7d3 not found: reference not found"
        ));
        assert!(!logs_progress("expected INFORMATION header, got none"));
        assert!(!logs_progress("level=error msg=\"write failed\""));
    }
}
