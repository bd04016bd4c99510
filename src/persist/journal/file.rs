//! The journal file itself: its name beside the session, its lines (a pending append or a done
//! entry), reading it, and writing it anew. What the lines mean and when they are written is
//! [`super`]'s; a killed run's pending line is repaired by [`super::repair`](fn@super::repair::repair).

use std::fs::{self, OpenOptions};
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;
use serde::{Deserialize, Serialize};

use crate::persist::lock::Target;
use crate::undo::Entry;

/// What ends a journal's name.
pub(super) const SUFFIX: &str = ".condense-undo";

/// An append under way: the session's identity and length before it, and the records.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub(super) struct Appending {
    pub(super) dev: u64,
    pub(super) ino: u64,
    /// The session's length before the append: the records land at or after it.
    pub(super) at: u64,
    /// The records, which are JSON lines (UTF-8).
    pub(super) records: String,
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub(super) enum Line {
    Pending { appending: Appending },
    Done(Entry),
}

/// The journal's name for a session file named `name` (a long name shortened, see
/// [`crate::persist::names`]).
pub(super) fn name_for(name: &[u8]) -> std::ffi::OsString {
    let mut journal = crate::persist::names::stem(name, SUFFIX.len());
    journal.extend_from_slice(SUFFIX.as_bytes());
    std::ffi::OsStr::from_bytes(&journal).to_owned()
}

/// The journal of the locked session.
pub(super) fn path(target: &Target) -> PathBuf {
    target.dir.join(name_for(target.file_name.as_bytes()))
}

/// The journal of the session at `session`: beside the file itself, wherever a symlink names it.
pub fn path_of(session: &Path) -> Result<PathBuf> {
    let real =
        fs::canonicalize(session).with_context(|| format!("{}: cannot open", session.display()))?;
    let name = real.file_name().unwrap_or_default().as_bytes().to_vec();
    Ok(real.with_file_name(name_for(&name)))
}

/// The journal's bytes, `None` when there is none. A symlink in its place is not followed.
pub(super) fn read(path: &Path) -> Result<Option<Vec<u8>>> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(error).with_context(|| format!("{}: cannot read", path.display()))
        }
    };
    if !file.metadata()?.is_file() {
        bail!("{}: not a regular file", path.display());
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(Some(bytes))
}

/// The journal's whole lines, each with the offset it starts at; a last line without a newline
/// (cut off by a killed run) is left out.
pub(super) fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let end = start + memchr::memchr(b'\n', &bytes[start..])?;
        let line = (start, &bytes[start..end]);
        start = end + 1;
        Some(line)
    })
}

/// Writes the journal anew with `bytes` (none: it goes).
pub(super) fn rewrite(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return match fs::remove_file(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(error).with_context(|| format!("{}: cannot remove", path.display()))
            }
            _ => Ok(()),
        };
    }
    crate::persist::atomic::write_here(path, bytes)
}

/// A journal line's bytes.
pub(super) fn line_of(line: &Line) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(line).expect("plain data");
    bytes.push(b'\n');
    bytes
}
