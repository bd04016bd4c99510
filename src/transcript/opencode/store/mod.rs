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
//!
//! One job a module: `read` (the session as lines, the list of sessions), `rows` (a line as
//! the rows it is stored in, and those rows written), `write` (a changed session written
//! back, a handed-over one created), `backup` (the copy a write leaves, and `undo` from it),
//! `holder` (who has the database open), `busy` (SQLite's locks: waited for, or refused).

mod backup;
mod busy;
mod holder;
mod read;
mod rows;
mod write;

pub(super) use backup::undo;
pub(super) use read::{read, sessions};
pub(super) use write::{create, write};

#[cfg(test)]
mod tests {
    use super::rows::split_lines;
    use super::*;
    use crate::transcript::opencode::testing::database;
    use serde_json::Value;

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
