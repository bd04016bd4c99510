//! opencode's database, read and written with SQLite (`packages/opencode/src/storage/db.ts`,
//! the `Database` layer; tables of `packages/opencode/src/session/session.sql.ts`).
//!
//! A session reads as one JSON line per `message` row, `{"info": …, "parts": […]}`: the row's
//! `data` with `id` and `sessionID` put back, and its `part` rows' `data` with `id`,
//! `sessionID` and `messageID` put back, which is the `MessageV2.WithParts` shape opencode's
//! own readers build (`MessageV2.page` and its row mappers, `opencode export`). Messages come in
//! opencode's order, `time_created` then `id`; parts by `id` (`MessageV2.page`, `parts`).
//!
//! Reading opens the database read-only (SQLite's shared lock, a WAL included, so a reading
//! opencode is never disturbed). Writing back, the lines condense changed become rows in one
//! transaction: a new line's message and parts inserted, a changed line's message and parts
//! updated (a part the line no longer holds, a reasoning part prune removed, deleted), no
//! message deleted (opencode's own compaction deletes none, and a write that would is
//! refused), and the session's `time_updated` moved on. Before it writes, it refuses while a process named
//! opencode has the database open (a TUI or `opencode serve` between two of its writes still
//! holds the session in hand; `/proc/*/fd` is looked at), and while any process holds
//! SQLite's write lock (`BEGIN IMMEDIATE` without waiting); then it copies the whole
//! database, as it is, to a new backup file beside it (`VACUUM INTO`, which never writes over
//! a file), which `condense undo` restores the session from.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::{params, Connection, OpenFlags, TransactionBehavior};
use serde_json::{Map, Value};

/// How long a read waits for a writer's lock (opencode's own `busy_timeout`).
const BUSY: Duration = Duration::from_millis(5000);

/// The suffix of the backups a write leaves beside the database: `<db>.<session>.<ms>` before
/// it.
const BACKUP_SUFFIX: &str = ".condense-backup";

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
pub(super) fn sessions(db: &Path) -> Result<Vec<(String, SystemTime)>> {
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
pub(super) fn read(db: &Path, id: &str) -> Result<Vec<u8>> {
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

/// One line of a session, split back into rows.
struct Rows {
    id: String,
    created: i64,
    data: String,
    parts: Vec<(String, String)>,
}

/// The rows of one line: the message's id, creation time and `data` (without the fields the
/// row holds in columns), and each part's id and `data`.
fn rows_of(line: &[u8], session: &str) -> Result<Rows> {
    let Ok(Value::Object(mut whole)) = serde_json::from_slice::<Value>(line) else {
        bail!("a line is not a JSON object");
    };
    let Some(Value::Object(mut info)) = whole.remove("info") else {
        bail!("a line has no \"info\" object");
    };
    let id = take_id(&mut info, "id")?;
    if info
        .remove("sessionID")
        .and_then(|v| v.as_str().map(str::to_owned))
        != Some(session.into())
    {
        bail!("message {id} is not of session {session}");
    }
    let created = info
        .get("time")
        .and_then(|time| time.get("created"))
        .and_then(Value::as_i64)
        .with_context(|| format!("message {id} has no time.created"))?;
    let parts = match whole.remove("parts") {
        Some(Value::Array(parts)) => parts,
        _ => bail!("message {id} has no \"parts\" list"),
    };
    let parts = parts
        .into_iter()
        .map(|part| {
            let Value::Object(mut part) = part else {
                bail!("a part of message {id} is not an object");
            };
            let part_id = take_id(&mut part, "id")?;
            part.remove("sessionID");
            part.remove("messageID");
            Ok((part_id, Value::Object(part).to_string()))
        })
        .collect::<Result<_>>()?;
    Ok(Rows {
        id,
        created,
        data: Value::Object(info).to_string(),
        parts,
    })
}

fn take_id(object: &mut Map<String, Value>, key: &str) -> Result<String> {
    match object.remove(key) {
        Some(Value::String(id)) if !id.is_empty() => Ok(id),
        _ => Err(anyhow!("a message or part has no \"{key}\"")),
    }
}

/// Writes session `id` back from `lines`, the lines `before` changed (see the module's doc).
pub(super) fn write(db: &Path, id: &str, before: &[u8], lines: &[u8]) -> Result<String> {
    let name = format!("{}#{id}", db.display());
    if let Some(holder) = holder(db) {
        bail!("{name}: {holder} has the database open; quit it first, then write");
    }
    let old: HashMap<String, &[u8]> = split_lines(before)
        .map(|line| Ok((rows_of(line, id)?.id, line)))
        .collect::<Result<_>>()
        .with_context(|| format!("{name}: the session as read"))?;
    let mut seen = HashSet::new();
    let mut changed = Vec::new();
    for (number, line) in split_lines(lines).enumerate() {
        let rows = rows_of(line, id).with_context(|| format!("{name}: line {}", number + 1))?;
        seen.insert(rows.id.clone());
        match old.get(&rows.id) {
            Some(was) if *was == line => {}
            was => changed.push((rows, was.is_some())),
        }
    }
    if let Some(gone) = old.keys().find(|old| !seen.contains(*old)) {
        bail!("{name}: the write would remove message {gone}; opencode's own compaction never does, nor does condense");
    }
    if changed.is_empty() {
        return Ok(format!("{name}: nothing changed"));
    }
    let mut connection =
        Connection::open(db).with_context(|| format!("{}: cannot open", db.display()))?;
    // Waiting for a writer would be writing while it writes: a busy database is refused.
    connection.busy_timeout(Duration::ZERO)?;
    // The backup first: VACUUM runs outside a transaction, and copies what is committed.
    let backup = backup_name(db, id);
    connection
        .execute("VACUUM INTO ?1", [backup.to_string_lossy()])
        .map_err(|error| busy_or(&name, error, "cannot back the database up"))?;
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| busy_or(&name, error, "cannot start a transaction"))?;
    let (added, updated) = apply(&transaction, id, &changed)
        .with_context(|| format!("{name}: cannot write the session"))?;
    transaction
        .commit()
        .with_context(|| format!("{name}: cannot commit the write"))?;
    Ok(format!(
        "{name}: {added} message(s) added, {updated} changed, in one transaction; backup {}",
        backup.display()
    ))
}

/// The rows of `changed` written in `transaction`: inserted, or updated where the message was
/// there before (`true`). Returns how many were added and how many changed.
fn apply(
    transaction: &rusqlite::Transaction,
    session: &str,
    changed: &[(Rows, bool)],
) -> Result<(usize, usize)> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let (mut added, mut updated) = (0, 0);
    for (rows, existed) in changed {
        if *existed {
            transaction.execute(
                "UPDATE message SET data = ?2, time_updated = ?3 WHERE id = ?1",
                params![rows.id, rows.data, now],
            )?;
            // A part the line no longer holds (a reasoning part prune removed) goes.
            let kept: Vec<&str> = rows.parts.iter().map(|(id, _)| id.as_str()).collect();
            let kept = serde_json::to_string(&kept)?;
            transaction.execute(
                "DELETE FROM part WHERE message_id = ?1 \
                 AND id NOT IN (SELECT value FROM json_each(?2))",
                params![rows.id, kept],
            )?;
            updated += 1;
        } else {
            transaction.execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) \
                 VALUES (?1, ?2, ?3, ?3, ?4)",
                params![rows.id, session, rows.created, rows.data],
            )?;
            added += 1;
        }
        for (part, data) in &rows.parts {
            transaction.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) \
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5) \
                 ON CONFLICT(id) DO UPDATE SET data = excluded.data, time_updated = ?6 \
                 WHERE data <> excluded.data",
                params![part, rows.id, session, rows.created, data, now],
            )?;
        }
    }
    transaction.execute(
        "UPDATE session SET time_updated = max(time_updated, ?2) WHERE id = ?1",
        params![session, now],
    )?;
    Ok((added, updated))
}

