//! The files the session changed last, which the file ranking keeps at the front.
//!
//! Files are ranked by how much the session used them (`builder::finish`), so a few old,
//! heavily edited files can fill the first edited-files line while the file the agent was
//! changing when the context was cut falls off the summary. That file is the one the next turn
//! opens first; lifting the last one or two changed files ahead of the rest costs no name (they
//! are listed anyway when the list is long enough) and keeps the use-count order for the others.
//! On the eval corpus the floor moves no probe and no entity of any cut at one or two files (the
//! use-count rank already weighs recent use) and loses one entity at three; it is two, for the
//! sessions where old files fill the line (pi-mono-ffae836b at L629: `utils/config.ts`, edited
//! last, was on the second line behind moved copies).

use super::model::FileUse;

/// How many of the latest changed files go first.
pub(super) const RECENT_EDITS: usize = 2;

/// The live files written, newest change first, each once, as (record index of that change,
/// position in `files`): `writes` is every change in session order, the same pairs. A file
/// whose last use deleted it is no file of the work any more and is skipped.
pub(super) fn newest_live_writes<'a>(
    writes: &'a [(usize, usize)],
    files: &'a [FileUse],
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut seen: Vec<usize> = Vec::new();
    writes.iter().rev().copied().filter(move |&(_, slot)| {
        let first = files.get(slot).is_some_and(|f| !f.gone) && !seen.contains(&slot);
        if first {
            seen.push(slot);
        }
        first
    })
}

/// The positions in `files` of the last `count` distinct live files written, newest first
/// (see [`newest_live_writes`]).
pub(super) fn last_edited(
    writes: &[(usize, usize)],
    files: &[FileUse],
    count: usize,
) -> Vec<usize> {
    newest_live_writes(writes, files)
        .take(count)
        .map(|(_, slot)| slot)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, gone: bool) -> FileUse {
        FileUse {
            path: path.to_owned(),
            edit: 1,
            gone,
            ..FileUse::default()
        }
    }

    #[test]
    fn the_latest_distinct_live_writes_newest_first() {
        let files = [
            file("old.rs", false),
            file("config.ts", false),
            file("moved.ts", true),
            file("main.rs", false),
        ];
        // old.rs edited many times early, then main.rs, config.ts (twice), and a deletion.
        let writes = [(1, 0), (2, 0), (3, 0), (4, 3), (5, 1), (6, 1), (7, 2)];
        assert_eq!(last_edited(&writes, &files, 2), vec![1, 3]);
        assert_eq!(last_edited(&writes, &files, 1), vec![1]);
        assert_eq!(last_edited(&writes, &files, 5), vec![1, 3, 0]);
        assert!(last_edited(&[], &files, 2).is_empty());
    }
}
