//! Repairing what a killed append left, from its pending line in the journal (see
//! [`super`]): run under the session's lock, before its content is read, so that condense's
//! own cut-off records are never taken for the agent's.
//!
//! The records begin at a line start at or after the length the session had. Whole there, the
//! killed run's done line is written; cut off, the part that landed is removed, and any line
//! the agent appended after it moves down to where the records began, so the session reads as
//! if the killed run had never written; absent, nothing was written and the line just goes.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};

use anyhow::{Context, Result};
use rustix::fs::OFlags;

use super::{line_of, lines, path, read, rewrite, Line};
use crate::persist::lock::Target;
use crate::persist::snapshot::read_from;
use crate::undo::{hash, Entry};

/// How far back from the end of the matching bytes the agent's first line may start (a few
/// bytes of it can happen to repeat the records' own).
const OVERLAP: usize = 1 << 16;

/// Where a killed append's records are in the session from the length it had before.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// Whole, at this offset of the region.
    Whole(usize),
    /// Cut off: at this offset, this many of their bytes.
    Torn(usize, usize),
    /// Not there at all.
    Absent,
}

/// Where a killed append's records are in `region` (the session from the length it had
/// before the append).
///
/// The records begin at a line start. Their landed part is the longest prefix shared with
/// `records`; when the agent went on writing after it, that prefix may run a few bytes into the
/// agent's first line, so the cut is moved back to the last `{` from which a whole JSON line
/// follows. A line of the agent's own never passes for the records: removing its first bytes
/// would leave a line that does not parse, and such a cut is not taken.
pub fn locate(region: &[u8], records: &[u8]) -> Found {
    let mut start = 0;
    while start < region.len() {
        let here = &region[start..];
        let shared = here.iter().zip(records).take_while(|(a, b)| a == b).count();
        if shared == records.len() {
            return Found::Whole(start);
        }
        if shared > 0 {
            if shared == here.len() {
                return Found::Torn(start, shared);
            }
            let low = shared.saturating_sub(OVERLAP);
            let cut = (low..=shared)
                .rev()
                .find(|&q| q > 0 && here[q] == b'{' && starts_whole_json(&here[q..]));
            if let Some(cut) = cut {
                return Found::Torn(start, cut);
            }
        }
        match memchr::memchr(b'\n', here) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    Found::Absent
}

/// Whether `bytes` begins with a line that is one JSON value.
fn starts_whole_json(bytes: &[u8]) -> bool {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    serde_json::from_slice::<serde::de::IgnoredAny>(&bytes[..end]).is_ok()
}

/// Repairs what a killed append left in the target, if the journal holds an append under way;
/// returns what the user should be told. Called under the lock, before the content is read.
pub fn repair(target: &Target) -> Result<Option<String>> {
    let path = path(target);
    let Some(bytes) = read(&path)? else {
        return Ok(None);
    };
    let whole = lines(&bytes)
        .last()
        .map_or(0, |(start, text)| start + text.len() + 1);
    // A line cut off: the run died writing it, before the session's first byte.
    let mut kept = bytes[..whole].to_vec();
    let last = lines(&kept)
        .last()
        .map(|(start, text)| (start, text.to_vec()));
    let pending = last.and_then(|(start, text)| match serde_json::from_slice(&text) {
        Ok(Line::Pending { appending }) => Some((start, appending)),
        _ => None,
    });
    let Some((start, appending)) = pending else {
        if whole < bytes.len() {
            rewrite(&path, &kept)?;
        }
        return Ok(None);
    };
    kept.truncate(start);
    let records = appending.records.as_bytes();
    let len = target.file.metadata()?.len();
    if (appending.dev, appending.ino) != (target.dev, target.ino) || len < appending.at {
        // Another file now: what it holds is not this journal's to mend.
        rewrite(&path, &kept)?;
        return Ok(None);
    }
    let region = read_from(&target.file, appending.at, &target.name)?;
    let (from, cut) = match locate(&region, records) {
        Found::Whole(offset) => {
            // The killed run got as far as its records, not as far as its done line.
            kept.extend_from_slice(&line_of(&Line::Done(Entry::Append {
                offset: appending.at + offset as u64,
                length: records.len() as u64,
                hash: hash(records),
            })));
            rewrite(&path, &kept)?;
            return Ok(None);
        }
        Found::Absent => {
            rewrite(&path, &kept)?;
            return Ok(None);
        }
        Found::Torn(offset, cut) => (appending.at + offset as u64, cut),
    };
    let _shield = crate::persist::shield::hold()?;
    let writer = OpenOptions::new()
        .write(true)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(&target.real)
        .with_context(|| format!("{}: cannot repair", target.name))?;
    remove_range(&writer, &target.file, from, cut as u64)
        .with_context(|| format!("{}: cannot repair", target.name))?;
    rewrite(&path, &kept)?;
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
    use std::fs;

    const RECORDS: &[u8] = b"{\"type\":\"system\",\"n\":1}\n{\"type\":\"user\",\"n\":2}\n";

    #[test]
    fn whole_or_absent_records_are_told_apart() {
        assert_eq!(locate(b"", RECORDS), Found::Absent);
        assert_eq!(locate(RECORDS, RECORDS), Found::Whole(0));
        let mut after = b"{\"agent\":1}\n".to_vec();
        after.extend_from_slice(RECORDS);
        after.extend_from_slice(b"{\"agent\":2}\n");
        assert_eq!(locate(&after, RECORDS), Found::Whole(12));
        assert_eq!(locate(b"{\"agent\":1}\n", RECORDS), Found::Absent);
    }

    #[test]
    fn a_cut_at_every_byte_is_found_alone_or_with_the_agents_line_after_it() {
        for cut in 1..RECORDS.len() {
            let torn = &RECORDS[..cut];
            assert_eq!(locate(torn, RECORDS), Found::Torn(0, cut), "cut {cut}");
            // The agent's lines before the landing point and after the cut.
            let mut region = b"{\"type\":\"user\",\"n\":0}\n".to_vec();
            let start = region.len();
            region.extend_from_slice(torn);
            region.extend_from_slice(b"{\"type\":\"user\",\"n\":3}\n");
            assert_eq!(
                locate(&region, RECORDS),
                Found::Torn(start, cut),
                "cut {cut}"
            );
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
