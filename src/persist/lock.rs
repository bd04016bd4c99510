//! The file an in-place run works on: found through any symlink, checked to be a regular file
//! before a byte of it is read, and held under an advisory lock so that two condense runs on
//! one session take turns instead of each replacing what the other wrote.
//!
//! The lock is `flock` on the session's own inode, so it leaves no lock file behind. A run that
//! waited while another replaced the file holds the lock of an inode that is no longer the
//! session; it notices (the path names another inode) and locks the new one.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rustix::fs::{flock, FlockOperation, OFlags};

/// How long a run waits for another condense run to finish with the same session.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// The locked file.
#[derive(Debug)]
pub struct Target {
    /// The path as given, for messages.
    pub name: String,
    /// The real file: the path with every symlink resolved.
    pub real: PathBuf,
    /// Its directory, where the temporary file and backups go.
    pub dir: PathBuf,
    /// The directory as messages show it: as given unless the path was a symlink.
    pub shown_dir: String,
    /// Its name in that directory.
    pub file_name: OsString,
    /// The file, open for reading, holding the lock.
    pub file: File,
    /// Device and inode: the identity checked before every step that trusts the path.
    pub dev: u64,
    /// See `dev`.
    pub ino: u64,
    /// Permission bits, owner and group, which a replacement gets too.
    pub mode: u32,
    /// See `mode`.
    pub uid: u32,
    /// See `mode`.
    pub gid: u32,
}

impl Target {
    /// Whether `path` (the real path) still names the locked inode.
    pub fn still_at_path(&self) -> bool {
        fs::symlink_metadata(&self.real).is_ok_and(|m| m.dev() == self.dev && m.ino() == self.ino)
    }

    /// Gives `file` (a replacement or a backup copy) the owner, group, mode and extended
    /// attributes (ACLs among them) of the locked file. Owned here, beside the fields it reads,
    /// so that the replace and the backup both take it from the lock rather than one from the
    /// other.
    pub fn hand_over(&self, file: &File) -> std::io::Result<()> {
        super::attrs::carry_over(&self.file, self.owner(), file)
    }

    /// The owner, group and mode a replacement takes.
    pub fn owner(&self) -> super::attrs::Owner {
        super::attrs::Owner {
            uid: self.uid,
            gid: self.gid,
            mode: self.mode,
        }
    }

    /// The error for a session that another program replaced while this run worked.
    pub fn replaced_error(&self) -> anyhow::Error {
        anyhow::anyhow!(
            "{}: replaced by another program while being compacted; nothing was written",
            self.name
        )
    }
}

/// Resolves, checks and locks the session at `path`.
pub fn open_locked(path: &Path) -> Result<Target> {
    let name = path.display().to_string();
    let started = Instant::now();
    loop {
        let real = fs::canonicalize(path)
            .with_context(|| format!("{name}: cannot open for --in-place"))?;
        let meta = fs::symlink_metadata(&real).with_context(|| format!("{name}: cannot open"))?;
        refuse_irregular(&name, &meta.file_type())?;
        // No-follow and non-blocking: if the name was swapped for a symlink or a FIFO since the
        // check, the open fails or returns at once instead of following it or waiting.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
            .open(&real)
            .with_context(|| format!("{name}: cannot open"))?;
        let meta = file
            .metadata()
            .with_context(|| format!("{name}: cannot read"))?;
        refuse_irregular(&name, &meta.file_type())?;
        lock(&file, &name, started)?;
        let dir = real
            .parent()
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
        let shown_dir = if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            dir.display().to_string()
        } else {
            match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent.display().to_string(),
                _ => ".".to_owned(),
            }
        };
        let target = Target {
            name: name.clone(),
            file_name: real.file_name().map(OsString::from).unwrap_or_default(),
            real,
            dir,
            shown_dir,
            file,
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode() & 0o7777,
            uid: meta.uid(),
            gid: meta.gid(),
        };
        if target.still_at_path() {
            return Ok(target);
        }
        // Another run replaced the file while this one waited: lock the new one.
        if started.elapsed() > LOCK_WAIT {
            bail!("{name}: kept being replaced while waiting for its lock");
        }
    }
}

fn refuse_irregular(name: &str, kind: &fs::FileType) -> Result<()> {
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    bail!("{name}: {what}; --in-place only rewrites regular files (write to stdout instead)")
}

fn lock(file: &File, name: &str, started: Instant) -> Result<()> {
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {
                if started.elapsed() > LOCK_WAIT {
                    bail!(
                        "{name}: another condense run has been compacting it for {} s; try \
                         again when it has finished",
                        LOCK_WAIT.as_secs()
                    );
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            // A file system without flock (some network mounts): go on unlocked rather than
            // refuse, as the other safeguards still hold.
            Err(rustix::io::Errno::NOLCK) | Err(rustix::io::Errno::NOSYS) => return Ok(()),
            Err(error) => {
                return Err(std::io::Error::from(error))
                    .with_context(|| format!("{name}: cannot lock"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_second_run_waits_for_the_first_and_follows_a_replaced_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "a\n").unwrap();
        let first = open_locked(&path).unwrap();
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || open_locked(&path).map(|t| (t.ino, Instant::now())))
        };
        std::thread::sleep(Duration::from_millis(100));
        // The first run replaces the file, then lets go of the old inode's lock.
        let new = dir.path().join("new");
        fs::write(&new, "b\n").unwrap();
        fs::rename(&new, &path).unwrap();
        let released = Instant::now();
        drop(first);
        let (ino, locked_at) = waiter.join().unwrap().unwrap();
        assert!(locked_at >= released, "it waited");
        assert_eq!(
            ino,
            fs::metadata(&path).unwrap().ino(),
            "it locked the new file"
        );
    }

    #[test]
    fn a_symlink_is_followed_and_a_fifo_refused_without_opening_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        fs::write(&real, "a\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let target = open_locked(&link).unwrap();
        assert_eq!(target.real, fs::canonicalize(&real).unwrap());
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let error = open_locked(&fifo).unwrap_err();
        assert!(format!("{error:#}").contains("a FIFO"), "{error:#}");
    }
}
