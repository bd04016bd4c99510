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
        if comm.trim().contains("opencode") {
            return Some(format!("opencode (process {pid})"));
        }
    }
    None
}
