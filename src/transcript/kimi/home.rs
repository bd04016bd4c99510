//! Where kimi-cli keeps its sessions (`src/kimi_cli/share.py`, `metadata.py`,
//! `session.py`): under `$KIMI_SHARE_DIR` (`~/.kimi`), each session in
//! `sessions/<MD5 of the work directory>/<session id>/context.jsonl`, beside `wire.jsonl` (the
//! UI's event log) and the `context_N.jsonl` files a compaction rotated out. kimi-cli finds a
//! session only under a work directory listed in its `kimi.json`, so a session handed to it is
//! registered there too.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use md5::{Digest, Md5};

use super::Kimi;
use crate::transcript::home::{shell_quote, Home, NewSession, Placement, SessionFile, Vars};

impl Home for Kimi {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(
            env.dir_or_home("KIMI_SHARE_DIR", &[".kimi"])
                .map(|dir| dir.join("sessions")),
        )
    }

    fn side_file(&self, file: &SessionFile) -> bool {
        let rotated = file
            .stem
            .strip_prefix("context_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        file.stem == "wire" || rotated
    }

    /// A session's file is `context.jsonl`, named by the folder it is in.
    fn named_by_folder(&self, file: &SessionFile) -> bool {
        file.stem.starts_with("context")
    }

    /// The start of the id finds the session's folder, as it finds the other agents' files.
    fn names_session(&self, file: &SessionFile, id: &str) -> bool {
        self.named_by_folder(file) && file.folder().is_some_and(|d| d.starts_with(id))
    }

    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let id = session.id;
        let path = home
            .join("sessions")
            .join(work_dir_hash(cwd))
            .join(id)
            .join("context.jsonl");
        register_work_dir(home, cwd, id)?;
        let resume = format!("cd {} && kimi --session {id}", shell_quote(cwd));
        Ok(Placement { path, resume })
    }
}

/// The name of a work directory's session folder: the MD5 of its path, in lowercase hex, as
/// kimi-cli's `WorkDirMeta.sessions_dir` names it. Not for security; only to find the folder.
fn work_dir_hash(cwd: &str) -> String {
    Md5::digest(cwd.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// kimi-cli finds a session only under a work directory listed in its `kimi.json`
/// (`work_dirs`, each `path`, `kaos`, `last_session_id`): adds `cwd` when it is missing, every
/// other field left as it was.
fn register_work_dir(home: &Path, cwd: &str, id: &str) -> Result<()> {
    let path = home.join("kimi.json");
    let mut metadata: serde_json::Value = match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not kimi-cli's metadata (JSON)", path.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => serde_json::json!({}),
        Err(error) => {
            return Err(error).with_context(|| format!("{}: cannot read", path.display()))
        }
    };
    let Some(object) = metadata.as_object_mut() else {
        bail!("{}: not kimi-cli's metadata (an object)", path.display());
    };
    let dirs = object
        .entry("work_dirs")
        .or_insert_with(|| serde_json::json!([]));
    let Some(list) = dirs.as_array_mut() else {
        bail!("{}: work_dirs is not a list", path.display());
    };
    let known = list
        .iter()
        .any(|wd| wd["path"] == cwd && wd.get("kaos").is_none_or(|kaos| kaos == "local"));
    if known {
        return Ok(());
    }
    list.push(serde_json::json!({"path": cwd, "kaos": "local", "last_session_id": id}));
    fs::create_dir_all(home).with_context(|| format!("{}: cannot create", home.display()))?;
    crate::persist::atomic::write(&path, &serde_json::to_vec_pretty(&metadata)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder kimi-cli computes for a work directory (Python's
    /// `hashlib.md5("/home/me/my.project".encode()).hexdigest()`).
    #[test]
    fn the_work_directory_folder_is_kimis() {
        assert_eq!(
            work_dir_hash("/home/me/my.project"),
            "d1ff7677166a37a1bd742fc832f59b92"
        );
    }

    #[test]
    fn a_handed_over_session_is_registered_once() {
        let home = tempfile::tempdir().unwrap();
        let session = NewSession {
            format: "openai",
            id: "11111111-2222-4333-8444-555555555555",
            cwd: Some("/home/me/my.project"),
            start_ms: 0,
        };
        let placed = Kimi.place(home.path(), &session).unwrap();
        assert_eq!(
            placed.path,
            home.path()
                .join("sessions")
                .join(work_dir_hash("/home/me/my.project"))
                .join(session.id)
                .join("context.jsonl")
        );
        assert_eq!(
            placed.resume,
            format!("cd /home/me/my.project && kimi --session {}", session.id)
        );
        Kimi.place(home.path(), &session).unwrap();
        let kimi: serde_json::Value =
            serde_json::from_slice(&fs::read(home.path().join("kimi.json")).unwrap()).unwrap();
        assert_eq!(kimi["work_dirs"].as_array().unwrap().len(), 1);
        assert_eq!(kimi["work_dirs"][0]["path"], "/home/me/my.project");
    }
}
