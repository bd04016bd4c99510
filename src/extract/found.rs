//! The files the agent's latest search found. A search (`Grep`, `rg -n`, `grep -rn`) lists
//! where a pattern occurs; when it is the last thing the session saw, the files it listed are
//! the ones the agent opens next ("the most occurrences are in manual_commit_workflow_test.go,
//! let me start there"), and a summary that names only the files already read leaves them out.

use super::paths::is_pathlike;
use super::plumbing::run_segments;

/// Files kept of one search's output: the first few are where the agent starts.
const FOUND: usize = 3;

/// The files a search's output lists, in its order, each once (by file name), at most
/// [`FOUND`]: the path a match line (`path:12:text`, `path:text`) or a context line
/// (`path-12-text`) starts with, or a line that is only a path (`grep -l`, a tool's file list).
pub(super) fn found_files(output: &str) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for line in output.lines() {
        let Some(path) = listed_path(line.trim()) else {
            continue;
        };
        // One file listed by its full path and by a relative one is one file.
        let name = |p: &str| p.rsplit('/').next().unwrap_or(p).to_owned();
        if !files.iter().any(|f| name(f) == name(path)) {
            files.push(path.to_owned());
            if files.len() == FOUND {
                break;
            }
        }
    }
    files
}

/// Programs whose run is a search of file contents.
const SEARCHES: [&str; 4] = ["grep", "rg", "ag", "ack"];

/// True for a command line that searches file contents: `grep -rn X src`, `rg X`, `git grep X`.
pub(super) fn is_search_command(command: &str) -> bool {
    run_segments(command).first().is_some_and(|segment| {
        let mut words = segment.split_whitespace();
        match words.next() {
            Some("git") => words.next() == Some("grep"),
            Some(program) => SEARCHES.contains(&program),
            None => false,
        }
    })
}

/// The file path a search output line starts with (see [`found_files`]).
fn listed_path(line: &str) -> Option<&str> {
    let end = line
        .find(|c: char| c == ':' || c.is_whitespace())
        .unwrap_or(line.len());
    let head = &line[..end];
    if is_pathlike(head) {
        return Some(head);
    }
    // A context line joins the path and the line number with dashes: `a_test.go-247-…`.
    head.match_indices('-').find_map(|(at, _)| {
        let number = head[at + 1..].split('-').next()?;
        let numbered = !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit());
        (numbered && is_pathlike(&head[..at])).then(|| &head[..at])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_lists_the_files_its_lines_start_with() {
        let output = "cmd/cli/workflow_test.go:86:\texpected := \"entire/\" + head[:7]\n\
             cmd/cli/workflow_test.go:292:\tshadow := \"entire/\" + head[:7]\n\
             /repo/cmd/cli/conflict_test.go-36-\n\
             cmd/cli/conflict_test.go:37:\tshadowBranch := \"entire/\" + base[:7]\n\
             --\n\
             src/lexer.rs\n\
             src/parser.rs:12: fn parse\n";
        assert_eq!(
            found_files(output),
            [
                "cmd/cli/workflow_test.go",
                "/repo/cmd/cli/conflict_test.go",
                "src/lexer.rs"
            ]
        );
        assert!(is_search_command("cd x && grep -rn 'a|b' src | head -30"));
        assert!(is_search_command("git grep -n X"));
        assert!(!is_search_command("git log --grep X"));
        for line in [
            "No matches found",
            "Found 3 files",
            "12:30 ok",
            "https://x.io/a.js",
        ] {
            assert!(found_files(line).is_empty(), "{line}");
        }
    }
}
