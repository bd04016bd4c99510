//! The files past the top few, grouped by what the session did to them: `edited:` (changed or
//! created), `read:` (only read) and `deleted:`. One word per group says what each use-count
//! label (`r4 e3`) said per file, so the files carry their evidence at the cost of a name each,
//! and a summary of a few hundred tokens lists several times as many of them.

use super::model::FileUse;

/// What the session did to a file, as the word its group prints under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Use {
    Edited,
    Read,
    Deleted,
}

impl Use {
    /// The group's label, as printed before its names.
    pub(super) fn label(self) -> &'static str {
        match self {
            Use::Edited => "edited:",
            Use::Read => "read:",
            Use::Deleted => "deleted:",
        }
    }

    fn of(file: &FileUse) -> Use {
        if file.gone {
            Use::Deleted
        } else if file.written() {
            Use::Edited
        } else {
            Use::Read
        }
    }
}

/// The positions of `files` (in rank order) grouped by use: edited, then read, then deleted,
/// each in rank order; groups with no file are left out.
pub(super) fn by_use(files: &[FileUse]) -> Vec<(Use, Vec<usize>)> {
    [Use::Edited, Use::Read, Use::Deleted]
        .into_iter()
        .map(|kind| {
            let at: Vec<usize> = (0..files.len())
                .filter(|&i| Use::of(&files[i]) == kind)
                .collect();
            (kind, at)
        })
        .filter(|(_, at)| !at.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, read: u32, edit: u32, gone: bool) -> FileUse {
        FileUse {
            path: path.to_owned(),
            read,
            edit,
            gone,
            ..FileUse::default()
        }
    }

    #[test]
    fn files_group_by_what_was_done_to_them_in_rank_order() {
        let files = [
            file("a.go", 3, 0, false),
            file("b.go", 1, 2, false),
            file("old.go", 0, 1, true),
            file("c.go", 0, 1, false),
            file("d.md", 1, 0, false),
        ];
        let groups = by_use(&files);
        assert_eq!(
            groups,
            [
                (Use::Edited, vec![1, 3]),
                (Use::Read, vec![0, 4]),
                (Use::Deleted, vec![2]),
            ]
        );
        assert_eq!(Use::Edited.label(), "edited:");
        // Nothing read only: no read group.
        assert_eq!(by_use(&files[1..2]), [(Use::Edited, vec![0])]);
    }
}
