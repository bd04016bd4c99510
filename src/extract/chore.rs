//! A first request that was a chore is no goal. After `/clear`, or in a session opened to tidy
//! up first, the first ask is often a command's name alone (`/gsd:progress`), "commit this",
//! "switch to the phase 12 branch", "let's stash and get the latest": done in a turn, while the
//! work the session is about comes in a later request. Such a first request is short and asks
//! for a version-control or set-up action, or only says go ahead; the goal is then the first
//! later request of substance.

use super::prompt_command::is_bare_command;
use super::said::weight;

/// Requests lighter than this (CJK characters weigh two) may be chores.
const CHORE_WEIGHT: usize = 60;

/// A request at least this heavy says what the work is.
const SUBSTANCE_WEIGHT: usize = 80;

/// Words a chore asks with, as its first word after politeness.
const CHORE_VERBS: [&str; 26] = [
    "commit", "push", "pull", "stash", "switch", "checkout", "rebase", "merge", "fetch", "sync",
    "update", "install", "build", "run", "make", "deploy", "release", "clean", "reset", "revert",
    "continue", "proceed", "go", "do", "yes", "ok",
];

/// Openings that only make a request polite.
const POLITE: [&str; 10] = [
    "please", "can", "could", "you", "let's", "lets", "ok", "okay", "yeah", "now",
];

/// True for a request that is a chore (see the module docs).
pub(super) fn is_chore(request: &str) -> bool {
    // A command's name alone (`/gsd:progress`) does its work in a turn and says no goal.
    if is_bare_command(request) {
        return true;
    }
    if weight(request) >= CHORE_WEIGHT {
        return false;
    }
    let lower = request.to_lowercase();
    let first = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .find(|w| !POLITE.contains(w));
    first.is_some_and(|w| CHORE_VERBS.contains(&w)) || first.is_none()
}

/// The request to take as the goal when the first one, `requests[0]`, is a chore: the first
/// later one of substance; `None` to keep the first.
pub(super) fn goal_after_chore(requests: &[(usize, String)]) -> Option<&(usize, String)> {
    let (first, later) = requests.split_first()?;
    if !is_chore(&first.1) {
        return None;
    }
    later
        .iter()
        .find(|(_, text)| weight(text) >= SUBSTANCE_WEIGHT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_chore_gives_way_to_the_first_request_of_substance() {
        for chore in [
            "commit this",
            "switch to the phase 12 branch",
            "let's stash and get the latest updates",
            "yeah let's do it",
            "run make gen-all && make check",
            "/gsd:progress",
        ] {
            assert!(is_chore(chore), "{chore}");
        }
        for work in [
            "how does this work with auto-commit?",
            "why is lint failing on the build?",
            "our git status has broken, why?",
        ] {
            assert!(!is_chore(work), "{work}");
        }
        let requests = [
            (1, "commit this".to_owned()),
            (5, "ok".to_owned()),
            (
                9,
                "the upload fails with a 500 when the file is over 10 MB: find out why and fix it"
                    .to_owned(),
            ),
        ];
        assert_eq!(goal_after_chore(&requests).unwrap().0, 9);
        assert_eq!(goal_after_chore(&requests[..2]), None);
        assert_eq!(goal_after_chore(&requests[2..]), None);
    }
}
