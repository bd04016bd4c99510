//! Whether a process named opencode has the database open (`/proc/*/fd`).

use std::path::{Path, PathBuf};

/// A process named opencode that has the database (or its WAL) open, described; `None` when
/// there is none (or `/proc` cannot tell).
pub(super) fn holder(db: &Path) -> Option<String> {
    let db = std::fs::canonicalize(db).ok()?;
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    let own = std::process::id().to_string();
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let pid = process.file_name();
        let Some(pid) = pid
            .to_str()
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        let open = fds
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .any(|target| target == db || target == wal);
        if !open {
            continue;
        }
        let comm = std::fs::read_to_string(process.path().join("comm")).unwrap_or_default();
        if is_opencode(comm.trim()) {
            return Some(format!("opencode (process {pid})"));
        }
    }
    None
}

/// Whether a process's `comm` is opencode's own binary (`opencode-ai` runs a native binary
/// named `opencode`). The whole name, not a part of it: a process forked by a thread keeps
/// that thread's name until it execs, and with it every descriptor of its parent, so a part
/// would take a helper forked by a thread named `opencode_db::…` for opencode itself.
fn is_opencode(comm: &str) -> bool {
    comm == "opencode"
}

#[cfg(test)]
mod tests {
    use super::is_opencode;

    #[test]
    fn only_opencode_itself_is_opencode() {
        assert!(is_opencode("opencode"));
        // The kernel keeps 15 bytes of a thread's name; a test thread's fork shows this.
        assert!(!is_opencode("opencode_db::a_"));
        assert!(!is_opencode("node"));
    }
}
