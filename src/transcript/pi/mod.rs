//! pi (badlogic/pi-mono, `~/.pi/agent/sessions/<cwd>/<ts>_<id>.jsonl`): everything condense
//! knows of its sessions, formats v1 to v3.
//!
//! - `read`: every line is an entry with a top-level `type`; `message` entries hold an agent
//!   message, `compaction` is its compaction marker, the header and the rest are bookkeeping;
//! - `live`: the path from the last entry up its `parentId` chain (v2, v3), from the newest
//!   compaction;
//! - `compact`: one `compaction` entry appended, as pi's own compaction appends it;
//! - `prune`: tool results (and their `details`), call arguments, thinking; a `custom` entry
//!   after;
//! - `handoff`: a new v3 session;
//! - `home`: `$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<time>_<id>.jsonl`;
//! - `trigger`: its `reserveTokens` rule, and `tokensBefore`.

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod read;
mod trigger;

/// The pi session format.
pub struct Pi;
