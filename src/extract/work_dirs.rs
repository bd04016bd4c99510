//! The directories the work is in (pure): the folders that hold the files the session changed,
//! the ones with the most changed files first. A file line names each file by its shortest
//! distinct tail (`phase.go`), which says nothing of where it sits; the next agent runs its
//! tests, greps and listings per package (`go test ./cmd/cli/strategy/...`, `ls src/core`),
//! and those directories are named nowhere else in a summary.
//!
//! Each directory prints by its last three components (`entire/cli/strategy`): as with a file
//! name without an extension (see `file_names`), one or two components read as words
//! (`strategy`, `cli/strategy`), three as a place. The line's `dirs:` label says they are
//! folders; a `/` after each said it again for a token apiece (eval corpus: re-used entities
//! carried 1,292 with it, 1,295 without).

use super::model::FileUse;

/// Components of a directory shown.
const SHOWN_COMPONENTS: usize = 3;

/// The directories of the changed (edited, created) live files of `files`, most changed files
/// first, then the most recently changed; at most `most`, each as its last
/// [`SHOWN_COMPONENTS`] components. The top of the tree (a file with no directory)
/// is no directory to name, nor is the folder of the `plan` file, which the summary names
/// whole (Claude Code's `~/.claude/plans/<slug>.md`: the harness's folder, not the work's).
pub(super) fn work_dirs(files: &[FileUse], most: usize, plan: Option<&str>) -> Vec<String> {
    let plan_name = plan.map(|p| p.rsplit('/').next().unwrap_or(p));
    // Per directory: its changed files and its latest change.
    let mut dirs: Vec<(&str, usize, usize)> = Vec::new();
    let is_plan =
        |f: &FileUse| plan_name.is_some_and(|name| f.path.rsplit('/').next() == Some(name));
    for file in files
        .iter()
        .filter(|f| f.written() && !f.gone && !is_plan(f))
    {
        let Some((dir, _)) = file.path.trim_end_matches('/').rsplit_once('/') else {
            continue;
        };
        if dir.is_empty() || dir == "." || dir == "~" {
            continue;
        }
        match dirs.iter_mut().find(|(d, _, _)| *d == dir) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 = entry.2.max(file.last);
            }
            None => dirs.push((dir, 1, file.last)),
        }
    }
    dirs.sort_by_key(|&(_, count, last)| (std::cmp::Reverse(count), std::cmp::Reverse(last)));
    let mut shown: Vec<String> = Vec::new();
    for (dir, _, _) in dirs {
        let parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
        let tail = parts[parts.len().saturating_sub(SHOWN_COMPONENTS)..].join("/");
        // Two directories can end alike (`/repo/a/b/c` and `a/b/c`): one is printed once.
        if !tail.is_empty() && !shown.contains(&tail) {
            shown.push(tail);
        }
        if shown.len() == most {
            break;
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(path: &str, last: usize) -> FileUse {
        FileUse {
            path: path.to_owned(),
            edit: 1,
            last,
            ..FileUse::default()
        }
    }

    #[test]
    fn the_folders_of_changed_files_most_changed_first_by_three_components() {
        let read = FileUse {
            path: "docs/notes/plan.md".to_owned(),
            read: 3,
            last: 99,
            ..FileUse::default()
        };
        let gone = FileUse {
            gone: true,
            ..changed("old/dir/x.go", 98)
        };
        let files = [
            changed("cmd/app/cli/strategy/phase.go", 5),
            changed("src/lib.rs", 9),
            changed("cmd/app/cli/strategy/hooks.go", 3),
            changed("README.md", 50),
            read,
            gone,
            changed("/abs/repo/cmd/app/cli/strategy/other.go", 1),
        ];
        // Read-only, deleted and top-level files name no directory; the same last three
        // components are one.
        assert_eq!(work_dirs(&files, 5, None), ["app/cli/strategy", "src"]);
        assert_eq!(work_dirs(&files, 1, None), ["app/cli/strategy"]);
        assert!(work_dirs(&[], 3, None).is_empty());
        // The plan file's folder is the harness's.
        let plan = Some("~/.claude/plans/lib.rs");
        assert_eq!(work_dirs(&files, 5, plan), ["app/cli/strategy"]);
    }

    #[test]
    fn ties_go_to_the_latest_change() {
        let files = [changed("a/b/one.rs", 1), changed("c/d/two.rs", 7)];
        assert_eq!(work_dirs(&files, 2, None), ["c/d", "a/b"]);
    }
}