/// The error of a refused step: another process writing, or `what` went wrong.
fn busy_or(name: &str, error: rusqlite::Error, what: &str) -> anyhow::Error {
    if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
        anyhow!("{name}: another process is writing the database; try again when it is done")
    } else {
        anyhow!("{name}: {what}: {error}")
    }
}

fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
}

/// A new backup's name beside the database: `<db>.<session>.<ms>.condense-backup`.
fn backup_name(db: &Path, id: &str) -> PathBuf {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let mut name = db.as_os_str().to_owned();
    name.push(format!(".{id}.{ms}{BACKUP_SUFFIX}"));
    PathBuf::from(name)
}

/// Creates session `id` from `lines` (a handoff's, see [`super::handoff`]), under the
/// refusals of [`write`]: a `session` row in the project of folders outside git (`global`,
/// whose `worktree` is `/`), its directory the working directory the lines record, its title
/// the first request's first line; each message given the `model` (user) or `modelID` and
/// `providerID` (assistant) of the newest user message opencode wrote in the database.
pub(super) fn create(db: &Path, id: &str, lines: &[u8]) -> Result<String> {
    let name = format!("{}#{id}", db.display());
    if let Some(holder) = holder(db) {
        bail!("{name}: {holder} has the database open; quit it first, then hand over");
    }
    let mut connection =
        Connection::open(db).with_context(|| format!("{}: cannot open", db.display()))?;
    connection.busy_timeout(Duration::ZERO)?;
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| busy_or(&name, error, "cannot start a transaction"))?;
    let model: String = transaction
        .query_row(
            "SELECT json_extract(data, '$.model') FROM message \
             WHERE json_extract(data, '$.role') = 'user' AND json_extract(data, '$.model') IS NOT NULL \
             ORDER BY time_created DESC LIMIT 1",
            [],
            |row| row.get(0),
        )
        .with_context(|| format!("{name}: opencode has written no message here yet, so its model is unknown; run it once"))?;
    let model: Value = serde_json::from_str(&model)?;
    let mut rows = Vec::new();
    let (mut directory, mut title, mut start) = (None, None, None);
    for (number, line) in split_lines(lines).enumerate() {
        let mut value: Value =
            serde_json::from_slice(line).with_context(|| format!("{name}: line {}", number + 1))?;
        let first_text = value["parts"][0]["text"].as_str().map(|text| {
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            line.chars().take(80).collect::<String>()
        });
        let info = value
            .get_mut("info")
            .and_then(Value::as_object_mut)
            .with_context(|| format!("{name}: line {} has no \"info\"", number + 1))?;
        if info.get("role").and_then(Value::as_str) == Some("user") {
            info.insert("model".into(), model.clone());
            title = title.or(first_text);
        } else {
            info.insert("modelID".into(), model["modelID"].clone());
            info.insert("providerID".into(), model["providerID"].clone());
            directory = directory.or_else(|| info["path"]["cwd"].as_str().map(str::to_owned));
        }
        start = start.or_else(|| info["time"]["created"].as_i64());
        let line = serde_json::to_vec(&value)?;
        rows.push((
            rows_of(&line, id).with_context(|| format!("{name}: line {}", number + 1))?,
            false,
        ));
    }
    let directory =
        directory.with_context(|| format!("{name}: the handoff names no working directory"))?;
    let start = start.unwrap_or(0);
    transaction
        .execute(
            "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) \
             VALUES (?1, 'global', 'handed-over', ?2, ?3, ?4, ?5, ?5)",
            params![id, directory, title.unwrap_or_else(|| "Handed over by condense".into()), VERSION, start],
        )
        .with_context(|| format!("{name}: cannot create the session (is it there already?)"))?;
    let (added, _) = apply(&transaction, id, &rows)
        .with_context(|| format!("{name}: cannot write the session"))?;
    transaction
        .commit()
        .with_context(|| format!("{name}: cannot commit"))?;
    Ok(format!("{name}: created, {added} message(s)"))
}

