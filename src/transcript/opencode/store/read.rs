//! Reading: the session as JSON lines, one a message, and the list of the database's sessions.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OpenFlags};
use serde_json::{Map, Value};

use super::busy::BUSY;

/// Opens the database at `db` read-only. A database with no `-wal` file beside it is closed
/// (opencode folds its WAL back and removes it when it quits), and is opened as immutable, so
/// that reading it leaves no `-wal` and `-shm` files of condense's behind; one with a WAL is
/// opened with SQLite's shared locks, as opencode's other readers open it.
fn open_read(db: &Path) -> Result<Connection> {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = if Path::new(&wal).exists() {
        Connection::open_with_flags(db, flags)
    } else {
        let path =
            std::fs::canonicalize(db).with_context(|| format!("{}: cannot open", db.display()))?;
        let uri = format!("file:{}?immutable=1", uri_path(&path));
        Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
    }
    .with_context(|| format!("{}: cannot open the opencode database", db.display()))?;
    connection.busy_timeout(BUSY)?;
    Ok(connection)
}

/// A path as the path of a `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Every session of the database: its id and `time_updated`.
pub(in crate::transcript::opencode) fn sessions(db: &Path) -> Result<Vec<(String, SystemTime)>> {
    let connection = open_read(db)?;
    let name = db.display();
    let mut query = connection
        .prepare("SELECT id, time_updated FROM session ORDER BY time_updated DESC, id")
        .with_context(|| format!("{name}: no opencode session table"))?;
    let rows = query.query_map([], |row| {
        let id: String = row.get(0)?;
        let updated: i64 = row.get(1)?;
        Ok((
            id,
            UNIX_EPOCH + Duration::from_millis(updated.max(0) as u64),
        ))
    })?;
    rows.collect::<rusqlite::Result<_>>()
        .with_context(|| format!("{name}: cannot list its sessions"))
}

/// The session `id` as JSON lines, one a message.
pub(in crate::transcript::opencode) fn read(db: &Path, id: &str) -> Result<Vec<u8>> {
    let connection = open_read(db)?;
    let name = format!("{}#{id}", db.display());
    lines(&connection, id).with_context(|| format!("{name}: cannot read the session"))
}

fn lines(connection: &Connection, id: &str) -> Result<Vec<u8>> {
    let found: Option<String> = connection
        .query_row("SELECT id FROM session WHERE id = ?1", [id], |row| {
            row.get(0)
        })
        .ok();
    if found.is_none() {
        bail!("no session {id} in this database");
    }
    let mut parts: HashMap<String, Vec<Value>> = HashMap::new();
    let mut query = connection.prepare(
        "SELECT id, message_id, data FROM part WHERE session_id = ?1 ORDER BY message_id, id",
    )?;
    let mut rows = query.query([id])?;
    while let Some(row) = rows.next()? {
        let part_id: String = row.get(0)?;
        let message_id: String = row.get(1)?;
        let data: String = row.get(2)?;
        let mut part = object(&data).with_context(|| format!("part {part_id}"))?;
        part.insert("id".into(), part_id.into());
        part.insert("sessionID".into(), id.into());
        part.insert("messageID".into(), message_id.clone().into());
        parts
            .entry(message_id)
            .or_default()
            .push(Value::Object(part));
    }
    let mut out = Vec::new();
    let mut query = connection
        .prepare("SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id")?;
    let mut rows = query.query([id])?;
    while let Some(row) = rows.next()? {
        let message_id: String = row.get(0)?;
        let data: String = row.get(1)?;
        let mut info = object(&data).with_context(|| format!("message {message_id}"))?;
        info.insert("id".into(), message_id.clone().into());
        info.insert("sessionID".into(), id.into());
        let line = serde_json::json!({
            "info": info,
            "parts": parts.remove(&message_id).unwrap_or_default(),
        });
        serde_json::to_writer(&mut out, &line)?;
        out.push(b'\n');
    }
    Ok(out)
}

/// A row's `data`, which must be a JSON object.
fn object(data: &str) -> Result<Map<String, Value>> {
    match serde_json::from_str(data) {
        Ok(Value::Object(map)) => Ok(map),
        _ => bail!("its data is not a JSON object"),
    }
}
