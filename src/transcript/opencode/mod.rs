//! opencode (`opencode-ai` 1.18.33, the `opencode-linux-x64` binary): everything condense
//! knows of its sessions (`docs/agents/opencode.md` holds the research, and the experiments
//! behind each rule; the rules were checked against the JavaScript bundled in that binary,
//! whose Effect span names and identifiers name opencode's source files and functions).
//!
//! opencode keeps every session of every project as rows of one SQLite database,
//! `$XDG_DATA_HOME/opencode/opencode.db`; condense names one session `DB#ID` (see
//! [`crate::transcript::store`]) and reads it as one JSON line a message.
//!
//! - `store`: the database, read-only for reading, written in one transaction;
//! - `read`: a message line (`{"info", "parts"}`) into the model;
//! - `live`: `MessageV2.filterCompacted`: back to the newest compaction, its summary first,
//!   then its kept tail, then the rest;
//! - `compact`: a compaction written as `SessionCompaction.create` and `.process` write
//!   theirs: a user message with a `compaction` part, then a summary assistant message;
//! - `prune`: tool outputs, tool inputs and reasoning parts;
//! - `handoff`: a new session, one message a turn, created as rows in the database;
//! - `home`: `$OPENCODE_DB`, else `$XDG_DATA_HOME/opencode/opencode.db`;
//! - `trigger`: `SessionCompaction.isOverflow`;
//! - `ids`: its ascending and descending ids.

mod compact;
mod handoff;
mod home;
mod ids;
mod live;
mod prune;
mod read;
mod store;
mod trigger;

/// The opencode session format.
pub struct OpenCode;

#[cfg(test)]
pub(crate) mod testing {
    //! The sessions opencode wrote against the mock, as condense reads them.

    use std::path::PathBuf;

    /// The fixture database.
    pub fn database() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/opencode/opencode.db")
    }

    /// The JSON lines of fixture session `id`.
    pub fn session(id: &str) -> Vec<u8> {
        super::store::read(&database(), id).unwrap()
    }
}
