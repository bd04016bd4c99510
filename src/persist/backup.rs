//! Backup names that never overwrite: `S.bak`, then `S.bak.1`, `S.bak.2`, … so that every
//! replaced original stays recoverable. The highest number is the newest; a name is taken with
//! `link`, which fails rather than replace an existing file, so two runs (or a file the user put
//! there) can never share one.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rustix::fs::OFlags;

use super::link::link_fd;
use super::lock::Target;

/// The first backup name: FILE and the suffix, beside the real file (a long FILE shortened so
/// that `.N` still fits after it, see [`super::names`]).
pub fn first_name(target: &Target, suffix: &str) -> PathBuf {
    // `.` and the digits of the largest number.
    const NUMBER: usize = 1 + 20;
    let mut name = super::names::stem(target.file_name.as_bytes(), suffix.len() + NUMBER);
    name.extend_from_slice(suffix.as_bytes());
    target.dir.join(std::ffi::OsStr::from_bytes(&name))
}

/// The number after `base` in a sibling's name: 0 for `base` itself, N for `base.N`.
fn number(base: &[u8], name: &[u8]) -> Option<u64> {
    let rest = name.strip_prefix(base)?;
    if rest.is_empty() {
        return Some(0);
    }
    let digits = rest.strip_prefix(b".")?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The name of backup number `n`.
fn numbered(target: &Target, suffix: &str, n: u64) -> PathBuf {
    let first = first_name(target, suffix);
    if n == 0 {
        return first;
    }
    let mut name = OsString::from(first.file_name().unwrap_or_default());
    name.push(format!(".{n}"));
    target.dir.join(name)
}

/// Keeps the locked file under a new backup name and returns it.
pub fn keep(target: &Target, suffix: &str) -> Result<PathBuf> {
    let first = first_name(target, suffix);
    let base = first.file_name().unwrap_or_default().as_bytes().to_vec();
    let highest = fs::read_dir(&target.dir)
        .with_context(|| format!("{}: cannot list", target.shown_dir))?
        .flatten()
        .filter_map(|entry| number(&base, entry.file_name().as_bytes()))
        .max();
    let mut n = highest.map_or(Some(0), |h| h.checked_add(1));
    loop {
        // Past the highest number there is none left: refuse rather than wrap to a used one.
        let Some(this) = n else {
            anyhow::bail!(
                "{}: no backup number is left after {}.{}; move the old backups away",
                target.name,
                first.display(),
                u64::MAX
            );
        };
        let candidate = numbered(target, suffix, this);
        match link_fd(&target.file, Some(&target.real), &candidate) {
            Ok(()) => return Ok(candidate),
            // Taken since the listing (another run, or the user): the next number.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n = this.checked_add(1),
            // A file system without hard links: a copy, still never over an existing file.
            Err(_) => match copy_to(target, &candidate) {
                Ok(()) => return Ok(candidate),
                Err(e)
                    if e.downcast_ref::<std::io::Error>()
                        .is_some_and(|e| e.kind() == std::io::ErrorKind::AlreadyExists) =>
                {
                    n = this.checked_add(1)
                }
                Err(e) => {
                    return Err(e)
                        .with_context(|| format!("{}: cannot keep a backup", candidate.display()))
                }
            },
        }
    }
}

fn copy_to(target: &Target, path: &Path) -> Result<()> {
    let mut copy = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(OFlags::NOFOLLOW.bits() as i32)
        .open(path)?;
    let result = (|| -> Result<()> {
        target.hand_over(&copy)?;
        copy_file(&target.file, &mut copy)?;
        copy.sync_all()?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(path);
    }
    result
}

fn copy_file(from: &File, to: &mut File) -> std::io::Result<()> {
    let mut chunk = vec![0u8; 1 << 20];
    let mut at = 0;
    loop {
        let n = from.read_at(&mut chunk, at)?;
        if n == 0 {
            return Ok(());
        }
        to.write_all(&chunk[..n])?;
        at += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_only_its_own_names() {
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl.bak"), Some(0));
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl.bak.12"), Some(12));
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl.bak."), None);
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl.bak.1x"), None);
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl.bakery"), None);
        assert_eq!(number(b"s.jsonl.bak", b"s.jsonl"), None);
    }
}
