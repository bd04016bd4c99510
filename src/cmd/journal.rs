//! The undo journal's call sites, shared by `inject --in-place` and `compact --in-place`: a copy
//! of what the build wrote, and the entry recorded once [`crate::persist::in_place`] is done.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;

use crate::persist::Done;
use crate::undo::{self, Entry};

/// A writer that keeps a copy of what passes through it.
pub struct Tee<'a> {
    /// Where the bytes go.
    pub out: &'a mut dyn Write,
    /// The copy.
    pub copy: &'a mut Vec<u8>,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

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
