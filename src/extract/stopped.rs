//! A run stopped rather than failed: a server or a watcher the agent ended on purpose (Ctrl-C,
//! a TERM, Codex ending the process it started) reports a non-zero status and, in Python, a
//! `KeyboardInterrupt` traceback. Neither is a failure of the work: the status says "stopped",
//! and the interrupt is no error to fix.

/// Exit statuses of a process ended by a signal the agent sent: 130 (SIGINT, Ctrl-C), 143
/// (SIGTERM), and Codex's -1 for a process it killed.
const STOP_STATUSES: [i64; 3] = [130, 143, -1];

/// True for the exit status of a stopped process.
pub(super) fn is_stopped(exit: Option<i64>) -> bool {
    exit.is_some_and(|code| STOP_STATUSES.contains(&code))
}

/// True for an error line that only says the process was interrupted.
pub(super) fn is_interrupt(line: &str) -> bool {
    let line = line.trim();
    line == "KeyboardInterrupt" || line.starts_with("KeyboardInterrupt:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_the_agent_sent_stops_a_run_without_failing_it() {
        assert!(is_stopped(Some(130)));
        assert!(is_stopped(Some(-1)));
        assert!(!is_stopped(Some(1)));
        assert!(!is_stopped(None));
        assert!(is_interrupt("KeyboardInterrupt"));
        assert!(!is_interrupt("TypeError: expected str, not list"));
    }
}
