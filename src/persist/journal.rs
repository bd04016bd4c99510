//! The append's journal: what a run is about to append, kept beside the session until the
//! records are whole and synced, so that the next run can take out what a killed one left.
//!
//! SIGKILL (the OOM killer, `kill -9`, a power cut) cannot be held like the other signals, and
//! the kernel may stop a large write anywhere. The journal, `.NAME.condense-append` in the
//! session's directory, holds one header line (the session's device and inode, and its length
//! before the append) and then the records themselves. A run that finds one, under the session's
//! lock, looks for the records after that length: whole, the journal just goes; cut off, the
//! part that landed is removed, and any line the agent appended after it moves down to where
//! the records began, so the session reads as if the killed run had never written.
//!
//! Where the directory cannot be written the append goes on without a journal (the signals are
//! still held and errors still rolled back; only a SIGKILL mid-write is then left to the user).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::PathBuf;

use anyhow::{Context, Result};
use rustix::fs::OFlags;
use serde::{Deserialize, Serialize};

use super::lock::Target;
use super::snapshot::read_from;

/// How far back from the end of the matching bytes the agent's first line may start (a few
/// bytes of it can happen to repeat the records' own).
const OVERLAP: usize = 1 << 16;

#[derive(Serialize, Deserialize)]
struct Header {
    dev: u64,
    ino: u64,
    /// The session's length before the append: the records land at or after it.
    at: u64,
    /// The records' length.
    len: u64,
}

/// A journal on disk, removed by [`Journal::done`].
pub struct Journal {
    path: PathBuf,
}

/// The journal's path for a session.
fn path(target: &Target) -> PathBuf {
    let mut name = b".".to_vec();
    name.extend_from_slice(target.file_name.as_bytes());
    name.extend_from_slice(b".condense-append");
    target.dir.join(std::ffi::OsStr::from_bytes(&name))
}

/// Whether a killed run's journal lies beside the session at `path` (its cut-off end is then
/// condense's own, never the agent's).
pub fn left_beside(path: &std::path::Path) -> bool {
    let Ok(real) = fs::canonicalize(path) else {
        return false;
    };
    let (Some(dir), Some(name)) = (real.parent(), real.file_name()) else {
        return false;
    };
    let mut journal = b".".to_vec();
    journal.extend_from_slice(name.as_bytes());
    journal.extend_from_slice(b".condense-append");
    fs::symlink_metadata(dir.join(std::ffi::OsStr::from_bytes(&journal))).is_ok_and(|m| m.is_file())
}

impl Journal {
    /// Records that `records` are about to be appended to the target, now `at` bytes long.
    /// `None` when the directory cannot be written.
    pub fn begin(target: &Target, at: u64, records: &[u8]) -> Result<Option<Journal>> {
        let path = path(target);
        let header = Header {
            dev: target.dev,
            ino: target.ino,
            at,
            len: records.len() as u64,
        };
        let opened = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
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
        let fail = |e: std::io::Error| {
            let _ = fs::remove_file(&path);
            anyhow::Error::from(e).context(format!(
                "{}: cannot append (nothing was written)",
                target.name
            ))
        };
        let mut line = serde_json::to_vec(&header).expect("plain numbers");
        line.push(b'\n');
        file.write_all(&line).map_err(fail)?;
        file.write_all(records).map_err(fail)?;
        file.sync_all().map_err(fail)?;
        if let Ok(dir) = File::open(&target.dir) {
            let _ = dir.sync_all();
        }
        Ok(Some(Journal { path }))
    }