/// The opencode version whose rows a new session imitates.
const VERSION: &str = "1.18.33";

/// Puts session `id`'s messages and parts back as the newest backup of it holds them, in one
/// transaction, under the refusals of [`write`]; the backup is then renamed `….undone`.
pub(super) fn undo(db: &Path, id: &str) -> Result<String> {
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

/// The newest backup [`write`] left of session `id` beside the database.
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

/// A process named opencode that has the database (or its WAL) open, described; `None` when
/// there is none (or `/proc` cannot tell).
pub(super) fn holder(db: &Path) -> Option<String> {
    let db = std::fs::canonicalize(db).ok()?;
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    let own = std::process::id().to_string();
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        let pid = process.file_name();
        let Some(pid) = pid
            .to_str()
            .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid == own {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(process.path().join("fd")) else {
            continue;
        };
        let open = fds
            .flatten()
            .filter_map(|fd| std::fs::read_link(fd.path()).ok())
            .any(|target| target == db || target == wal);
        if !open {
            continue;
        }
        let comm = std::fs::read_to_string(process.path().join("comm")).unwrap_or_default();
        if comm.trim().contains("opencode") {
            return Some(format!("opencode (process {pid})"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::opencode::testing::database;

    const TURNS: &str = "ses_dbdc535e8ffe5HFN9TBZwRoHKG";

    fn values(lines: &[u8]) -> Vec<Value> {
        split_lines(lines)
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }

    /// What is written back reads back as it was written: a changed part, a removed part, a
    /// new message; and a write that would remove a message is refused, changing nothing.
    #[test]
    fn lines_written_back_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("opencode.db");
        std::fs::copy(database(), &db).unwrap();
        let before = read(&db, TURNS).unwrap();
        let mut changed = values(&before);
        // The tool step: its first output shortened, its step-start part dropped.
        let step = changed
            .iter_mut()
            .find(|line| line["info"]["finish"] == "tool-calls")
            .unwrap();
        step["parts"][1]["state"]["output"] = "short".into();
        step["parts"].as_array_mut().unwrap().remove(0);
        let mut new = changed.last().unwrap().clone();
        new["info"]["id"] = "msg_ffffffffffff0000000000000".into();
        new["info"]["time"]["created"] = 4_000_000_000_000u64.into();
        new["parts"] = serde_json::json!([{"id": "prt_ffffffffffff0000000000000",
            "sessionID": TURNS, "messageID": "msg_ffffffffffff0000000000000",
            "type": "text", "text": "NEW"}]);
        changed.push(new);
        let lines: Vec<u8> = changed
            .iter()
            .flat_map(|line| {
                let mut bytes = serde_json::to_vec(line).unwrap();
                bytes.push(b'\n');
                bytes
            })
            .collect();
        let note = write(&db, TURNS, &before, &lines).unwrap();
        assert!(note.contains("1 message(s) added, 1 changed"), "{note}");
        assert_eq!(values(&read(&db, TURNS).unwrap()), changed);
        // Without the new message: refused, nothing written.
        let now = read(&db, TURNS).unwrap();
        let error = write(&db, TURNS, &now, &before).unwrap_err();
        assert!(
            error.to_string().contains("would remove message"),
            "{error}"
        );
        assert_eq!(read(&db, TURNS).unwrap(), now);
    }
}
