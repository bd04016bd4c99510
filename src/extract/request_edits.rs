//! The files the current request changed: what the work is on now. The file used last is one
//! of them, but a request often has the agent change two or three files together (a helper and
//! the tests that call it), and the one changed just before the last is as much the work as
//! the last; a file changed under an older request is not.

use super::model::FileUse;
use super::recent_edits::newest_live_writes;

/// The paths of the live files written after record `since` (all writes when `None`), newest
/// change first, each once: `writes` is every change in session order as (record index,
/// position in `files`).
pub(super) fn request_edits(
    writes: &[(usize, usize)],
    files: &[FileUse],
    since: Option<usize>,
) -> Vec<String> {
    newest_live_writes(writes, files)
        .take_while(|&(index, _)| since.is_none_or(|since| index > since))
        .map(|(_, slot)| files[slot].path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, gone: bool) -> FileUse {
        FileUse {
            path: path.into(),
            edit: 1,
            gone,
            ..FileUse::default()
        }
    }

    #[test]
    fn only_the_files_changed_after_the_request_count_newest_first() {
        let files = [
            file("old.rs", false),
            file("helper.rs", false),
            file("tests.rs", false),
            file("gone.rs", true),
        ];
        let writes = [(3, 0), (10, 1), (12, 2), (13, 3), (14, 1)];
        assert_eq!(
            request_edits(&writes, &files, Some(5)),
            ["helper.rs", "tests.rs"]
        );
        assert_eq!(
            request_edits(&writes, &files, Some(20)),
            Vec::<String>::new()
        );
        assert_eq!(
            request_edits(&writes, &files, None),
            ["helper.rs", "tests.rs", "old.rs"]
        );
    }
}