    /// The records are whole and synced: the journal goes.
    pub fn done(self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn is_unwritable(error: &std::io::Error) -> bool {
    use rustix::io::Errno;
    matches!(error.raw_os_error(), Some(code) if [Errno::ACCESS, Errno::PERM, Errno::ROFS]
        .iter()
        .any(|e| e.raw_os_error() == code))
}

/// Where a killed append's records begin in `region` (the session from the journal's `at`
/// on) and how many of their bytes landed: `None` when they are whole or absent.
///
/// The records begin at a line start. Their landed part is the longest prefix shared with
/// `records`; when the agent went on writing after it, that prefix may run a few bytes into the
/// agent's first line, so the cut is moved back to the last `{` from which a whole JSON line
/// follows. A line of the agent's own never passes for the records: removing its first bytes
/// would leave a line that does not parse, and such a cut is not taken.
pub fn find_torn(region: &[u8], records: &[u8]) -> Option<(usize, usize)> {
    let mut start = 0;
    while start < region.len() {
        let here = &region[start..];
        let shared = here.iter().zip(records).take_while(|(a, b)| a == b).count();
        if shared == records.len() {
            return None;
        }
        if shared > 0 {
            if shared == here.len() {
                return Some((start, shared));
            }
            let low = shared.saturating_sub(OVERLAP);
            let cut = (low..=shared)
                .rev()
                .find(|&q| q > 0 && here[q] == b'{' && starts_whole_json(&here[q..]));
            if let Some(cut) = cut {
                return Some((start, cut));
            }
        }
        match memchr::memchr(b'\n', here) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    None
}

/// Whether `bytes` begins with a line that is one JSON value.
fn starts_whole_json(bytes: &[u8]) -> bool {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    serde_json::from_slice::<serde::de::IgnoredAny>(&bytes[..end]).is_ok()
}

/// Takes out what a killed append left in the target, if its journal is there; returns what
/// the user should be told. Called under the lock, before the content is read.
pub fn repair(target: &Target) -> Result<Option<String>> {
    let path = path(target);
    let Ok(journal) = OpenOptions::new()
        .read(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
    else {
        return Ok(None);
    };
    let bytes = read_from(&journal, 0, &path.display().to_string())?;
    let header = memchr::memchr(b'\n', &bytes)
        .and_then(|i| Some((serde_json::from_slice::<Header>(&bytes[..i]).ok()?, i + 1)));
    let Some((header, body)) = header else {
        // Cut off itself: the run died before its first byte reached the session.
        let _ = fs::remove_file(&path);
        return Ok(None);
    };
    let records = &bytes[body..];
    let len = target.file.metadata()?.len();
    if (header.dev, header.ino) != (target.dev, target.ino)
        || records.len() as u64 != header.len
        || len < header.at
    {
        // Another file now, or the journal was cut off before the append began.
        let _ = fs::remove_file(&path);
        return Ok(None);
    }
    let region = read_from(&target.file, header.at, &target.name)?;
    let Some((start, cut)) = find_torn(&region, records) else {
        let _ = fs::remove_file(&path);
        return Ok(None);
    };
    let _shield = super::shield::hold()?;
    let writer = OpenOptions::new()
        .write(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&target.real)
        .with_context(|| format!("{}: cannot repair", target.name))?;
    let from = header.at + start as u64;
    remove_range(&writer, &target.file, from, cut as u64)
        .with_context(|| format!("{}: cannot repair", target.name))?;
    let _ = fs::remove_file(&path);
    Ok(Some(format!(
        "{}: a condense run was killed while appending its compaction records; the {cut} byte(s) \
         it left at byte {from} were removed",
        target.name
    )))
}

/// Removes bytes `from..from + len` of the file, moving what follows down; `reader` reads it.
pub fn remove_range(writer: &File, reader: &File, from: u64, len: u64) -> std::io::Result<()> {
    let mut consumed = from + len;
    let mut put = from;
    // A writer may append while the rest moves down: move until nothing more came.
    loop {
        let rest = read_from(reader, consumed, "session").map_err(std::io::Error::other)?;
        if rest.is_empty() {
            break;
        }
        writer.write_all_at(&rest, put)?;
        put += rest.len() as u64;
        consumed += rest.len() as u64;
    }
    writer.set_len(put)?;
    writer.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDS: &[u8] = b"{\"type\":\"system\",\"n\":1}\n{\"type\":\"user\",\"n\":2}\n";

    #[test]
    fn whole_or_absent_records_need_nothing() {
        assert_eq!(find_torn(b"", RECORDS), None);
        assert_eq!(find_torn(RECORDS, RECORDS), None);
        let mut after = b"{\"agent\":1}\n".to_vec();
        after.extend_from_slice(RECORDS);
        after.extend_from_slice(b"{\"agent\":2}\n");
        assert_eq!(find_torn(&after, RECORDS), None);
        assert_eq!(find_torn(b"{\"agent\":1}\n", RECORDS), None);
    }

    #[test]
    fn a_cut_at_every_byte_is_found_alone_or_with_the_agents_line_after_it() {
        for cut in 1..RECORDS.len() {
            let torn = &RECORDS[..cut];
            assert_eq!(find_torn(torn, RECORDS), Some((0, cut)), "cut {cut}");
            // The agent's lines before the landing point and after the cut.
            let mut region = b"{\"type\":\"user\",\"n\":0}\n".to_vec();
            let start = region.len();
            region.extend_from_slice(torn);
            region.extend_from_slice(b"{\"type\":\"user\",\"n\":3}\n");
            assert_eq!(find_torn(&region, RECORDS), Some((start, cut)), "cut {cut}");
        }
    }

    #[test]
    fn removing_a_range_moves_the_rest_down() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        fs::write(&path, b"a\nRRRb\n").unwrap();
        let writer = OpenOptions::new().write(true).open(&path).unwrap();
        let reader = File::open(&path).unwrap();
        remove_range(&writer, &reader, 2, 3).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a\nb\n");
    }
}
