//! Where Copilot CLI keeps its sessions: `$COPILOT_HOME/session-state` (`~/.copilot`, as
//! `copilot help environment` documents `COPILOT_HOME`; `cli-main.js`, `GC = "session-state"`
//! and the native `pathResolvedSessionEventsPath`), each session the `events.jsonl` of a folder
//! named by its id. Beside it Copilot keeps `workspace.yaml`, `checkpoints/*.md` and lock files,
//! none of them JSONL, and none needed to resume (E1: a folder holding only `events.jsonl`
//! resumes).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Copilot;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

/// The name of every session's file; its folder is named by the session's id.
const EVENTS: &str = "events";

impl Home for Copilot {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("COPILOT_HOME", &[".copilot"])
                .map(|dir| dir.join("session-state")),
        )
    }

    fn holds_session(&self, file: &SessionFile) -> bool {
        file.stem == EVENTS
    }

    fn named_by_folder(&self, file: &SessionFile) -> bool {
        file.stem == EVENTS && file.under("session-state")
    }

    /// `session-state/<id>/inuse.<pid>.lock`, which Copilot holds while a process has the
    /// session open (`cli-main.js`, `registerSessionLock` → native
    /// `inUseLocksRegisterSession`) and removes at exit; one whose process is gone is stale.
    fn holder(&self, session: &Path) -> Option<String> {
        if session.file_stem()? != EVENTS {
            return None;
        }
        let folder = std::fs::read_dir(session.parent()?).ok()?;
        folder.flatten().find_map(|entry| {
            let name = entry.file_name();
            let pid: u32 = name
                .to_str()?
                .strip_prefix("inuse.")?
                .strip_suffix(".lock")?
                .parse()
                .ok()?;
            let alive = Path::new("/proc").join(pid.to_string()).exists();
            alive.then(|| format!("Copilot CLI (process {pid}, inuse.{pid}.lock)"))
        })
    }

    /// `copilot --resume ID` finds the session by its folder (the folder's name must be the
    /// `sessionId` of its `session.start`).
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let path = home
            .join("session-state")
            .join(session.id)
            .join(format!("{EVENTS}.jsonl"));
        let resume = match session.cwd {
            Some(cwd) => format!("cd {} && copilot --resume {}", shell_quote(cwd), session.id),
            None => format!("copilot --resume {}", session.id),
        };
        Ok(Placement { path, resume })
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    #[test]
    fn sessions_live_in_session_state_and_a_handoff_goes_there() {
        let lookup = |name: &str| match name {
            "HOME" => Some(OsString::from("/h")),
            _ => None,
        };
        let vars = Vars { lookup: &lookup };
        let dir = Copilot.sessions(&vars).unwrap().unwrap();
        assert_eq!(dir, Path::new("/h/.copilot/session-state"));
        let moved = |name: &str| (name == "COPILOT_HOME").then(|| OsString::from("/c"));
        let dir = Copilot.sessions(&Vars { lookup: &moved }).unwrap().unwrap();
        assert_eq!(dir, Path::new("/c/session-state"));
        let session = NewSession {
            format: "copilot",
            id: "11111111-2222-4333-8444-555555555555",
            cwd: Some("/p"),
            start_ms: 0,
        };
        let placed = Copilot.place(Path::new("/h/.copilot"), &session).unwrap();
        assert_eq!(
            placed.path,
            Path::new(
                "/h/.copilot/session-state/11111111-2222-4333-8444-555555555555/events.jsonl"
            )
        );
        assert_eq!(
            placed.resume,
            "cd /p && copilot --resume 11111111-2222-4333-8444-555555555555"
        );
    }

    #[test]
    fn a_live_processs_in_use_lock_holds_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("events.jsonl");
        std::fs::write(&session, "").unwrap();
        assert_eq!(Copilot.holder(&session), None);
        // A pid no process has (above Linux's pid_max): stale.
        std::fs::write(dir.path().join("inuse.4294967295.lock"), "").unwrap();
        assert_eq!(Copilot.holder(&session), None);
        let own = std::process::id();
        std::fs::write(dir.path().join(format!("inuse.{own}.lock")), "").unwrap();
        let holder = Copilot.holder(&session).unwrap();
        assert!(holder.contains(&format!("process {own}")), "{holder}");
        // Another agent's file in the same folder is not Copilot's session.
        assert_eq!(Copilot.holder(&dir.path().join("other.jsonl")), None);
    }
}
