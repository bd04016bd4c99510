//! Where Droid keeps its sessions (`getSessionsDirectory`, `chunk-1jh5v2tt.js` →
//! `src/services/SessionService.ts`): `$FACTORY_HOME_OVERRIDE/.factory/sessions`, else
//! `~/.factory/sessions`, one folder per project (`vi`, `chunk-vv46f8wg.js` →
//! `packages/runtime/session-paths/src/index.ts`: `-` and the working directory, leading and
//! trailing `/` removed, every run of `/` made `-`), each session `<id>.jsonl` there, its
//! `<id>.settings.json` beside it (not needed to resume).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Droid;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, Vars};

impl Home for Droid {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("FACTORY_HOME_OVERRIDE", &[])
                .map(|dir| dir.join(".factory").join("sessions")),
        )
    }

    /// `<session>.events.lock`, the folder Droid makes for the length of one append
    /// (`chunk-p66034j8.js` → `packages/runtime/auth/src/storage/common/fileLock.ts`), with
    /// the `pid` of its owner in `owner.json`: while it is there and its process lives, Droid
    /// is writing the session.
    fn holder(&self, session: &Path) -> Option<String> {
        let mut lock = session.as_os_str().to_owned();
        lock.push(".events.lock");
        let owner = std::fs::read(Path::new(&lock).join("owner.json")).ok()?;
        let owner: serde_json::Value = serde_json::from_slice(&owner).ok()?;
        let pid = owner["pid"].as_u64()?;
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        alive.then(|| format!("Droid (process {pid}, its .events.lock)"))
    }

    /// The session goes into the folder of its working directory, where Droid writes it on;
    /// `droid --resume ID` (or `droid exec -s ID`) finds it there.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let path = home
            .join("sessions")
            .join(project_folder(cwd))
            .join(format!("{}.jsonl", session.id));
        let resume = format!("cd {} && droid --resume {}", shell_quote(cwd), session.id);
        Ok(Placement { path, resume })
    }
}

/// Droid's folder name for a working directory (`vi`): `-`, then the path without its leading
/// and trailing `/`, every run of `/` made one `-`.
fn project_folder(cwd: &str) -> String {
    let parts: Vec<&str> = cwd.split('/').filter(|part| !part.is_empty()).collect();
    format!("-{}", parts.join("-"))
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    #[test]
    fn sessions_and_the_project_folder() {
        let moved = |name: &str| (name == "FACTORY_HOME_OVERRIDE").then(|| OsString::from("/f"));
        let dir = Droid.sessions(&Vars { lookup: &moved }).unwrap().unwrap();
        assert_eq!(dir, Path::new("/f/.factory/sessions"));
        assert_eq!(project_folder("/tmp/rb-dr/proj"), "-tmp-rb-dr-proj");
        assert_eq!(project_folder("/a//b.c/"), "-a-b.c");
        let session = NewSession {
            format: "droid",
            id: "11111111-2222-4333-8444-555555555555",
            cwd: Some("/p/q"),
            start_ms: 0,
        };
        let placed = Droid.place(Path::new("/h/.factory"), &session).unwrap();
        assert_eq!(
            placed.path,
            Path::new("/h/.factory/sessions/-p-q/11111111-2222-4333-8444-555555555555.jsonl")
        );
    }

    #[test]
    fn a_live_owner_of_the_events_lock_holds_the_session() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        assert_eq!(Droid.holder(&session), None);
        let lock = dir.path().join("s.jsonl.events.lock");
        std::fs::create_dir(&lock).unwrap();
        let own = std::process::id();
        std::fs::write(
            lock.join("owner.json"),
            format!(r#"{{"token":"t","pid":{own}}}"#),
        )
        .unwrap();
        assert!(Droid.holder(&session).is_some());
        std::fs::write(lock.join("owner.json"), r#"{"token":"t","pid":4294967295}"#).unwrap();
        assert_eq!(Droid.holder(&session), None);
    }
}
