//! The undo journal's call site, shared by `inject --in-place` and `compact --in-place`: the
//! entry recorded once [`crate::persist::in_place`] is done, from the bytes the verified build
//! wrote (`Verify::build` keeps them in the caller's buffer).

use std::path::Path;

use anyhow::Result;

use crate::persist::Done;
use crate::undo::{self, Entry};

/// Records in `path`'s journal what an in-place write did: `built` is what the last build
/// wrote, from a read of `read` bytes.
pub fn record(path: &Path, done: &Done, read: usize, built: &[u8]) -> Result<()> {
    let now = std::fs::read(path)?;
    let entry = match done {
        Done::Unchanged => return Ok(()),
        Done::Appended => {
            // The extension went in with one write; lines the agent wrote meanwhile may sit
            // before it, so it is found where it is rather than assumed at `read`.
            let extension = built.get(read..).unwrap_or_default();
            let Some(offset) = memchr::memmem::rfind(&now, extension) else {
                return Ok(());
            };
            Entry::Append {
                offset: offset as u64,
                length: extension.len() as u64,
                hash: undo::hash(extension),
            }
        }
        Done::Replaced { backup } => Entry::Replace {
            backup: backup.clone(),
            length: now.len() as u64,
            hash: undo::hash(&now),
        },
    };
    undo::record(path, &entry)
}
