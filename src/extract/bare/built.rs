//! The build on TEST when the session ran no test: a session that only compiles its change
//! (`go build ./...` after a rebase, `cargo build`) verifies with that, and the next turn runs it
//! again; `TEST:none` would say nothing was checked.

use super::super::model::{CommandUse, Extract};
use super::super::text::has;

/// Commands that compile a project, matched as the start of one of its words (`make` in
/// `make all`, not `remake`).
const BUILDS: [&str; 10] = [
    "go build",
    "cargo build",
    "npm run build",
    "pnpm build",
    "pnpm run build",
    "yarn build",
    "bun run build",
    "tsc",
    "make",
    "gradle build",
];

/// The latest build command with an outcome, when no test command ran.
pub(super) fn latest_build(ex: &Extract) -> Option<&CommandUse> {
    ex.commands
        .iter()
        .filter(|c| c.outcome.is_some() && builds(&c.command))
        .max_by_key(|c| c.last)
}

/// True when `command` runs one of [`BUILDS`] at a word's start.
fn builds(command: &str) -> bool {
    BUILDS.iter().any(|build| {
        has(command, build)
            && command.match_indices(build).any(|(at, _)| {
                let before = command[..at].chars().next_back();
                let after = command[at + build.len()..].chars().next();
                before.is_none_or(|c| c.is_whitespace() || c == ';' || c == '&' || c == '(')
                    && after.is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn the_latest_build_is_found_and_lookalikes_are_not() {
        let records = [
            user("rebase on main"),
            bash("1", "go build ./..."),
            result("1", "ok"),
            bash("2", "git stash pop && go build ./..."),
            result("2", "ok"),
            bash("3", "cat Makefile"),
            result("3", "all:"),
        ];
        let ex = extract(&records);
        let build = latest_build(&ex).expect("a build ran");
        assert_eq!(build.command, "git stash pop && go build ./...");
        assert!(builds("make all") && builds("npx tsc -p ."));
        assert!(!builds("remake all") && !builds("tsconfig.json") && !builds("make-dir x"));
    }
}
