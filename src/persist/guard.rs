//! Path guards: a file condense writes (a plan, a backup) must not be a file it reads, and a
//! file it reads as the summary must not be the transcript, under any name. Names are compared
//! as inodes, so a hard link, a symlink, `./x` and `/dev/stdin` are all seen through.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// A file's identity: device and inode, following symlinks; `None` if it does not exist.
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The identity of what standard input is (a file, a pipe, a terminal).
pub fn stdin_identity() -> Option<(u64, u64)> {
    rustix::fs::fstat(std::io::stdin())
        .ok()
        .map(|stat| (stat.st_dev, stat.st_ino))
}

/// Whether two paths name the same file (or, when neither exists yet, the same path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (identity(a), identity(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (fs::canonicalize(a), fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        },
    }
}

/// Whether `path` is the file standard input reads (`/dev/stdin`, or the file redirected in).
pub fn is_stdin(path: &Path) -> bool {
    matches!((identity(path), stdin_identity()), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hard_link_and_a_symlink_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        fs::write(&a, "x").unwrap();
        let hard = dir.path().join("hard");
        fs::hard_link(&a, &hard).unwrap();
        let soft = dir.path().join("soft");
        std::os::unix::fs::symlink(&a, &soft).unwrap();
        let other = dir.path().join("other");
        fs::write(&other, "x").unwrap();
        assert!(same_file(&a, &hard));
        assert!(same_file(&soft, &a));
        assert!(!same_file(&a, &other));
        assert!(!same_file(&a, &dir.path().join("missing")));
        assert!(same_file(
            &dir.path().join("missing"),
            &dir.path().join("missing")
        ));
    }
}
