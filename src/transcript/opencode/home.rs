//! Where opencode keeps its sessions (`packages/opencode/src/storage/db.ts`, the path beside
//! `Database`): one SQLite database for every project, `$OPENCODE_DB` when set (an absolute
//! path, or a name under the data folder), else `opencode.db` in the data folder,
//! `$XDG_DATA_HOME/opencode` (`~/.local/share/opencode`). (Channels other than `latest`,
//! `beta` and `prod` use `opencode-<channel>.db`; the npm package is `latest`.) A session in it
//! is named `DB#ID`, and its database stands for all of them.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{bail, Result};

use super::handoff::session_id;
use super::{store, OpenCode};
use crate::transcript::home::{shell_quote, Database, Home, NewSession, Placement, Vars};

impl Home for OpenCode {
    fn sessions(&self, env: &Vars) -> Option<Result<PathBuf>> {
        Some(database_path(env))
    }

    /// The session goes into the database in `home` (opencode's data folder), which opencode
    /// must have made already (its tables come from its own migrations); `opencode --session
    /// ID`, in the working directory, resumes it.
    fn place(&self, home: &Path, session: &NewSession) -> Result<Placement> {
        let cwd = session.cwd()?;
        let db = home.join("opencode.db");
        if !db.is_file() {
            bail!(
                "{}: no opencode database here; run opencode once so that it makes one",
                db.display()
            );
        }
        let id = session_id(session.id, session.start_ms);
        // `DB#ID`, the name of a session in a database (`transcript::store`).
        let mut path = db.into_os_string();
        path.push(format!("#{id}"));
        Ok(Placement {
            path: PathBuf::from(path),
            resume: format!("cd {} && opencode --session {id}", shell_quote(cwd)),
        })
    }

    fn database(&self) -> Option<&dyn Database> {
        Some(self)
    }
}

/// The database `env` names.
fn database_path(env: &Vars) -> Result<PathBuf> {
    let data = env
        .dir_or_home("XDG_DATA_HOME", &[".local", "share"])?
        .join("opencode");
    Ok(match env.dir("OPENCODE_DB") {
        Some(db) if db.is_absolute() => db,
        Some(name) => data.join(name),
        None => data.join("opencode.db"),
    })
}

impl Database for OpenCode {
    /// `opencode.db`, or a channel's `opencode-<channel>.db`.
    fn is_database(&self, name: &str) -> bool {
        name == "opencode.db" || (name.starts_with("opencode-") && name.ends_with(".db"))
    }

    fn sessions(&self, db: &Path) -> Result<Vec<(String, SystemTime)>> {
        store::sessions(db)
    }

    fn read(&self, db: &Path, id: &str) -> Result<Vec<u8>> {
        store::read(db, id)
    }

    fn write(&self, db: &Path, id: &str, before: &[u8], lines: &[u8]) -> Result<String> {
        store::write(db, id, before, lines)
    }

    fn undo(&self, db: &Path, id: &str) -> Result<String> {
        store::undo(db, id)
    }

    fn create(&self, db: &Path, id: &str, lines: &[u8]) -> Result<String> {
        store::create(db, id, lines)
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    #[test]
    fn the_database_follows_the_variables() {
        let of = |vars: &'static [(&'static str, &'static str)]| {
            let lookup = move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            };
            database_path(&Vars { lookup: &lookup }).unwrap()
        };
        assert_eq!(
            of(&[("HOME", "/h")]),
            Path::new("/h/.local/share/opencode/opencode.db")
        );
        assert_eq!(
            of(&[("HOME", "/h"), ("XDG_DATA_HOME", "/x")]),
            Path::new("/x/opencode/opencode.db")
        );
        assert_eq!(
            of(&[("HOME", "/h"), ("OPENCODE_DB", "/d/o.db")]),
            Path::new("/d/o.db")
        );
        assert_eq!(
            of(&[("HOME", "/h"), ("OPENCODE_DB", "other.db")]),
            Path::new("/h/.local/share/opencode/other.db")
        );
        assert!(OpenCode.is_database("opencode.db") && OpenCode.is_database("opencode-dev.db"));
        assert!(!OpenCode.is_database("notes.db"));
    }
}
