//! Writing a session back from the lines condense changed, and creating a handed-over one.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use rusqlite::{params, Connection, TransactionBehavior};
use serde_json::Value;

use super::backup::backup_name;
use super::busy::busy_or;
use super::holder::holder;
use super::rows::{apply, rows_of, split_lines};

/// Writes session `id` back from `lines`, the lines `before` changed (see the module's doc).
pub(in crate::transcript::opencode) fn write(
    db: &Path,
    id: &str,
    before: &[u8],
    lines: &[u8],
) -> Result<String> {
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

/// Creates session `id` from `lines` (a handoff's, see [`super::super::handoff`]), under the
/// refusals of [`write()`]: a `session` row in the project of folders outside git (`global`,
/// whose `worktree` is `/`), its directory the working directory the lines record, its title
/// the first request's first line; each message given the `model` (user) or `modelID` and
/// `providerID` (assistant) of the newest user message opencode wrote in the database.
pub(in crate::transcript::opencode) fn create(db: &Path, id: &str, lines: &[u8]) -> Result<String> {
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
