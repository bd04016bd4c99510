//! The copy of the database a write leaves beside it, and `undo`, which puts a session back
//! from the newest one.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, TransactionBehavior};

use super::busy::busy_or;
use super::holder::holder;

/// The suffix of the backups a write leaves beside the database: `<db>.<session>.<ms>` before
/// it.
const BACKUP_SUFFIX: &str = ".condense-backup";

/// A new backup's name beside the database: `<db>.<session>.<ms>.condense-backup`.
pub(super) fn backup_name(db: &Path, id: &str) -> PathBuf {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut name = db.as_os_str().to_owned();
    name.push(format!(".{id}.{ms}{BACKUP_SUFFIX}"));
    PathBuf::from(name)
}

/// Puts session `id`'s messages and parts back as the newest backup of it holds them, in one
/// transaction, under the refusals of [`write()`](fn@super::write); the backup is then renamed `….undone`.
pub(in crate::transcript::opencode) fn undo(db: &Path, id: &str) -> Result<String> {
    let name = format!("{}#{id}", db.display());
    if let Some(holder) = holder(db) {
        bail!("{name}: {holder} has the database open; quit it first, then undo");
    }
    let backup = newest_backup(db, id)?
        .with_context(|| format!("{name}: no backup of this session to undo from"))?;
    let mut connection =
        Connection::open(db).with_context(|| format!("{}: cannot open", db.display()))?;
    connection.busy_timeout(Duration::ZERO)?;
    connection
        .execute("ATTACH DATABASE ?1 AS backup", [backup.to_string_lossy()])
        .with_context(|| format!("{}: cannot open", backup.display()))?;
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| busy_or(&name, error, "cannot start a transaction"))?;
    for statement in [
        "DELETE FROM part WHERE session_id = ?1",
        "DELETE FROM message WHERE session_id = ?1",
        "INSERT INTO message SELECT * FROM backup.message WHERE session_id = ?1",
        "INSERT INTO part SELECT * FROM backup.part WHERE session_id = ?1",
    ] {
        transaction
            .execute(statement, [id])
            .with_context(|| format!("{name}: cannot undo"))?;
    }
    transaction
        .commit()
        .with_context(|| format!("{name}: cannot commit the undo"))?;
    connection.execute("DETACH DATABASE backup", [])?;
    let mut undone = backup.as_os_str().to_owned();
    undone.push(".undone");
    std::fs::rename(&backup, &undone)
        .with_context(|| format!("{}: cannot rename", backup.display()))?;
    Ok(format!("{name}: restored from {}", backup.display()))
}

/// The newest backup [`write()`](fn@super::write) left of session `id` beside the database.
fn newest_backup(db: &Path, id: &str) -> Result<Option<PathBuf>> {
    let folder = match db.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let prefix = format!(
        "{}.{id}.",
        db.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let mut found: Vec<(u128, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(folder)
        .with_context(|| format!("{}: cannot list", folder.display()))?
        .flatten()
    {
        let file = entry.file_name();
        let Some(ms) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|f| f.strip_suffix(BACKUP_SUFFIX))
            .and_then(|ms| ms.parse().ok())
        else {
            continue;
        };
        found.push((ms, entry.path()));
    }
    Ok(found.into_iter().max().map(|(_, path)| path))
}
