//! Sessions an agent keeps as rows of a database (opencode's `opencode.db`, a session named
//! `DB#ID`, see [`crate::transcript::store`]), written in place and undone.
//!
//! The session's JSON lines go to a file of condense's own, in a new private folder; the
//! in-place writer changes that file as it changes any session file (its lock, `--verify`),
//! and the lines it changed then go back into the database as rows, by the agent's
//! [`Database::write`]: after a backup of the whole database, in one transaction, refused while
//! the agent has the database open or any process is writing it. The folder is removed after.
//! `condense undo DB#ID` puts back the session's rows from the newest backup of it.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::output;
use crate::transcript::home::Database;
use crate::transcript::store;
use crate::Outcome;

/// For a session kept in a database (see [`is_stored`]): `write` run on a file of its JSON
/// lines, and what it changed written back into the database.
pub fn in_place<T>(path: &Path, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    let Some((db, id, database)) = store::split(path) else {
        bail!("{}: no session of a database", path.display());
    };
    through_file(&db, &id, database, write)
}

/// Whether `path` names a session kept in a database (`DB#ID`).
pub fn is_stored(path: &Path) -> bool {
    store::split(path).is_some()
}

fn through_file<T>(
    db: &Path,
    id: &str,
    database: &dyn Database,
    write: impl FnOnce(&Path) -> Result<T>,
) -> Result<T> {
    let before = database.read(db, id)?;
    let folder = private_folder()?;
    let file = folder.join(format!("{id}.jsonl"));
    let written = std::fs::write(&file, &before)
        .with_context(|| format!("{}: cannot write", file.display()))
        .and_then(|()| write(&file))
        .and_then(|value| {
            let after =
                std::fs::read(&file).with_context(|| format!("{}: cannot read", file.display()))?;
            if after != before {
                let note = database.write(db, id, &before, &after)?;
                eprintln!("condense: {}", output::sanitize(&note));
            }
            Ok(value)
        });
    let _ = std::fs::remove_dir_all(&folder);
    written
}

/// A new folder only this process writes in, under the system's temporary folder.
fn private_folder() -> Result<PathBuf> {
    let folder = std::env::temp_dir().join(format!(
        "condense-{}-{}",
        std::process::id(),
        crate::persist::link::random_tag()
    ));
    std::fs::create_dir(&folder).with_context(|| format!("{}: cannot create", folder.display()))?;
    Ok(folder)
}

/// `condense undo` of a session kept in a database: its rows put back from the newest backup;
/// `None` for any other path.
pub fn undo(path: &Path, out: &mut dyn Write) -> Option<Result<Outcome>> {
    let (db, id, database) = store::split(path)?;
    Some((|| {
        let note = database.undo(&db, &id)?;
        writeln!(out, "{}", serde_json::json!({"file": path, "undone": note}))?;
        Ok(Outcome::Success)
    })())
}
