//! After a replace's rename: the lines that still reached the old file, carried over to the
//! new one.
//!
//! A writer that opened the session just before the rename (one that reopens it per line)
//! writes its line into the old file, which only the backup names now. The salvage moves such
//! lines to the new file: at once after the rename, before anything else, since until then
//! the session reads without them; then until the old file has been quiet for a moment.
//!
//! One agent can still lose such a line: one that also saves its session anew by rename
//! (reads it, writes a copy with its new line, renames the copy over it). If it read the new
//! file in the instant before the salvaged line reached it, its copy leaves the line out. So
//! once a line was salvaged, the session is watched until it has stayed the same file for a
//! while ([`Salvage::settle`]): each salvaged line missing from a copy put in its place is
//! appended to that copy. A copy that holds no compaction at all (the agent read the session
//! before the rename) stands, and the run fails saying so: it compacted nothing.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};

use super::append::append_whole;
use super::lock::Target;
use super::snapshot::{read_from, SETTLE};
use super::writers::writers;

/// How long the session must stay the same file, after a line was salvaged, before the run
/// trusts that no copy made without the line is still on its way.
const STABLE: Duration = Duration::from_millis(100);

/// The salvage of one replace.
pub struct Salvage {
    /// How much of the old file the new one holds.
    consumed: u64,
    /// The end of what this run wrote to the new file; beyond it the agent may be writing.
    known: u64,
    /// The lines carried over, each where it landed in the new file.
    carried: Vec<(u64, Vec<u8>)>,
    /// Whether the new file's descriptor appends (so that the agent's lines and ours both stay).
    appending: bool,
}

impl Salvage {
    /// The salvage of a new file that holds the first `consumed` bytes of the old one and
    /// `ours` bytes in all.
    pub fn new(consumed: u64, ours: u64) -> Salvage {
        Salvage {
            consumed,
            known: ours,
            carried: Vec::new(),
            appending: false,
        }
    }

    /// Carries over the whole lines that reached the old file since the last look; returns
    /// what was left there after them (a line still being written, or none).
    pub fn pass(&mut self, target: &Target, new: &mut File) -> Result<Vec<u8>> {
        let bytes = read_from(&target.file, self.consumed, &target.name)?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole == 0 {
            return Ok(bytes);
        }
        if !self.appending {
            // The agent may be appending to the new file too: only O_APPEND keeps both.
            let flags = fcntl_getfl(&*new).map_err(std::io::Error::from)?;
            fcntl_setfl(&*new, flags | OFlags::APPEND).map_err(std::io::Error::from)?;
            self.appending = true;
        }
        // The agent may be half-way through a line of the new file: never split it.
        let meta = new.metadata()?;
        let reader = new.try_clone()?;
        let landing = append_whole(
            new,
            &reader,
            &target.real,
            (meta.dev(), meta.ino()),
            &bytes[..whole],
            self.known,
        )
        .with_context(|| format!("{}: cannot append", target.name))?;
        self.known = landing + whole as u64;
        self.consumed += whole as u64;
        self.carried.push((landing, bytes[..whole].to_vec()));
        Ok(bytes[whole..].to_vec())
    }

