//! The code names the user's goal gives, in the order it gives them.
//!
//! A goal is often a whole plan pasted as the first request ("Implement the following plan:
//! …"), and caveman shows only its first sentence or two: the functions and files the plan goes
//! on to name (`paths.GetClaudeProjectDir`, `resumeSingleSession`) are what the work changes,
//! and the next turns look for them, yet a plan names each of them once or twice, early in the
//! session, so they seldom rank among the frequent names. Its first few names are kept here;
//! caveman prints the ones its goal line does not already show (see `render`).

use super::names::first_names;

/// How many of the goal's names are kept: one line of names (see `caveman::render`'s
/// `NAMES_PER_LINE`), the ones a plan gives first.
pub(super) const GOAL_NAMES: usize = 7;

/// The first [`GOAL_NAMES`] distinct code names of the goal's text (see `names::names_in`).
pub(super) fn goal_names(goal: &str) -> Vec<String> {
    first_names(goal, GOAL_NAMES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plans_first_names_are_kept_once_each_in_order() {
        let plan = "Implement the following plan:\n\n# Use ComputeTranscriptPath\n\
            `RestoreLogsOnly` (manual_commit_rewind.go:619) uses `paths.GetClaudeProjectDir(repoRoot)`; \
            `RestoreLogsOnly` and `resumeSingleSession` hardcode it. Then fix \
            classifySessionsForRestore, StartedAt and CommittedMetadata.";
        assert_eq!(
            goal_names(plan),
            [
                "ComputeTranscriptPath",
                "RestoreLogsOnly",
                "manual_commit_rewind.go",
                "GetClaudeProjectDir",
                "repoRoot",
                "resumeSingleSession",
                "classifySessionsForRestore",
            ]
        );
        assert!(goal_names("fix the parser, please").is_empty());
    }
}
