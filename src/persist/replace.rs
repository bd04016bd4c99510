//! The safe replace, for formats whose compaction rewrites the file (kimi `context.jsonl`,
//! OpenAI and Anthropic message lists, Gemini) and for `--rewrite`.
//!
//! The new content is written to a temporary file that has no name at all while it is written
//! (`O_TMPFILE`): a run killed at any moment leaves no full-size stray, and nothing can be
//! planted where it is written. It gets the original's owner, group, mode and extended
//! attributes (its ACL among them, see [`super::attrs`]) before its first byte. Where the file system has no `O_TMPFILE` the file is created exclusively, no-follow,
//! under an unguessable name, and the next run on the same session removes what a killed run
//! left. Before the rename, what the agent appended since the read is built in (a few times;
//! then carried over as it is: for these formats the compacted file goes on where the original
//! went on), and a process that
//! holds the file open for writing makes the run refuse: after the rename its lines would land
//! in the backup. Lines written in the instant between the last look and the rename, by a writer
//! that opens the file per line, are carried over from the old inode afterwards. The new file
//! takes the session's name by a swap where the system has one ([`super::exchange`]): a copy
//! the agent saved by rename in that instant is displaced, seen, and put back, never thrown away.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;

use super::backup;
use super::exchange;
use super::link::{link_fd, random_tag};
use super::lock::Target;
use super::salvage::Salvage;
use super::snapshot::settled_from;
use super::whole::append_whole;
use super::writers::writers;

/// How many times the writer check looks before it refuses: a writer that opens the file per
/// line holds it only for an instant, one that keeps it open is seen every time.
const WRITER_LOOKS: u32 = 10;

/// The new file, not yet in place.
pub struct Temp {
    file: File,
    /// Its name while it has one (the fallback without `O_TMPFILE`), removed unless committed.
    named: Option<PathBuf>,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(path) = self.named.take() {
            let _ = fs::remove_file(path);
        }
    }
}

#[cfg(test)]
impl Temp {
    /// A plain file standing in for a temporary one.
    pub fn for_test(path: &std::path::Path) -> Temp {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .unwrap();
        Temp {
            file,
            named: Some(path.to_path_buf()),
        }
    }