    /// Carries over until the old file has been quiet for two looks with no writer holding it
    /// (or one held it past [`SETTLE`]); returns what the user should know.
    pub fn until_quiet(
        &mut self,
        target: &Target,
        new: &mut File,
        backup: &Path,
    ) -> Result<Vec<String>> {
        let mut warnings = Vec::new();
        let started = Instant::now();
        let mut quiet = 0;
        loop {
            let busy = writers(target.dev, target.ino);
            let before = self.carried.len();
            let left = self.pass(target, new)?;
            if self.carried.len() > before {
                quiet = 0;
                continue;
            }
            if busy.is_empty() {
                // Two quiet looks a moment apart: no open of the old name was still under way.
                quiet += 1;
                if quiet >= 2 {
                    if !left.is_empty() {
                        warnings.push(format!(
                            "{}: the old file ended in a half-written line, left only in {}",
                            target.name,
                            backup.display()
                        ));
                    }
                    break;
                }
            } else if started.elapsed() > SETTLE {
                warnings.push(format!(
                    "{}: {} still has the old file open; what it writes now goes to {}",
                    target.name,
                    busy[0],
                    backup.display()
                ));
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if !self.carried.is_empty() {
            new.sync_data()?;
        }
        Ok(warnings)
    }

    /// What a writer of the new file added after its first `ours` bytes, without the lines
    /// this salvage put there: what a roll-back carries to the old file, which has the others.
    pub fn others(&self, new: &File, ours: u64, name: &str) -> Result<Vec<u8>> {
        let more = read_from(new, ours, name)?;
        let mut others = Vec::with_capacity(more.len());
        let mut at = 0;
        let mut carried: Vec<(usize, usize)> = self
            .carried
            .iter()
            .map(|(landing, line)| ((landing - ours) as usize, line.len()))
            .collect();
        carried.sort_unstable();
        for (start, len) in carried {
            others.extend_from_slice(&more[at..start.max(at)]);
            at = at.max(start + len);
        }
        others.extend_from_slice(&more[at.min(more.len())..]);
        Ok(others)
    }

    /// Once lines were salvaged: watches the session until it has stayed one file for
    /// a while (100 ms), putting back each salvaged line that a copy saved in its place by rename
    /// left out (see the module docs). Fails when such a copy holds no compaction: the agent's
    /// copy of the session before it stands.
    pub fn settle(&self, target: &Target, new: &File, ours: u64, backup: &Path) -> Result<()> {
        if self.carried.is_empty() {
            return Ok(());
        }
        let meta = new.metadata()?;
        let ours_id = (meta.dev(), meta.ino());
        let compacted = read_from(new, 0, &target.name)?[..ours as usize].to_vec();
        let mut seen = ours_id;
        let mut since = Instant::now();
        let started = Instant::now();
        loop {
            let Ok(now) = OpenOptions::new()
                .read(true)
                .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
                .open(&target.real)
            else {
                bail!(
                    "{}: removed just after it was compacted; the original is at {}",
                    target.name,
                    backup.display()
                );
            };
            let meta = now.metadata()?;
            let id = (meta.dev(), meta.ino());
            if id != seen {
                seen = id;
                since = Instant::now();
            }
            if id != ours_id && self.put_back(target, &now, id)? {
                since = Instant::now();
            }
            if since.elapsed() >= STABLE || started.elapsed() > SETTLE {
                if id != ours_id && !read_from(&now, 0, &target.name)?.starts_with(&compacted) {
                    bail!(
                        "{}: the agent saved its own copy of the session (by rename) just after \
                         it was compacted, from before the compaction: its copy stands, with \
                         every line, and nothing is compacted (the original is at {}); compact \
                         it again",
                        target.name,
                        backup.display()
                    );
                }
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Appends to `now`, the file that took the new one's place, every salvaged line it lacks;
    /// true if one did.
    fn put_back(&self, target: &Target, now: &File, id: (u64, u64)) -> Result<bool> {
        let content = read_from(now, 0, &target.name)?;
        let missing: Vec<u8> = self
            .carried
            .iter()
            .flat_map(|(_, lines)| lines.split_inclusive(|&b| b == b'\n'))
            .filter(|line| memchr::memmem::find(&content, line).is_none())
            .flatten()
            .copied()
            .collect();
        if missing.is_empty() {
            return Ok(false);
        }
        let mut appender = OpenOptions::new()
            .append(true)
            .custom_flags(OFlags::NOFOLLOW.bits() as i32)
            .open(&target.real)
            .with_context(|| format!("{}: cannot append", target.name))?;
        let meta = appender.metadata()?;
        if (meta.dev(), meta.ino()) != id {
            // Replaced again meanwhile: the next look sees the newest.
            return Ok(true);
        }
        // A line the agent is still writing at the end is not glued to: it goes after ours.
        let known = content
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        append_whole(&mut appender, now, &target.real, id, &missing, known as u64)
            .with_context(|| format!("{}: cannot append", target.name))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::lock::open_locked;
    use std::fs;
    use std::io::Write;

    /// The race the module docs tell of, in order: the old file gets a line after the rename,
    /// the agent saves a copy of the new file made before it was salvaged, and renames it over
    /// the session.
    #[test]
    fn a_line_a_copy_by_rename_left_out_is_put_back_into_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "old 1\n").unwrap();
        let target = open_locked(&path).unwrap();
        // The new file, in place; the old one is only the backup now.
        let backup = dir.path().join("s.jsonl.bak");
        fs::hard_link(&path, &backup).unwrap();
        let new_path = dir.path().join("new");
        fs::write(&new_path, "summary\nold 1\n").unwrap();
        let mut new = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&new_path)
            .unwrap();
        fs::rename(&new_path, &path).unwrap();
        let ours = 14;
        // The agent's line lands in the old file; its copy of the new file lacks it.
        let copy = dir.path().join("copy");
        fs::write(&copy, "summary\nold 1\nagent 3\n").unwrap();
        OpenOptions::new()
            .append(true)
            .open(&backup)
            .unwrap()
            .write_all(b"agent 2\n")
            .unwrap();
        let mut salvage = Salvage::new(6, ours);
        salvage.pass(&target, &mut new).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"summary\nold 1\nagent 2\n");
        fs::rename(&copy, &path).unwrap();
        salvage.settle(&target, &new, ours, &backup).unwrap();
        assert_eq!(
            fs::read(&path).unwrap(),
            b"summary\nold 1\nagent 3\nagent 2\n"
        );
        // A copy from before the compaction stands, and the run says it compacted nothing.
        fs::write(&copy, "old 1\nagent 2\nagent 3\n").unwrap();
        fs::rename(&copy, &path).unwrap();
        let error = salvage.settle(&target, &new, ours, &backup).unwrap_err();
        assert!(
            format!("{error:#}").contains("nothing is compacted"),
            "{error:#}"
        );
    }
}
