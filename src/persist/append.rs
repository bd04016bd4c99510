//! The append path, for formats whose agent itself only appends (Claude Code, Codex, pi): the
//! compaction records are added at the end of the same inode in one `O_APPEND` write, so every
//! line the agent writes, whether it reopens the file per line or keeps it open, stays in it,
//! and nothing before the records changes (so no backup is needed).
//!
//! Lines that arrived since the read make the caller rebuild, so they join the kept tail: a
//! line before the records would be outside the context the agent resumes with. One race
//! remains that no check can close: the agent writing in the instant between the last look and
//! the write. The landing offset tells. A whole line of its before the records makes them come
//! back out (and the caller rebuild); the first half of a line is swapped behind them in place
//! (the range lies below the end of file, where an `O_APPEND` writer never writes), so that the
//! agent's second half follows its first again, and the records come back out all the same.
//!
//! The write itself is whole or absent (see [`super::whole`], [`super::shield`] and
//! [`super::journal`]), and the journal's pending line of the append becomes its undo entry.

use std::fs::OpenOptions;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;

use super::journal;
use super::lock::Target;
use super::shield;
use super::whole::{append_whole, take_back};
use crate::undo::{hash, Entry};

/// What an append attempt did.
#[derive(Debug)]
pub enum Appended {
    /// The file grew since the read (or while the records were written, and they were taken
    /// back out): build again from the new content.
    Grew,
    /// The records are in the file, right after the content they were built from.
    Done {
        /// Why the undo journal does not record them, if it does not.
        unrecorded: Option<String>,
    },
}

/// Appends `suffix` to the target, whose content was `read` when the suffix was built, if no
/// line came after that content: a line the agent wrote meanwhile would sit before the records,
/// outside the context the agent resumes with. One that slips in during the write itself makes
/// the records come back out.
pub fn append(target: &Target, read: &[u8], suffix: &[u8]) -> Result<Appended> {
    let context = || format!("{}: cannot append", target.name);
    let mut file = OpenOptions::new()
        .append(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&target.real)
        .with_context(context)?;
    let meta = file.metadata().with_context(context)?;
    if (meta.dev(), meta.ino()) != (target.dev, target.ino) {
        return Err(target.replaced_error());
    }
    let read_len = read.len() as u64;
    if meta.len() < read_len {
        bail!(
            "{}: shrank while being compacted; nothing was written",
            target.name
        );
    }
    if meta.len() > read_len {
        return Ok(Appended::Grew);
    }
    // The journal first, then the signals held: from here on a killed run leaves nothing the
    // next one cannot take out, and any other signal waits until the records are whole.
    let pending = journal::begin(target, read_len, suffix)?;
    let shield = shield::hold()?;
    if shield.pending().is_some() {
        if let Some(pending) = pending {
            let _ = pending.finish(None);
        }
        bail!("{}: interrupted; nothing was written", target.name);
    }
    let landed = append_whole(
        &mut file,
        &target.file,
        &target.real,
        (target.dev, target.ino),
        suffix,
        read_len,
    )
    .and_then(|landing| {
        if landing == read_len {
            return Ok(Some(landing));
        }
        // Whole lines of the agent's came first: out again, and build once more.
        take_back(&file, landing, suffix.len() as u64)?;
        Ok(None)
    })
    .with_context(context);
    // The pending line becomes the undo entry, or goes with the records.
    let entry = match &landed {
        Ok(Some(offset)) => Some(Entry::Append {
            offset: *offset,
            length: suffix.len() as u64,
            hash: hash(suffix),
        }),
        _ => None,
    };
    let recorded = match pending {
        Some(pending) => pending.finish(entry).map_err(|e| format!("{e:#}")),
        None => Err(format!(
            "{}: the undo journal cannot be written in this directory",
            target.shown_dir
        )),
    };
    drop(shield);
    Ok(match landed? {
        Some(_) => Appended::Done {
            unrecorded: recorded.err(),
        },
        None => Appended::Grew,
    })
}
