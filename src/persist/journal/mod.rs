//! The journal of condense's in-place writes: `NAME.condense-undo` beside the session, one JSON
//! object a line, written only here and only under the session's lock.
//!
//! - A **done** line for each write ([`Entry`]: the bytes appended, or the backup of a replaced
//!   file), which `condense undo` takes back, newest first.
//! - While an append is under way, a **pending** line (`{"appending": …}`) with the records
//!   about to be appended, synced before their first byte reaches the session. SIGKILL (the OOM
//!   killer, `kill -9`, a power cut) cannot be held like the other signals, and the kernel may
//!   stop a large write anywhere; the next run finds the pending line under the lock and repairs
//!   what it left ([`repair()`]). Once the records are synced, the pending line becomes the done
//!   line in one rename.
//!
//! One journal rather than an undo file and a repair file: both are looked for beside the
//! session by the next run, under the same lock, and the pending line of an append turns into
//! its done line; with two files, a run killed after its records were whole but before its undo
//! entry was written left a write nothing could take back. Here the next run finds the records
//! whole and writes the done line the killed run did not.
//!
//! Where the directory cannot be written there is no journal: the append goes on (the signals
//! are still held and errors still rolled back; only a SIGKILL mid-write is then left to the
//! user), and the caller is told that this write cannot be undone.

pub mod repair;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;
use serde::{Deserialize, Serialize};

use super::lock::Target;
use crate::undo::Entry;

pub use repair::{remove_range, repair};

/// What ends a journal's name.
const SUFFIX: &str = ".condense-undo";

/// An append under way: the session's identity and length before it, and the records.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Appending {
    dev: u64,
    ino: u64,
    /// The session's length before the append: the records land at or after it.
    at: u64,
    /// The records, which are JSON lines (UTF-8).
    records: String,
}

/// One line of the journal.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Pending { appending: Appending },
    Done(Entry),
}

/// The journal's name for a session file named `name` (a long name shortened, see
/// [`super::names`]).
fn name_for(name: &[u8]) -> std::ffi::OsString {
    let mut journal = super::names::stem(name, SUFFIX.len());
    journal.extend_from_slice(SUFFIX.as_bytes());
    std::ffi::OsStr::from_bytes(&journal).to_owned()
}

/// The journal of the locked session.
fn path(target: &Target) -> PathBuf {
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
fn read(path: &Path) -> Result<Option<Vec<u8>>> {
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
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let end = start + memchr::memchr(b'\n', &bytes[start..])?;
        let line = (start, &bytes[start..end]);
        start = end + 1;
        Some(line)
    })
}

/// Writes the journal anew with `bytes` (none: it goes).
fn rewrite(path: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return match fs::remove_file(path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                Err(error).with_context(|| format!("{}: cannot remove", path.display()))
            }
            _ => Ok(()),
        };
    }
    super::atomic::write_here(path, bytes)
}

/// A journal line's bytes.
fn line_of(line: &Line) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(line).expect("plain data");
    bytes.push(b'\n');
    bytes
}

/// The done entries of the session at `session`, oldest first (none when there is no journal).
/// An append under way is not one of them.
pub fn entries(session: &Path) -> Result<Vec<Entry>> {
    entries_at(&path_of(session)?)
}

/// The done entries of the locked session.
pub fn entries_of(target: &Target) -> Result<Vec<Entry>> {
    entries_at(&path(target))
}

fn entries_at(path: &Path) -> Result<Vec<Entry>> {
    let Some(bytes) = read(path)? else {
        return Ok(Vec::new());
    };
    let mut entries = Vec::new();
    for (number, (_, text)) in lines(&bytes).enumerate() {
        if text.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice::<Line>(text) {
            Ok(Line::Done(entry)) => entries.push(entry),
            Ok(Line::Pending { .. }) => {}
            Err(_) => bail!("{}:{}: not an undo entry", path.display(), number + 1),
        }
    }
    Ok(entries)
}

/// Adds a done entry to the journal of the locked session.
pub fn record(target: &Target, entry: Entry) -> Result<()> {
    let path = path(target);
    let line = line_of(&Line::Done(entry));
    OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
        .and_then(|mut file| file.write_all(&line).and_then(|()| file.sync_data()))
        .with_context(|| format!("{}: cannot write the undo journal", path.display()))
}

/// Removes the newest done entry of the locked session's journal (after it was undone).
pub fn pop(target: &Target) -> Result<()> {
    let path = path(target);
    let Some(bytes) = read(&path)? else {
        return Ok(());
    };
    let newest = lines(&bytes)
        .filter(|(_, text)| matches!(serde_json::from_slice(text), Ok(Line::Done(_))))
        .last();
    let Some((start, text)) = newest else {
        return Ok(());
    };
    let mut kept = bytes[..start].to_vec();
    kept.extend_from_slice(&bytes[start + text.len() + 1..]);
    rewrite(&path, &kept)
}

