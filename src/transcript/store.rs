//! Sessions an agent keeps as rows of one database file (opencode's `opencode.db`) rather than
//! as files, named where a session file's path goes by `DB#ID`: the database's path, `#`, and
//! the session's id (`~/.local/share/opencode/opencode.db#ses_dbdc40a00ffedRji45t55ZECSd`).
//! A database named alone stands for its sessions, as a folder stands for the files in it.
//!
//! The agent's [`Database`] reads a session as JSON lines of its format, which every command
//! reads as it reads a file, and writes a changed copy of those lines back as rows.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Result;

use super::home::Database;
use super::registry;

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The database of the agent that keeps its sessions in the file at `path`, known by the
/// file's name, or by its SQLite header when only one agent keeps a database; `None` for any
/// other file (and for one that is not a regular file: a FIFO is never opened here).
pub fn database_of(path: &Path) -> Option<&'static dyn Database> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let name = path.file_name()?.to_str().unwrap_or_default();
    let mut databases = registry::agents().filter_map(|agent| agent.database());
    if let Some(database) = registry::agents()
        .filter_map(|agent| agent.database())
        .find(|database| database.is_database(name))
    {
        return Some(database);
    }
    let mut head = Vec::with_capacity(SQLITE_MAGIC.len());
    std::fs::File::open(path)
        .ok()?
        .take(SQLITE_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .ok()?;
    let first = databases.next()?;
    (head == SQLITE_MAGIC && databases.next().is_none()).then_some(first)
}

/// The name `DB#ID` of session `id` in the database at `db`.
pub fn session_path(db: &Path, id: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("#");
    name.push(id);
    PathBuf::from(name)
}

/// A session named `DB#ID`: its database's path, its id, and the agent's database; `None` for
/// a path that names a file itself, or whose part before the last `#` is no database.
pub fn split(path: &Path) -> Option<(PathBuf, String, &'static dyn Database)> {
    if path.exists() {
        return None;
    }
    let text = path.to_str()?;
    let (db, id) = text.rsplit_once('#')?;
    if id.is_empty() || id.contains('/') {
        return None;
    }
    let db = PathBuf::from(db);
    let database = database_of(&db)?;
    Some((db, id.to_owned(), database))
}

/// The JSON lines of the session `path` names, when it names one in a database.
pub fn read(path: &Path) -> Option<Result<Vec<u8>>> {
    let (db, id, database) = split(path)?;
    Some(database.read(&db, &id))
}

/// Every session of the database at `path`, named `DB#ID`, with when it was last written;
/// `None` when `path` is no database.
pub fn sessions(path: &Path) -> Option<Result<Vec<(PathBuf, SystemTime)>>> {
    let database = database_of(path)?;
    Some(sessions_of(database, path))
}

/// Every session of the file at `path` when its name is one of an agent's databases (found
/// in a folder, a file is told by its name alone: no other file is opened).
pub fn named_sessions(path: &Path) -> Option<Result<Vec<(PathBuf, SystemTime)>>> {
    let name = path.file_name()?.to_str()?;
    let database = registry::agents()
        .filter_map(|agent| agent.database())
        .find(|database| database.is_database(name))?;
    Some(sessions_of(database, path))
}

/// Every session of the database at `db` of `database`, named `DB#ID`.
pub fn sessions_of(database: &dyn Database, db: &Path) -> Result<Vec<(PathBuf, SystemTime)>> {
    Ok(database
        .sessions(db)?
        .into_iter()
        .map(|(id, time)| (session_path(db, &id), time))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/opencode/opencode.db")
    }

    #[test]
    fn a_session_is_named_by_its_database_and_id() {
        let db = fixture();
        let path = session_path(&db, "ses_dbdc40a00ffedRji45t55ZECSd");
        let (at, id, _) = split(&path).unwrap();
        assert_eq!(
            (at, id.as_str()),
            (db.clone(), "ses_dbdc40a00ffedRji45t55ZECSd")
        );
        // A file that exists is itself, whatever its name; a missing database is nothing.
        assert!(split(&db).is_none());
        assert!(split(Path::new("/nowhere/opencode.db#ses_x")).is_none());
        assert!(database_of(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("Cargo.toml")
                .as_path()
        )
        .is_none());
        let all = sessions(&db).unwrap().unwrap();
        assert_eq!(all.len(), 3);
        assert!(all.iter().all(|(p, _)| split(p).is_some()));
    }
}
