//! The commits the session made, read from what `git commit` printed: `[branch 1a2b3c4]
//! subject` (`[main (root-commit) 1a2b3c4] subject` for a repository's first). Where the work
//! stands in git is state a summary must not lose: the next turn pushes those commits, opens a
//! pull request for them, or still has to commit what was edited after the last one.

use super::model::Commit;

/// Characters kept of a subject.
const SUBJECT_CHARS: usize = 72;

/// The commits a shell command's output reports, when the command runs `git … commit`.
pub fn commits_made(command: &str, output: &str, index: usize) -> Vec<Commit> {
    if !runs_git_commit(command) {
        return Vec::new();
    }
    output
        .lines()
        .filter_map(|line| commit_line(line.trim()))
        .map(|(hash, subject)| Commit {
            hash: hash.to_owned(),
            subject: super::text::one_line(subject, SUBJECT_CHARS),
            index,
        })
        .collect()
}

/// True when one of the words of `command` is `git` and a later one `commit` (`git commit`,
/// `git -C dir commit`, `git add -A && git commit -m …`).
fn runs_git_commit(command: &str) -> bool {
    runs_git(command, "commit")
}

/// True when `command` runs git's `subcommand`: a word `git` (or a path ending in `/git`), then
/// `subcommand` later in the same command of the line; `&&`, `||`, `;` and `|` start another
/// command (`git status && docker push` pushes no commit).
pub(super) fn runs_git(command: &str, subcommand: &str) -> bool {
    let mut git = false;
    for raw in command.split_whitespace() {
        let word = raw.trim_matches(|c: char| "();&|'\"".contains(c));
        if word == "git" || word.ends_with("/git") {
            git = true;
        } else if git && word == subcommand {
            return true;
        }
        if matches!(raw, "&&" | "||" | "|") || raw.ends_with(';') {
            git = false;
        }
    }
    false
}

/// The hash and subject of a `[branch (root-commit) hash] subject` line.
fn commit_line(line: &str) -> Option<(&str, &str)> {
    let inside = line.strip_prefix('[')?;
    let (head, subject) = inside.split_once("] ")?;
    let hash = head.rsplit(' ').next()?;
    let branch = head.split(' ').next()?;
    let hex = (7..=40).contains(&hash.len()) && hash.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && branch != hash && !subject.trim().is_empty()).then_some((hash, subject.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_git_commit_printed_is_a_commit() {
        let output = "[soph/fix-leak 9f5a3c7] fix(api): close the reader\n 2 files changed, \
                      9 insertions(+)\n";
        let made = commits_made("git add -A && git commit -m 'fix(api): close'", output, 4);
        assert_eq!(
            made,
            [Commit {
                hash: "9f5a3c7".into(),
                subject: "fix(api): close the reader".into(),
                index: 4,
            }]
        );
        let root = "[main (root-commit) 81a343d] Initial commit";
        let first = commits_made("git -C repo commit -m init", root, 1);
        assert_eq!(first[0].hash, "81a343d");
        // Another command printing such a line, or a bracket that is no commit, is none.
        assert!(commits_made("cat notes.md", output, 4).is_empty());
        assert!(commits_made("git commit", "[WARN] something odd", 4).is_empty());
        assert!(commits_made("git commit", "[main abc] not hex", 4).is_empty());
    }
}
