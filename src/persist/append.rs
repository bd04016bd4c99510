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
//! The write itself is whole or absent (see `write_whole`, [`super::shield`] and
//! [`super::journal`]), and the journal's pending line of the append becomes its undo entry.

use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;

use super::journal::{self, remove_range};
use super::lock::Target;
use super::shield;
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

/// Appends `bytes` (whole lines) through `appender`, an `O_APPEND` descriptor of the file at
/// `path` whose identity is `id` and which `reader` reads; returns where they landed. Every byte
/// below `known` ends a line or is ours: a half line found between it and the landing point
/// is one an agent began in the instant before the write, and is swapped behind `bytes`.
pub fn append_whole(
    appender: &mut File,
    reader: &File,
    path: &Path,
    id: (u64, u64),
    bytes: &[u8],
    known: u64,
) -> Result<u64> {
    let landing = write_whole(appender, bytes)?;
    if landing <= known {
        appender.sync_data()?;
        return Ok(landing);
    }
    let mut before = vec![0u8; (landing - known) as usize];
    reader.read_exact_at(&mut before, known)?;
    if before.ends_with(b"\n") {
        appender.sync_data()?;
        return Ok(landing);
    }
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let half = &before[start..];
    let mut swapped = bytes.to_vec();
    swapped.extend_from_slice(half);
    // Not the O_APPEND descriptor: Linux appends every pwrite made through one.
    let writer = OpenOptions::new()
        .write(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)?;
    let meta = writer.metadata()?;
    if (meta.dev(), meta.ino()) != id {
        bail!("replaced while being written");
    }
    writer.write_all_at(&swapped, known + start as u64)?;
    writer.sync_data()?;
    Ok(known + start as u64)
}

/// Appends `bytes` through the `O_APPEND` descriptor as one run of bytes, or not at all:
/// returns where they landed. Room is reserved first, so a full disk refuses before the first
/// byte; a write that stops short (a full disk all the same, an I/O error) is taken back out,
/// and never continued after a line another writer slipped in.
fn write_whole(appender: &mut File, bytes: &[u8]) -> std::io::Result<u64> {
    let end = appender.metadata()?.len();
    // Some slack for the lines the agent may add meanwhile; the size stays as it is.
    let room = bytes.len() as u64 + (1 << 16);
    match rustix::fs::fallocate(&*appender, rustix::fs::FallocateFlags::KEEP_SIZE, end, room) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::NOSPC || e == rustix::io::Errno::DQUOT => {
            return Err(e.into())
        }
        // A file system that cannot reserve: the write's own error is then the guard.
        Err(_) => {}
    }
    let mut written = 0;
    let mut landing = None;
    while written < bytes.len() {
        let result = appender.write(&bytes[written..]);
        let n = match result {
            Ok(0) => Err(std::io::Error::from(std::io::ErrorKind::WriteZero)),
            Ok(n) => Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => Err(e),
        };
        let n = match n {
            Ok(n) => n,
            Err(e) => {
                if let Some(at) = landing {
                    take_back(appender, at, written as u64)?;
                }
                return Err(e);
            }
        };
        let pos = appender.stream_position()?;
        let at = *landing.get_or_insert(pos - n as u64);
        written += n;
        if written < bytes.len() && appender.metadata()?.len() != at + written as u64 {
            // Another writer's line now follows the first part: the rest cannot join it.
            take_back(appender, at, written as u64)?;
            return Err(std::io::Error::other(
                "the write was cut short and another writer appended after it",
            ));
        }
    }
    Ok(landing.unwrap_or(end))
}

/// Removes the `len` bytes this run appended at `at`, keeping any line written after them.
fn take_back(appender: &File, at: u64, len: u64) -> std::io::Result<()> {
    // pwrite through an O_APPEND descriptor appends on Linux: move the rest through another.
    let path = format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(appender)
    );
    let writer = OpenOptions::new().write(true).open(&path)?;
    let reader = File::open(&path)?;
    remove_range(&writer, &reader, at, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(path: &Path, bytes: &[u8]) -> (File, File, (u64, u64)) {
        std::fs::write(path, bytes).unwrap();
        let appender = OpenOptions::new().append(true).open(path).unwrap();
        let reader = File::open(path).unwrap();
        let meta = reader.metadata().unwrap();
        (appender, reader, (meta.dev(), meta.ino()))
    }

    #[test]
    fn lands_at_the_end_when_the_file_ends_in_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let (mut appender, reader, id) = file_with(&path, b"a\n");
        assert_eq!(
            append_whole(&mut appender, &reader, &path, id, b"R\n", 2).unwrap(),
            2
        );
        // Whole lines that came after the known part stay before the records.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"b\n")
            .unwrap();
        assert_eq!(
            append_whole(&mut appender, &reader, &path, id, b"S\n", 4).unwrap(),
            6
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nR\nb\nS\n");
    }

    #[test]
    fn a_line_begun_just_before_the_write_is_swapped_behind_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        // The agent wrote a whole line and the first half of another after the known part.
        let (mut appender, reader, id) = file_with(&path, b"a\nb\n{\"half\":");
        let landing = append_whole(&mut appender, &reader, &path, id, b"R\n", 2).unwrap();
        assert_eq!(landing, 4);
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nb\nR\n{\"half\":");
        // Its second half then completes it.
        appender.write_all(b"1}\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a\nb\nR\n{\"half\":1}\n");
    }
}
