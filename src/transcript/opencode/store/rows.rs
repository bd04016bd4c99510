//! A session's line as the rows opencode stores it in (a `message` row and its `part` rows),
//! and those rows written in a transaction.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use rusqlite::params;
use serde_json::{Map, Value};

/// One line of a session, split back into rows.
pub(super) struct Rows {
    /// The message's id.
    pub(super) id: String,
    /// When it was created (`info.time.created`, milliseconds).
    created: i64,
    /// The message row's `data`.
    data: String,
    /// Each part's id and `data`.
    parts: Vec<(String, String)>,
}

/// The rows of one line: the message's id, creation time and `data` (without the fields the
/// row holds in columns), and each part's id and `data`.
pub(super) fn rows_of(line: &[u8], session: &str) -> Result<Rows> {
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

/// The rows of `changed` written in `transaction`: inserted, or updated where the message was
/// there before (`true`). Returns how many were added and how many changed.
pub(super) fn apply(
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

/// The non-blank lines of `bytes`, without their terminators.
pub(super) fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
}
