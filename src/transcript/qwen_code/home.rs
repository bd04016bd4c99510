//! Where Qwen Code keeps its sessions (`packages/core/src/config/storage.ts`,
//! `Storage.getRuntimeBaseDir`, `getGlobalQwenDir`, `getProjectDir`;
//! `packages/core/src/services/sessionService.ts`, `getChatsDir`): under its runtime folder,
//! `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen` (the `advanced.runtimeOutputDir`
//! setting moves it as well; condense reads no settings), one folder a project in `projects/`
//! (the project root with every character outside `[a-zA-Z0-9]` made `-`:
//! `packages/core/src/utils/paths.ts`, `sanitizeCwd`), each session `chats/<session id>.jsonl`
//! there. Beside `chats/` a project folder holds `meta.json`, `memory/` and sub-agents' files,
//! none of them a session Qwen Code resumes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::QwenCode;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

impl Home for QwenCode {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        let base = match env.dir("QWEN_RUNTIME_DIR") {
            Some(dir) => Ok(dir),
            None => env.dir_or_home("QWEN_HOME", &[".qwen"]),
        };
        Some(base.map(|dir| dir.join("projects")))
    }

    /// The sessions are the files of a project's `chats/` (`listSessions`).
    fn holds_session(&self, file: &SessionFile) -> bool {
        file.folder() == Some("chats")
    }

    /// `<runtime folder>/tmp/session-writer-locks/<session id>.lock`, the lease a Qwen Code
    /// process holds while it records the session
    /// (`packages/core/src/services/session-writer-lease.ts`, `getSessionWriterLockPath`,
    /// `SessionWriterLease`): JSON with its `state` (`active`) and `pid`. While its process
    /// lives, a rewrite of the file would break the running session's recording (it checks
    /// that the transcript is still the file it appends to).
    fn holder(&self, session: &Path) -> Option<String> {
        let chats = session.parent()?;
        if chats.file_name()? != "chats" {
            return None;
        }
        let base = chats.parent()?.parent()?.parent()?;
        let id = session.file_stem()?.to_str()?;
        let lock = base
            .join("tmp")
            .join("session-writer-locks")
            .join(format!("{id}.lock"));
        let record: serde_json::Value = serde_json::from_slice(&std::fs::read(lock).ok()?).ok()?;
        if record["state"] != "active" {
            return None;
        }
        let pid = record["pid"].as_u64()?;
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        alive.then(|| format!("Qwen Code (process {pid}, its session writer lock)"))
    }

    /// The session goes into the project folder of its working directory, where
    /// `qwen --resume ID` run there finds it.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let path = home
            .join("projects")
            .join(project_folder(cwd))
            .join("chats")
            .join(format!("{}.jsonl", session.id));
        let resume = format!("cd {} && qwen --resume {}", shell_quote(cwd), session.id);
        Ok(Placement { path, resume })
    }
}

/// Qwen Code's folder name for a project root (`sanitizeCwd`, as on every system but Windows,
/// where it lower-cases the path first).
fn project_folder(cwd: &str) -> String {
    cwd.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    #[test]
    fn the_runtime_folder_wins_over_qwen_home() {
        let both = |name: &str| match name {
            "QWEN_RUNTIME_DIR" => Some(OsString::from("/r")),
            "QWEN_HOME" => Some(OsString::from("/q")),
            "HOME" => Some(OsString::from("/h")),
            _ => None,
        };
        let dir = |lookup: &dyn Fn(&str) -> Option<OsString>| {
            QwenCode.sessions(&Vars { lookup }).unwrap().unwrap()
        };
        assert_eq!(dir(&both), Path::new("/r/projects"));
        assert_eq!(
            dir(&|name: &str| both(name).filter(|_| name != "QWEN_RUNTIME_DIR")),
            Path::new("/q/projects")
        );
        assert_eq!(
            dir(&|name: &str| (name == "HOME").then(|| OsString::from("/h"))),
            Path::new("/h/.qwen/projects")
        );
    }

    #[test]
    fn a_session_goes_into_its_projects_chats() {
        assert_eq!(project_folder("/tmp/x/proj"), "-tmp-x-proj");
        assert_eq!(project_folder("/a b/c.d_é"), "-a-b-c-d--");
        let session = NewSession {
            format: "qwen-code",
            id: "11111111-2222-4333-8444-555555555555",
            cwd: Some("/p/q"),
            start_ms: 0,
        };
        let placed = QwenCode.place(Path::new("/h/.qwen"), &session).unwrap();
        assert_eq!(
            placed.path,
            Path::new("/h/.qwen/projects/-p-q/chats/11111111-2222-4333-8444-555555555555.jsonl")
        );
        assert_eq!(
            placed.resume,
            "cd /p/q && qwen --resume 11111111-2222-4333-8444-555555555555"
        );
    }

    #[test]
    fn a_live_active_lease_holds_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("projects/-p/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let session = chats.join("s1.jsonl");
        assert_eq!(QwenCode.holder(&session), None);
        let locks = dir.path().join("tmp/session-writer-locks");
        std::fs::create_dir_all(&locks).unwrap();
        let own = std::process::id();
        let lease = |state: &str, pid: u64| {
            std::fs::write(
                locks.join("s1.lock"),
                format!(r#"{{"state":"{state}","owner_id":"o","pid":{pid}}}"#),
            )
            .unwrap();
        };
        lease("active", u64::from(own));
        assert!(QwenCode.holder(&session).is_some());
        lease("released", u64::from(own));
        assert_eq!(QwenCode.holder(&session), None);
        lease("active", 4_294_967_295);
        assert_eq!(QwenCode.holder(&session), None);
    }
}
