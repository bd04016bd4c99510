//! SQLite's locks: how long a read waits for a writer, and the error a write refused by
//! another process's lock reads as.

use std::time::Duration;

use anyhow::anyhow;

/// How long a read waits for a writer's lock (opencode's own `busy_timeout`).
pub(super) const BUSY: Duration = Duration::from_millis(5000);

/// The error of a refused step: another process writing, or `what` went wrong.
pub(super) fn busy_or(name: &str, error: rusqlite::Error, what: &str) -> anyhow::Error {
    if error.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
        anyhow!("{name}: another process is writing the database; try again when it is done")
    } else {
        anyhow!("{name}: {what}: {error}")
    }
}
