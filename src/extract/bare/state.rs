//! `NOW: <state> | <task …>`: where the work stands, ahead of the task, in a few words: the
//! work is `complete` (edited, then every check since passed, see `complete`), and what git
//! holds of it (`committed <hash>`, and how many files changed after). A session cut there goes
//! on to report, review, commit or push, and which of them depends on exactly this; the task's
//! words rarely say it, and the agent's last words say it in many more. Work all committed
//! shows its last commit's subject too: the agent's own one-line name for the work just done
//! ("WP14: Create main-new.ts"), which the task (often "continue" or "commit this") does not
//! give. With files changed since, the subject names work already behind, and is left out:
//! measured on the eval corpus, it took NOW's room from the live task (now probes 50 -> 48).
//! Work all committed and then pushed says so (`all committed and pushed`, see `pushed`).

use super::super::complete::is_complete;
use super::super::model::Extract;
use super::pushed::pushed_after_last_commit;

/// The state of the work (see the module doc), or none when nothing is known of it. Without
/// `subject`, work all committed names its last commit by the hash alone: the form a line too
/// short for the whole subject shows (see `subject`).
pub(super) fn work_state(ex: &Extract, subject: bool) -> Option<String> {
    let mut parts = Vec::new();
    if is_complete(ex) {
        parts.push("complete".to_owned());
    }
    if let Some(last) = ex.commits.last() {
        let done = if pushed_after_last_commit(ex) {
            "committed and pushed"
        } else {
            "committed"
        };
        parts.push(match ex.uncommitted {
            0 if subject => format!("all {done} ({} {})", last.hash, last.subject),
            0 => format!("all {done} {}", last.hash),
            n => format!("committed {}, {n} uncommitted", last.hash),
        });
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::model::{CommandUse, Commit, FileUse, RunOutcome, Said, TestCounts};

    fn edited_then_tested() -> Extract {
        Extract {
            task: Some(Said {
                text: "make the uploader retry".to_owned(),
                index: 1,
            }),
            files: vec![FileUse {
                path: "src/upload.rs".to_owned(),
                edit: 1,
                last: 4,
                ..FileUse::default()
            }],
            commands: vec![CommandUse {
                command: "cargo test".to_owned(),
                runs: 1,
                last: 6,
                outcome: Some(RunOutcome {
                    exit: Some(0),
                    ok: Some(true),
                    tests: Some(TestCounts {
                        passed: 12,
                        failed: 0,
                    }),
                    index: 7,
                }),
                test: true,
                ..CommandUse::default()
            }],
            ..Extract::default()
        }
    }

    #[test]
    fn the_state_says_complete_and_what_git_holds() {
        let mut ex = edited_then_tested();
        assert_eq!(work_state(&ex, true).as_deref(), Some("complete"));
        ex.commits.push(Commit {
            hash: "81a343d".to_owned(),
            subject: "retry uploads".to_owned(),
            index: 9,
        });
        assert_eq!(
            work_state(&ex, true).as_deref(),
            Some("complete; all committed (81a343d retry uploads)")
        );
        assert_eq!(
            work_state(&ex, false).as_deref(),
            Some("complete; all committed 81a343d")
        );
        ex.uncommitted = 2;
        ex.commands[0].outcome.as_mut().unwrap().ok = Some(false);
        assert_eq!(
            work_state(&ex, true).as_deref(),
            Some("committed 81a343d, 2 uncommitted")
        );
        // Nothing checked, nothing committed: nothing to say.
        ex.commits.clear();
        assert_eq!(work_state(&ex, true), None);
    }
}