    /// Everything written to it.
    pub fn contents(&self) -> Vec<u8> {
        super::snapshot::read_from(&self.file, 0, "temp").unwrap()
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The prefix of this session's temporary names, `.NAME.condense-` (a long NAME shortened to
/// leave room for the rest, see [`super::names`]).
fn stray_prefix(target: &Target) -> Vec<u8> {
    super::names::temp_prefix(target.file_name.as_bytes())
}

fn temp_path(target: &Target) -> PathBuf {
    let mut name = stray_prefix(target);
    name.extend_from_slice(random_tag().as_bytes());
    name.extend_from_slice(b".tmp");
    target.dir.join(std::ffi::OsStr::from_bytes(&name))
}

/// Removes what killed runs left of this session: temporary files (`.NAME.condense-*.tmp`, and
/// the `.bak` links of older versions). Called under the lock, so no live run owns one.
pub fn clean_strays(target: &Target) {
    let prefix = stray_prefix(target);
    let Ok(entries) = fs::read_dir(&target.dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let bytes = name.as_bytes();
        let ours =
            bytes.starts_with(&prefix) && (bytes.ends_with(b".tmp") || bytes.ends_with(b".bak"));
        if ours && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

impl Temp {
    /// A new, empty temporary file in the session's directory, owned and permitted as it is.
    pub fn create(target: &Target) -> Result<Temp> {
        let temp = match unnamed(&target.dir) {
            Ok(file) => Temp { file, named: None },
            Err(error) if is_permission(&error) => {
                return Err(error).with_context(|| {
                    format!("{}: cannot write in this directory", target.shown_dir)
                })
            }
            Err(_) => Temp::named(target)?,
        };
        target.hand_over(&temp.file).with_context(|| {
            format!(
                "{}: cannot give the new file the original's owner, mode and attributes",
                target.name
            )
        })?;
        Ok(temp)
    }
}

/// A file in `dir` with no name (Linux's `O_TMPFILE`).
#[cfg(target_os = "linux")]
fn unnamed(dir: &std::path::Path) -> std::io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(OFlags::TMPFILE.bits() as i32)
        .open(dir)
}

#[cfg(not(target_os = "linux"))]
fn unnamed(_dir: &std::path::Path) -> std::io::Result<File> {
    Err(std::io::ErrorKind::Unsupported.into())
}

impl Temp {
    /// The fallback where `O_TMPFILE` is not supported: an exclusive, no-follow open of an
    /// unguessable name, readable by its owner only until it has the original's owner and mode.
    fn named(target: &Target) -> Result<Temp> {
        let path = temp_path(target);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(OFlags::NOFOLLOW.bits() as i32)
            .open(&path)
            .with_context(|| format!("{}: cannot write in this directory", target.shown_dir))?;
        Ok(Temp {
            file,
            named: Some(path),
        })
    }
}

fn is_permission(error: &std::io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(code) if code == rustix::io::Errno::ACCESS.raw_os_error()
            || code == rustix::io::Errno::PERM.raw_os_error()
            || code == rustix::io::Errno::ROFS.raw_os_error()
    )
}

/// What a replace did.
#[derive(Debug)]
pub struct Replaced {
    /// Where the original now is.
    pub backup: PathBuf,
    /// What the user should know.
    pub warnings: Vec<String>,
    /// The length and hash ([`crate::undo::hash`]) of the file this run left.
    pub left: (u64, u64),
}

/// Refuses while another process keeps the file open for writing.
fn refuse_writers(target: &Target) -> Result<()> {
    let mut seen = Vec::new();
    for _ in 0..WRITER_LOOKS {
        seen = writers(target.dev, target.ino);
        if seen.is_empty() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(3));
    }
    bail!(
        "{}: {} has it open for writing; replacing it now would send what it writes next to the \
         backup, so nothing was written (compact it when the agent has exited)",
        target.name,
        seen[0]
    )
}

/// A process that holds the old file open for writing at every look.
fn lasting_writer(target: &Target) -> Option<super::writers::Writer> {
    let mut seen = None;
    for _ in 0..WRITER_LOOKS {
        seen = writers(target.dev, target.ino).into_iter().next();
        seen.as_ref()?;
        std::thread::sleep(Duration::from_millis(3));
    }
    seen
}

/// Puts the original back at the session's name after a rename, from its backup link, with
/// what a writer of the new file added after the first `ours` bytes (but the lines salvaged
/// from the original, which it has); the backup name goes.
fn roll_back(
    target: &Target,
    new: &mut File,
    ours: u64,
    salvage: &Salvage,
    backup: &std::path::Path,
) -> Result<()> {
    let undo = || -> Result<()> {
        fs::rename(backup, &target.real)?;
        let more = salvage.others(new, ours, &target.name)?;
        let whole = more.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole > 0 {
            let mut old = OpenOptions::new()
                .append(true)
                .custom_flags(OFlags::NOFOLLOW.bits() as i32)
                .open(&target.real)?;
            let known = target.file.metadata()?.len();
            append_whole(
                &mut old,
                &target.file,
                &target.real,
                (target.dev, target.ino),
                &more[..whole],
                known,
            )?;
        }
        sync_dir(target);
        Ok(())
    };
    undo().with_context(|| {
        format!(
            "{}: a writer opened it while it was being replaced, and putting the original back \
             failed: it is at {}",
            target.name,
            backup.display()
        )
    })
}

/// Appends to `temp` what the agent appended to the original after `consumed`; true if there
/// was something.
fn carry_over(target: &Target, temp: &mut File, consumed: &mut u64) -> Result<bool> {
    if target.file.metadata()?.len() < *consumed {
        bail!(
            "{}: shrank while being compacted (another program rewrote it?); nothing was written",
            target.name
        );
    }
    let more = settled_from(
        &target.file,
        *consumed,
        target.dev,
        target.ino,
        &target.name,
    )?;
    if more.is_empty() {
        return Ok(false);
    }
    temp.seek(SeekFrom::End(0))?;
    temp.write_all(&more)?;
    *consumed += more.len() as u64;
    Ok(true)
}

/// What a commit did.
#[derive(Debug)]
pub enum Committed {
    /// The file grew since the read: build again from the new content.
    Grew,
    /// The file is replaced.
    Replaced(Replaced),
}

/// Puts `temp` in place of the target, whose first `consumed` bytes it was built from. Unless
/// `last`, a file that grew since is left for a rebuild, so that the new lines go through the
/// format's writer like the others; on the last attempt they are carried over as they are.
pub fn commit(
    target: &Target,
    mut temp: Temp,
    consumed: usize,
    suffix: &str,
    last: bool,
) -> Result<Committed> {
    let mut consumed = consumed as u64;
    let fail = |e: anyhow::Error| e.context(format!("{}: cannot replace in place", target.name));
    refuse_writers(target)?;
    if !last && target.file.metadata()?.len() > consumed {
        return Ok(Committed::Grew);
    }
    // Catch up with the agent first, while nothing is committed.
    for _ in 0..100 {
        refuse_writers(target)?;
        if !carry_over(target, &mut temp.file, &mut consumed)? {
            break;
        }
    }
    if !target.still_at_path() {
        return Err(target.replaced_error());
    }
    temp.file.sync_all().map_err(|e| fail(e.into()))?;
    let backup = backup::keep(target, suffix).map_err(fail)?;
    let mut ours = 0;
    let placed = (|| -> Result<()> {
        // What arrived during the sync and the link.
        if carry_over(target, &mut temp.file, &mut consumed)? {
            temp.file.sync_all()?;
        }
        // Unseen until the rename, so every byte of it is this run's.
        ours = temp.file.metadata()?.len();
        let named = match temp.named.take() {
            Some(path) => path,
            None => loop {
                let path = temp_path(target);
                match link_fd(&temp.file, None, &path) {
                    Ok(()) => break path,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                    Err(e) => {
                        return Err(e).with_context(|| {
                            format!("{}: cannot write in this directory", target.shown_dir)
                        })
                    }
                }
            },
        };
        // The sync of a large file takes a while: a writer that opened the file meanwhile
        // would write into the backup after the rename. The last look is just before it.
        if let Err(e) = refuse_writers(target) {
            let _ = fs::remove_file(&named);
            return Err(e);
        }
        if !target.still_at_path() {
            let _ = fs::remove_file(&named);
            return Err(target.replaced_error());
        }
        put_in_place(target, &named, &mut temp.file, ours)
    })();
    if let Err(e) = placed {
        let _ = fs::remove_file(&backup);
        return Err(fail(e));
    }
    // What reached the old file in the instant around the rename goes over first: until it
    // does, the session reads without it.
    let mut salvage = Salvage::new(consumed, ours);
    salvage.pass(target, &mut temp.file)?;
    // A writer that opened the old file in the instant before the rename and keeps it: its
    // lines would only reach the backup. The original goes back instead.
    if let Some(writer) = lasting_writer(target) {
        roll_back(target, &mut temp.file, ours, &salvage, &backup)?;
        bail!(
            "{}: {writer} opened it for writing while it was being replaced; the original is \
             back in place and unchanged, so nothing was written (compact it when the agent has \
             exited)",
            target.name
        );
    }
    sync_dir(target);
    let warnings = salvage.until_quiet(target, &mut temp.file, &backup)?;
    salvage.settle(target, &temp.file, ours, &backup)?;
    let left =
        length_and_hash(&temp.file).with_context(|| format!("{}: cannot read", target.name))?;
    Ok(Committed::Replaced(Replaced {
        backup,
        warnings,
        left,
    }))
}

/// Moves the replacement at `named` (the open `ours_file`, `ours` bytes long) to the session's
/// name. By a swap where the system has one: the file it displaces must be the one this run
/// compacted. One the agent put there after the last look (a copy saved by rename) goes back,
/// with what reached the replacement in the instant it held the name, and the run fails having
/// written nothing. Without a swap, a rename after the last look.
fn put_in_place(target: &Target, named: &Path, ours_file: &mut File, ours: u64) -> Result<()> {
    let swapped = match exchange::swap(named, &target.real) {
        Ok(swapped) => swapped,
        Err(e) => {
            let _ = fs::remove_file(named);
            return Err(e.into());
        }
    };
    if !swapped {
        if let Err(e) = fs::rename(named, &target.real) {
            let _ = fs::remove_file(named);
            return Err(e.into());
        }
        return Ok(());
    }
    let displaced_is_ours =
        fs::symlink_metadata(named).is_ok_and(|m| m.dev() == target.dev && m.ino() == target.ino);
    if displaced_is_ours {
        // The compacted original: its backup link keeps it.
        let _ = fs::remove_file(named);
        return Ok(());
    }
    exchange::swap(named, &target.real).with_context(|| {
        format!(
            "the agent saved its own copy in the instant the compacted session took its name; \
             the copy is at {} and the compacted session at the session's name",
            named.display()
        )
    })?;
    let mut late = Vec::new();
    ours_file.seek(SeekFrom::Start(ours))?;
    ours_file.read_to_end(&mut late)?;
    if !late.is_empty() {
        OpenOptions::new()
            .append(true)
            .open(&target.real)
            .and_then(|mut agents| agents.write_all(&late))
            .with_context(|| format!("cannot give back {} bytes", late.len()))?;
    }
    let _ = fs::remove_file(named);
    Err(target.replaced_error())
}

/// The length and hash of a file's content, read a block at a time.
fn length_and_hash(file: &File) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::FileExt;
    let mut block = vec![0u8; 1 << 20];
    let (mut at, mut hash) = (0, crate::undo::HASH_START);
    loop {
        let n = file.read_at(&mut block, at)?;
        if n == 0 {
            return Ok((at, hash));
        }
        hash = crate::undo::hash_more(hash, &block[..n]);
        at += n as u64;
    }
}

