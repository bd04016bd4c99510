//! The git steps the latest request orders that the session has not run since: "commit
//! this", "push and create a PR". The agent first gathers `git status`, `git diff` and
//! `git log`, and a summary cut there must still say that the commit itself is next.

use super::model::Extract;

/// A git step a request can order, the words that order it, and the command that does it.
struct Step {
    /// Words that order the step at the start of a clause.
    asked_by: &'static [&'static str],
    /// What a command line holds once the step ran.
    done_by: &'static str,
    /// How NEXT names the step: the commands that do it.
    shown: &'static str,
}

const STEPS: [Step; 3] = [
    Step {
        asked_by: &["commit"],
        done_by: "git commit",
        shown: "git add && git commit",
    },
    Step {
        asked_by: &["push"],
        done_by: "git push",
        shown: "git push",
    },
    Step {
        asked_by: &[
            "create a pr",
            "open a pr",
            "create pr",
            "open pr",
            "create a pull request",
            "open a pull request",
        ],
        done_by: "gh pr create",
        shown: "gh pr create",
    },
];

/// Words before a verb that leave a clause an order: "please commit", "can you push it".
const LEADS: [&str; 8] = [
    "please ",
    "then ",
    "now ",
    "also ",
    "let's ",
    "can you ",
    "could you ",
    "ok ",
];

/// The git steps the latest request orders that no command since has run, as NEXT shows them
/// (`git add && git commit`), joined by `, `; none when it orders none or all of them ran.
pub(super) fn unfinished_git_steps(ex: &Extract) -> Option<String> {
    let task = ex.task.as_ref()?;
    let ask = task.text.to_lowercase();
    let ran_since = |done_by: &str| {
        ex.commands
            .iter()
            .any(|c| c.last > task.index && c.command.contains(done_by))
    };
    let steps: Vec<&str> = STEPS
        .iter()
        .filter(|step| step.asked_by.iter().any(|verb| orders(&ask, verb)))
        .filter(|step| !ran_since(step.done_by))
        .map(|step| step.shown)
        .collect();
    (!steps.is_empty()).then(|| steps.join(", "))
}

/// Words that may follow an ordering verb: its object or where it goes ("commit this", "push
/// to origin", "commit the changes"). A clause whose verb is followed by anything else uses the
/// word as a noun: "commit messages follow the convention", "PR review comments".
const OBJECTS: [&str; 14] = [
    "this",
    "it",
    "that",
    "them",
    "these",
    "the",
    "all",
    "everything",
    "your",
    "my",
    "our",
    "to",
    "now",
    "again",
];

/// True when a clause of `ask` (lowercase) starts with `verb`, after any of [`LEADS`], and ends
/// there or goes on with one of [`OBJECTS`]: an order ("commit this", "push and create a PR",
/// "can you commit it"), not a mention ("the trailer on the real commit", "part of the commit",
/// "commit messages are fine").
fn orders(ask: &str, verb: &str) -> bool {
    ask.split(['.', ',', ';', '!', '?', '\n', '|'])
        .flat_map(|sentence| sentence.split(" and "))
        .any(|clause| {
            let mut rest = clause.trim();
            while let Some(after) = LEADS.iter().find_map(|lead| rest.strip_prefix(lead)) {
                rest = after;
            }
            let Some(after) = rest.strip_prefix(verb) else {
                return false;
            };
            match after.split_whitespace().next() {
                None => true,
                Some(word) if after.starts_with(char::is_whitespace) => OBJECTS.contains(&word),
                Some(_) => false,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn an_ordered_commit_is_next_until_a_commit_runs() {
        let mut records = vec![
            user("fix the lint warnings"),
            bash("1", "cargo clippy"),
            user("commit this"),
            bash("2", "git status"),
            bash("3", "git diff"),
        ];
        let ex = extract(&records);
        assert_eq!(
            unfinished_git_steps(&ex).as_deref(),
            Some("git add && git commit")
        );
        records.push(bash("4", "git add -A && git commit -m 'Fix lint'"));
        assert_eq!(unfinished_git_steps(&extract(&records)), None);
    }

    #[test]
    fn each_step_ordered_and_not_run_is_named_and_a_mention_is_no_order() {
        let ordered = |ask: &str| {
            let records = [user(ask), bash("1", "git push -u origin fix")];
            unfinished_git_steps(&extract(&records))
        };
        assert_eq!(
            ordered("push and create a PR").as_deref(),
            Some("gh pr create")
        );
        assert_eq!(
            ordered("Please commit, then open a pull request.").as_deref(),
            Some("git add && git commit, gh pr create")
        );
        assert_eq!(ordered("the trailer on the real commit should match"), None);
        assert_eq!(ordered("is the PR title right? commits are fine"), None);
        assert_eq!(ordered("pushing it to prod is for later"), None);
        assert_eq!(ordered("commit messages follow the convention"), None);
        assert_eq!(ordered("PR review comments are in"), None);
        assert_eq!(
            ordered("commit the changes and push to origin").as_deref(),
            Some("git add && git commit")
        );
    }
}
