//! Giving an open file a name: `linkat` of the descriptor itself, so the name is bound to the
//! inode that was checked and written, never to whatever a path points to by then. A new name
//! never replaces an existing one (`EEXIST`).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use rustix::fs::{linkat, AtFlags, CWD};

/// Links `file` at `path`.
pub fn link_fd(file: &File, path: &Path) -> io::Result<()> {
    // AT_EMPTY_PATH links the descriptor directly but needs CAP_DAC_READ_SEARCH; everyone else
    // goes through the descriptor's /proc link, which AT_SYMLINK_FOLLOW resolves to the inode.
    match linkat(file, "", CWD, path, AtFlags::EMPTY_PATH) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::EXIST) => Err(io::ErrorKind::AlreadyExists.into()),
        Err(_) => {
            let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
            linkat(CWD, proc_path.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW)
                .map_err(io::Error::from)
        }
    }
}

/// A name no one can guess: 64 random bits from the kernel, in hex.
pub fn random_tag() -> String {
    let mut bytes = [0u8; 8];
    if rustix::rand::getrandom(&mut bytes, rustix::rand::GetRandomFlags::empty()).is_err() {
        // No getrandom (very old kernels): the clock and the process id. The name is only
        // ever created exclusively, so a guess can make the run fail but never redirect it.
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        bytes = (now ^ (u64::from(std::process::id()) << 32)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
