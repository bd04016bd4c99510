//! Putting a replacement in place by swapping it with what the session's name holds
//! (`renameat2` with `RENAME_EXCHANGE`), so that the run learns which file it displaced.
//!
//! A plain rename replaces whatever the name holds in that instant. An agent that saves its
//! session anew by rename (reads it, writes a copy with its new lines, renames the copy over it)
//! may do so between the run's last look at the name and its rename: the rename would then
//! throw away the agent's copy, and with it the lines only that copy holds. After a swap the
//! displaced file is still there, under the replacement's temporary name, and the caller can
//! check that it is the file it compacted, or put the agent's copy back.
//!
//! Where the swap is not available (a kernel before 3.15, a file system without it), the caller
//! falls back to the rename and its last look.

use std::io;
use std::path::Path;

/// Swaps the files at `a` and `b` (both in one directory), atomically: each name then holds
/// what the other held. `Ok(false)` when this system cannot swap, and nothing moved.
pub fn swap(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        use rustix::io::Errno;
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            // The kernel has no renameat2, or the file system no exchange (EINVAL is also what
            // a file system that knows renameat2 but not this flag answers).
            Err(Errno::NOSYS | Errno::INVAL | Errno::OPNOTSUPP) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn each_name_holds_what_the_other_held() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::write(&a, "new\n").unwrap();
        fs::write(&b, "old\n").unwrap();
        // Linux's file systems that condense's tests run on (ext4, tmpfs, overlayfs) all swap.
        assert_eq!(swap(&a, &b).unwrap(), cfg!(target_os = "linux"));
        if !cfg!(target_os = "linux") {
            return;
        }
        assert_eq!(fs::read_to_string(&a).unwrap(), "old\n");
        assert_eq!(fs::read_to_string(&b).unwrap(), "new\n");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_missing_name_is_an_error_and_moves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("gone"));
        fs::write(&a, "new\n").unwrap();
        assert!(swap(&a, &b).is_err());
        assert_eq!(fs::read_to_string(&a).unwrap(), "new\n");
        assert!(!b.exists());
    }
}