fn sync_dir(target: &Target) {
    // Some file systems cannot sync a directory; the rename is then as durable as they allow.
    if let Ok(dir) = File::open(&target.dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::lock::open_locked;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn the_named_fallback_is_private_then_takes_the_originals_mode_and_goes_if_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let target = open_locked(&path).unwrap();
        let temp = Temp::named(&target).unwrap();
        let name = temp.named.clone().unwrap();
        let file_name = name.file_name().unwrap().to_string_lossy().into_owned();
        assert!(file_name.starts_with(".s.jsonl.condense-") && file_name.ends_with(".tmp"));
        assert_eq!(fs::metadata(&name).unwrap().mode() & 0o777, 0o600);
        target.hand_over(&temp.file).unwrap();
        assert_eq!(fs::metadata(&name).unwrap().mode() & 0o777, 0o640);
        // Two names never collide, and a dropped one is removed.
        let other = Temp::named(&target).unwrap();
        assert_ne!(other.named, temp.named);
        drop(temp);
        drop(other);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_copy_the_agent_renamed_in_after_the_last_look_goes_back_with_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\n").unwrap();
        let target = open_locked(&path).unwrap();
        let named = dir.path().join(".s.jsonl.condense-1.tmp");
        let mut ours = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&named)
            .unwrap();
        ours.write_all(b"compacted\n").unwrap();
        // The agent saves its session anew by rename after the run's last look: a copy with
        // the line it added.
        let copy = dir.path().join("s.jsonl.agent");
        fs::write(&copy, "a\nb\n").unwrap();
        fs::rename(&copy, &path).unwrap();
        // And, in the instant the replacement held the name, it appended one more line to it.
        ours.write_all(b"c\n").unwrap();
        let error = put_in_place(&target, &named, &mut ours, 10).unwrap_err();
        assert!(
            error.to_string().contains("replaced by another program"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "a\nb\nc\n");
        assert!(!named.exists());
    }

    #[test]
    fn the_file_compacted_is_displaced_and_kept_only_by_its_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\n").unwrap();
        let target = open_locked(&path).unwrap();
        let named = dir.path().join(".s.jsonl.condense-1.tmp");
        fs::write(&named, "compacted\n").unwrap();
        let mut ours = File::open(&named).unwrap();
        put_in_place(&target, &named, &mut ours, 10).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "compacted\n");
        assert!(!named.exists());
    }

    #[test]
    fn strays_of_this_session_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\n").unwrap();
        for name in [
            ".s.jsonl.condense-1234.tmp",
            ".s.jsonl.condense-00ff00ff00ff00ff.tmp",
            ".s.jsonl.condense-1234.bak",
            ".t.jsonl.condense-1234.tmp",
            "s.jsonl.bak",
            ".s.jsonl.condense-notes",
        ] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        // A planted symlink with the pattern is not followed, and is left.
        let outside = dir.path().join("outside");
        fs::write(&outside, "keep").unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join(".s.jsonl.condense-9.tmp")).unwrap();
        let target = open_locked(&path).unwrap();
        clean_strays(&target);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".s.jsonl.condense-9.tmp",
                ".s.jsonl.condense-notes",
                ".t.jsonl.condense-1234.tmp",
                "outside",
                "s.jsonl",
                "s.jsonl.bak"
            ]
        );
        assert_eq!(fs::read(&outside).unwrap(), b"keep");
    }
}
