//! `all committed and pushed`: work all committed whose last commit a `git push` sent after
//! it. Whether the commits are on the remote decides the next turn's step (push them, or open
//! the pull request, or wait for review), and the task's words ("commit and push") say what
//! was asked, not what ran. A push that failed, or ran before the last commit, does not count.

use super::super::commits::runs_git;
use super::super::model::Extract;

/// True when a `git push` that did not fail ran after the last commit (its result came at or
/// after the commit's record: `git commit … && git push` is one result).
pub(super) fn pushed_after_last_commit(ex: &Extract) -> bool {
    let Some(last) = ex.commits.last() else {
        return false;
    };
    ex.commands.iter().any(|c| {
        runs_git(&c.command, "push")
            && c.outcome
                .is_some_and(|o| o.index >= last.index && o.ok != Some(false))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::model::{CommandUse, Commit, RunOutcome};

    fn run(command: &str, index: usize, ok: bool) -> CommandUse {
        CommandUse {
            command: command.to_owned(),
            runs: 1,
            last: index,
            outcome: Some(RunOutcome {
                exit: Some(if ok { 0 } else { 1 }),
                ok: Some(ok),
                tests: None,
                index: index + 1,
            }),
            ..CommandUse::default()
        }
    }

    #[test]
    fn a_push_counts_after_the_last_commit_and_when_it_did_not_fail() {
        let mut ex = Extract {
            commits: vec![Commit {
                hash: "97bbd7a".to_owned(),
                subject: "clarify the hook docs".to_owned(),
                index: 11,
            }],
            ..Extract::default()
        };
        assert!(!pushed_after_last_commit(&ex));
        // Pushed in the same command line as the commit: one result, at the commit's record.
        ex.commands = vec![run("git add -A && git commit -m 'x' && git push", 10, true)];
        assert!(pushed_after_last_commit(&ex));
        // A push that failed, or one before the commit, leaves the commits local.
        ex.commands = vec![run("git push origin main", 20, false)];
        assert!(!pushed_after_last_commit(&ex));
        ex.commands = vec![run("git push", 4, true)];
        assert!(!pushed_after_last_commit(&ex));
        // `push` of another tool is no git push.
        ex.commands = vec![run("git status && docker push img", 20, true)];
        assert!(!pushed_after_last_commit(&ex));
    }
}
