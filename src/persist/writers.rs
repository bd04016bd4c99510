//! Other processes that hold a file open for writing, as `/proc` shows them.
//!
//! An agent that keeps its session open (Codex does) goes on writing into the inode it opened;
//! once that inode is renamed away its lines land in the backup, not in the session. Seeing it
//! first is the only way to refuse rather than lose them. `/proc` shows only the processes this
//! user may inspect (all of them for root); where it shows nothing, nothing is found, and the
//! carry-over after the rename still catches what such a writer wrote before it closed.

use std::fmt;
use std::fs;
use std::os::unix::fs::MetadataExt;

/// A process with a write descriptor on the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`), which may hold any byte: print it sanitised.
    pub name: String,
}

impl fmt::Display for Writer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "process {} ({})", self.pid, self.name)
    }
}

/// The processes other than this one that have the file `(dev, ino)` open for writing.
pub fn writers(dev: u64, ino: u64) -> Vec<Writer> {
    let own = std::process::id();
    let Ok(processes) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for process in processes.flatten() {
        let Some(pid) = process
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        if holds_for_writing(pid, dev, ino) {
            let name = fs::read_to_string(format!("/proc/{pid}/comm"))
                .map(|comm| comm.trim_end().to_owned())
                .unwrap_or_else(|_| "?".to_owned());
            found.push(Writer { pid, name });
        }
    }
    found
}

fn holds_for_writing(pid: u32, dev: u64, ino: u64) -> bool {
    let Ok(descriptors) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    descriptors.flatten().any(|descriptor| {
        // The magic link resolves to the open file itself, wherever it is now named.
        let same = fs::metadata(descriptor.path()).is_ok_and(|m| m.dev() == dev && m.ino() == ino);
        same && {
            let info = format!(
                "/proc/{pid}/fdinfo/{}",
                descriptor.file_name().to_string_lossy()
            );
            fs::read_to_string(info).is_ok_and(|text| opened_for_writing(&text))
        }
    })
}

/// Whether an fdinfo text's `flags:` (octal open flags) has a write access mode.
fn opened_for_writing(fdinfo: &str) -> bool {
    fdinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| u32::from_str_radix(flags.trim(), 8).ok())
        // O_ACCMODE: 0 read only, 1 write only, 2 read and write.
        .is_some_and(|flags| flags & 0o3 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    #[test]
    fn reads_the_access_mode_from_fdinfo() {
        assert!(!opened_for_writing(
            "pos:\t0\nflags:\t0100000\nmnt_id:\t1\n"
        ));
        assert!(opened_for_writing("pos:\t0\nflags:\t02102001\n"));
        assert!(opened_for_writing("flags:\t02\n"));
        assert!(!opened_for_writing("pos:\t0\n"));
    }

    #[test]
    fn sees_a_child_that_keeps_the_file_open_and_not_one_that_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, "x\n").unwrap();
        let meta = fs::metadata(&path).unwrap();
        let file = OpenOptions::new().append(true).open(&path).unwrap();
        // This process is never reported, so a child holds the descriptor.
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .stdout(file)
            .spawn()
            .unwrap();
        let found = writers(meta.dev(), meta.ino());
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].pid, child.id());
        assert_eq!(found[0].name, "sleep");
        let reader = fs::File::open(&path).unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .stdin(reader)
            .spawn()
            .unwrap();
        let found = writers(meta.dev(), meta.ino());
        let _ = child.kill();
        let _ = child.wait();
        assert!(found.is_empty(), "{found:?}");
    }
}
