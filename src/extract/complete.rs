//! Whether the work the latest request asked for is complete: the agent edited after the
//! request, then ran its checks, and every run since the latest edit passed, a test run among
//! them, with no error left open (by these runs or earlier ones) and no todo left but the one in
//! progress (the checks that passed since the latest edit are what finishes it: "Run fmt, lint,
//! and tests", still marked in progress when the transcript stops on the last passing run).
//!
//! A session cut there is at its end state ("implementation complete, all checks pass"), which
//! the agent's last words rarely say outright ("Now let me run the integration tests", and the
//! run passed): the next turn reports, reviews or commits rather than fixing. Nothing is said
//! when any of it is missing: a run in flight, a failure after the edit, a request after the
//! runs, a todo not started.

use super::model::{CommandUse, Extract};

/// The state line of a complete piece of work.
pub(super) const COMPLETE: &str = "state: complete, every check since the latest edit passed";

/// True when the extract ends on checked, finished work (see the module doc).
pub(super) fn is_complete(ex: &Extract) -> bool {
    // The latest use of a changed file: no earlier than its latest edit.
    let Some(edit) = ex
        .files
        .iter()
        .filter(|f| f.written())
        .map(|f| f.last)
        .max()
    else {
        return false;
    };
    let asked_before = ex.task.as_ref().is_none_or(|t| t.index < edit);
    let after: Vec<&CommandUse> = ex.commands.iter().filter(|c| c.last > edit).collect();
    // An error still open, even one seen before the edit, says some check has not passed
    // since (a re-run of the one failing test passes, the whole suite was not run again).
    let open_error = ex.errors.iter().any(|e| !e.resolved);
    asked_before
        && ex.todos.iter().all(|t| t.active)
        && ex.delegated.is_empty()
        && !open_error
        && after.iter().any(|c| c.test)
        && after.iter().all(|c| passed(c))
}

/// The command's latest run has ended, and passed.
fn passed(command: &CommandUse) -> bool {
    let Some(outcome) = command.outcome.filter(|o| o.index >= command.last) else {
        return false;
    };
    let tests_pass = outcome.tests.is_none_or(|t| t.failed == 0);
    tests_pass && outcome.ok.unwrap_or(outcome.exit == Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::model::{FileUse, RunOutcome, Said, TestCounts};

    fn run(command: &str, last: usize, ok: bool, test: bool) -> CommandUse {
        CommandUse {
            command: command.to_owned(),
            runs: 1,
            last,
            outcome: Some(RunOutcome {
                exit: Some(if ok { 0 } else { 1 }),
                ok: Some(ok),
                tests: test.then_some(TestCounts {
                    passed: 3,
                    failed: u64::from(!ok),
                }),
                index: last + 1,
            }),
            test,
            ..CommandUse::default()
        }
    }

    fn edited_then(commands: Vec<CommandUse>) -> Extract {
        Extract {
            task: Some(Said {
                text: "implement the plan".to_owned(),
                index: 1,
            }),
            files: vec![FileUse {
                path: "src/a.rs".to_owned(),
                edit: 2,
                last: 10,
                ..FileUse::default()
            }],
            commands,
            ..Extract::default()
        }
    }

    #[test]
    fn checked_work_is_complete() {
        let ex = edited_then(vec![
            run("cargo test", 12, true, true),
            run("cargo clippy", 14, true, false),
        ]);
        assert!(is_complete(&ex));
    }

    #[test]
    fn a_failure_a_run_in_flight_or_a_later_ask_is_not() {
        let failed = edited_then(vec![run("cargo test", 12, false, true)]);
        assert!(!is_complete(&failed));
        let mut running = edited_then(vec![run("cargo test", 12, true, true)]);
        running.commands[0].last = 20;
        assert!(!is_complete(&running));
        let mut asked = edited_then(vec![run("cargo test", 12, true, true)]);
        asked.task.as_mut().unwrap().index = 16;
        assert!(!is_complete(&asked));
        // Only a look, no test run, since the edit.
        let looked = edited_then(vec![run("git status", 12, true, false)]);
        assert!(!is_complete(&looked));
        // An error left open by an earlier run of the suite.
        let mut open = edited_then(vec![run("cargo test a", 12, true, true)]);
        open.errors.push(crate::extract::model::ErrorSeen {
            text: "a.rs:3: assertion failed".to_owned(),
            last: 5,
            ..Default::default()
        });
        assert!(!is_complete(&open));
        // A step of the todo list not started yet; the one in progress is what the runs check.
        let mut todo = edited_then(vec![run("cargo test", 12, true, true)]);
        todo.todos.push(crate::extract::model::Todo {
            text: "run the tests".to_owned(),
            active: true,
            detail: None,
        });
        assert!(is_complete(&todo));
        todo.todos.push(crate::extract::model::Todo {
            text: "update the docs".to_owned(),
            active: false,
            detail: None,
        });
        assert!(!is_complete(&todo));
        // Tests that passed before the edit say nothing of it.
        let before = edited_then(vec![run("cargo test", 8, true, true)]);
        assert!(!is_complete(&before));
    }
}