/// An append under way, written to the journal.
pub struct Pending {
    path: PathBuf,
    /// Where its line starts: what comes before is the journal as it was.
    start: u64,
}

/// Whether `error` says the directory cannot be written at all (then there is no journal).
fn is_unwritable(error: &std::io::Error) -> bool {
    use rustix::io::Errno;
    matches!(error.raw_os_error(), Some(code) if [Errno::ACCESS, Errno::PERM, Errno::ROFS]
        .iter()
        .any(|e| e.raw_os_error() == code))
}

/// Records, synced, that `records` are about to be appended to the target, now `at` bytes
/// long. `None` when the directory cannot be written (or the records are not text, which no
/// writer of condense's makes).
pub fn begin(target: &Target, at: u64, records: &[u8]) -> Result<Option<Pending>> {
    let Ok(records) = std::str::from_utf8(records) else {
        return Ok(None);
    };
    let path = path(target);
    let opened = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&path);
    let mut file = match opened {
        Ok(file) => file,
        Err(e) if is_unwritable(&e) => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| format!("{}: cannot write", path.display()));
        }
    };
    let start = file.metadata()?.len();
    let line = line_of(&Line::Pending {
        appending: Appending {
            dev: target.dev,
            ino: target.ino,
            at,
            records: records.to_owned(),
        },
    });
    let written = file.write_all(&line).and_then(|()| file.sync_all());
    if let Err(error) = written {
        // Back to what it was: no line of this run's is left, whole or cut.
        let _ = match start {
            0 => fs::remove_file(&path),
            _ => file.set_len(start),
        };
        return Err(anyhow::Error::from(error).context(format!(
            "{}: cannot append (nothing was written)",
            target.name
        )));
    }
    if let Ok(dir) = File::open(&target.dir) {
        let _ = dir.sync_all();
    }
    Ok(Some(Pending { path, start }))
}

impl Pending {
    /// The append is over: its line becomes `done` (the records are whole and synced) or goes
    /// (they were taken back out, or never written).
    pub fn finish(self, done: Option<Entry>) -> Result<()> {
        let bytes = read(&self.path)?.unwrap_or_default();
        let mut kept = bytes[..(self.start as usize).min(bytes.len())].to_vec();
        if let Some(entry) = done {
            kept.extend_from_slice(&line_of(&Line::Done(entry)));
        }
        rewrite(&self.path, &kept)
    }
}

/// Whether the journal beside the session at `path` holds an append under way, left by a
/// killed run: the session's cut-off end is then condense's own, never the agent's.
pub fn left_beside(path: &Path) -> bool {
    let Ok(journal) = path_of(path) else {
        return false;
    };
    let Ok(Some(bytes)) = read(&journal) else {
        return false;
    };
    lines(&bytes)
        .last()
        .is_some_and(|(_, text)| matches!(serde_json::from_slice(text), Ok(Line::Pending { .. })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::lock::open_locked;

    fn append_entry(offset: u64) -> Entry {
        Entry::Append {
            offset,
            length: 2,
            hash: 7,
        }
    }

    #[test]
    fn a_pending_append_becomes_its_done_entry_or_goes() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        fs::write(&session, "a\n").unwrap();
        let target = open_locked(&session).unwrap();
        record(&target, append_entry(0)).unwrap();
        let pending = begin(&target, 2, b"R\n").unwrap().unwrap();
        assert!(left_beside(&session));
        // Pending lines are no entries.
        assert_eq!(entries(&session).unwrap(), [append_entry(0)]);
        pending.finish(Some(append_entry(2))).unwrap();
        assert!(!left_beside(&session));
        assert_eq!(
            entries(&session).unwrap(),
            [append_entry(0), append_entry(2)]
        );
        begin(&target, 4, b"S\n")
            .unwrap()
            .unwrap()
            .finish(None)
            .unwrap();
        assert_eq!(
            entries(&session).unwrap(),
            [append_entry(0), append_entry(2)]
        );
        pop(&target).unwrap();
        pop(&target).unwrap();
        assert!(!dir.path().join("s.jsonl.condense-undo").exists());
    }

    #[test]
    fn a_cut_off_last_line_is_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        fs::write(&session, "a\n").unwrap();
        let line = line_of(&Line::Done(append_entry(0)));
        let mut journal = line.clone();
        journal.extend_from_slice(&line[..line.len() / 2]);
        fs::write(dir.path().join("s.jsonl.condense-undo"), journal).unwrap();
        assert_eq!(entries(&session).unwrap(), [append_entry(0)]);
    }
}
