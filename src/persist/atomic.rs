//! Writing a small file whole, for the files condense keeps beside a session or in an agent's
//! folder (kimi-cli's `kimi.json`, the undo journal): readers see the old content or the new,
//! never half of it, and nothing anyone planted in the directory is followed.
//!
//! The new content goes to a temporary file beside the target, created exclusively, no-follow,
//! under an unguessable name (a symlink planted at a predictable name would otherwise send the
//! write anywhere the user may write), readable by its owner only until it has what the file it
//! replaces had: owner, group, mode and extended attributes ([`super::attrs`]). It is synced,
//! then renamed over the target, and the directory synced. A target that is a symlink is
//! written where it points, as an in-place compaction is; a target that is not a regular file
//! is refused.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rustix::fs::OFlags;

use super::attrs::{self, Owner};
use super::link::random_tag;

/// Writes `bytes` as the whole content of the file at `path`, atomically (see the module
/// docs). A file that is there keeps its owner, group, mode and extended attributes; a new one
/// gets the mode the umask leaves of 0666, as any program's new file does.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let real = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(error) => {
            return Err(error).with_context(|| format!("{}: cannot open", path.display()))
        }
    };
    write_here(&real, bytes)
}

/// [`write()`] of the file at `path` itself: a symlink there is refused, not followed (condense's
/// own files beside a session are never links).
pub fn write_here(real: &Path, bytes: &[u8]) -> Result<()> {
    let name = real.display().to_string();
    let original = open_original(real, &name)?;
    let dir = match real.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = real
        .file_name()
        .with_context(|| format!("{name}: not a file name"))?;
    let (mut temp, temp_path) = create_temp(&dir, file_name.as_bytes(), original.is_some())
        .with_context(|| format!("{}: cannot write in this directory", dir.display()))?;
    let written = (|| -> Result<()> {
        if let Some(original) = &original {
            attrs::carry_over(original, Owner::of(original)?, &temp).with_context(|| {
                format!(
                    "{name}: cannot give the new file the original's owner, mode and attributes"
                )
            })?;
        }
        temp.write_all(bytes)
            .and_then(|()| temp.sync_all())
            .with_context(|| format!("{name}: cannot write"))?;
        fs::rename(&temp_path, real).with_context(|| format!("{name}: cannot replace"))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp_path);
        return written;
    }
    // Some file systems cannot sync a directory; the rename is then as durable as they allow.
    if let Ok(dir) = File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The file now at `real`, open for reading (no-follow, so a symlink there fails the open;
/// non-blocking, so a FIFO does not hang it), or `None` when there is none. Anything but a
/// regular file is refused.
fn open_original(real: &Path, name: &str) -> Result<Option<File>> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(real);
    let file = match opened {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("{name}: cannot open")),
    };
    let kind = file
        .metadata()
        .with_context(|| format!("{name}: cannot read"))?
        .file_type();
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO"
        } else {
            "not a regular file"
        };
        bail!("{name}: {what}; condense only replaces regular files");
    }
    Ok(Some(file))
}

/// A new file `.NAME.condense-RANDOM.tmp` in `dir`, created exclusively and no-follow: private
/// while it replaces a file (it takes that file's mode before the first byte), else with the
/// mode a new file gets.
fn create_temp(dir: &Path, name: &[u8], replacing: bool) -> std::io::Result<(File, PathBuf)> {
    loop {
        let mut temp = super::replace::temp_prefix(name);
        temp.extend_from_slice(random_tag().as_bytes());
        temp.extend_from_slice(b".tmp");
        let path = dir.join(std::ffi::OsStr::from_bytes(&temp));
        let opened = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if replacing { 0o600 } else { 0o666 })
            .custom_flags(OFlags::NOFOLLOW.bits() as i32)
            .open(&path);
        match opened {
            Ok(file) => return Ok((file, path)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn replaces_keeping_the_mode_and_follows_nothing_planted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kimi.json");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        // Whatever name a guesser plants, the write never goes through it.
        let outside = dir.path().join("outside");
        fs::write(&outside, "keep").unwrap();
        for planted in ["kimi.json.tmp", ".kimi.json.condense-0000000000000000.tmp"] {
            std::os::unix::fs::symlink(&outside, dir.path().join(planted)).unwrap();
        }
        write(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
        assert_eq!(fs::read(&outside).unwrap(), b"keep");
        // No temporary file is left.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    #[test]
    fn a_new_file_is_made_and_a_symlinked_one_written_where_it_points() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.json");
        write(&new, b"1").unwrap();
        assert_eq!(fs::read(&new).unwrap(), b"1");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&new, &link).unwrap();
        write(&link, b"2").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&new).unwrap(), b"2");
    }

    #[test]
    fn a_fifo_is_refused_without_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let error = write(&fifo, b"x").unwrap_err();
        assert!(format!("{error:#}").contains("a FIFO"), "{error:#}");
    }
}
