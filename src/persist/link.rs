//! Giving an open file a name: `linkat` of the descriptor itself, so the name is bound to the
//! inode that was checked and written, never to whatever a path points to by then. A new name
//! never replaces an existing one (`EEXIST`). Where the descriptor cannot be linked (no Linux,
//! no `/proc`), the name it has is linked and the result checked to be the same inode.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Links `file`, which is also at `source` when it has a name, at `path`.
pub fn link_fd(file: &File, source: Option<&Path>, path: &Path) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{linkat, AtFlags, CWD};
        use rustix::io::Errno;
        use std::os::fd::AsRawFd;
        // AT_EMPTY_PATH links the descriptor directly but needs CAP_DAC_READ_SEARCH; everyone
        // else goes through its /proc link, which AT_SYMLINK_FOLLOW resolves to the inode.
        let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
        let linked = match linkat(file, "", CWD, path, AtFlags::EMPTY_PATH) {
            Err(Errno::EXIST) => Err(Errno::EXIST),
            Err(_) => linkat(CWD, proc_path.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW),
            ok => ok,
        };
        match linked {
            Ok(()) => return Ok(()),
            Err(Errno::EXIST) => return Err(io::ErrorKind::AlreadyExists.into()),
            Err(error) if source.is_none() => return Err(error.into()),
            Err(_) => {}
        }
    }
    match source {
        Some(source) => link_by_name(file, source, path),
        None => Err(io::ErrorKind::Unsupported.into()),
    }
}

/// Links `source` at `path`, then makes sure the new name is `file`'s inode (the name could
/// have been swapped in between) and takes it back if not.
fn link_by_name(file: &File, source: &Path, path: &Path) -> io::Result<()> {
    fs::hard_link(source, path)?;
    let meta = file.metadata()?;
    let linked = fs::symlink_metadata(path)?;
    if (linked.dev(), linked.ino()) != (meta.dev(), meta.ino()) {
        let _ = fs::remove_file(path);
        return Err(io::Error::other("the file was replaced while being linked"));
    }
    Ok(())
}

/// A name no one can guess: 64 random bits, in hex.
pub fn random_tag() -> String {
    let bytes = kernel_random().unwrap_or_else(hashed_random);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(target_os = "linux")]
fn kernel_random() -> Option<[u8; 8]> {
    let mut bytes = [0u8; 8];
    rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty())
        .ok()
        .map(|_| bytes)
}

#[cfg(not(target_os = "linux"))]
fn kernel_random() -> Option<[u8; 8]> {
    None
}

/// std's hasher keys come from the operating system's random source; the clock and the process
/// id make each call differ. A name is only ever created exclusively, so a guess could make a
/// run fail, never redirect it.
fn hashed_random() -> [u8; 8] {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(now);
    hasher.write_u32(std::process::id());
    hasher.finish().to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_a_descriptor_or_its_name_and_never_over_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("s");
        fs::write(&source, "a").unwrap();
        let file = File::open(&source).unwrap();
        link_fd(&file, Some(&source), &dir.path().join("b")).unwrap();
        link_by_name(&file, &source, &dir.path().join("c")).unwrap();
        let ino = fs::metadata(&source).unwrap().ino();
        for name in ["b", "c"] {
            assert_eq!(fs::metadata(dir.path().join(name)).unwrap().ino(), ino);
        }
        let error = link_fd(&file, Some(&source), &dir.path().join("b")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        // A name that no longer is the file is taken back.
        let other = dir.path().join("other");
        fs::write(&other, "b").unwrap();
        assert!(link_by_name(&file, &other, &dir.path().join("d")).is_err());
        assert!(!dir.path().join("d").exists());
    }

    #[test]
    fn tags_differ() {
        assert_ne!(random_tag(), random_tag());
        assert_ne!(hashed_random(), hashed_random());
        assert_eq!(random_tag().len(), 16);
    }
}
