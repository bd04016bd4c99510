//! Codex CLI (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): everything condense knows of its
//! rollouts, in the current envelope layout and the legacy bare layout.
//!
//! - `read`: every line is `{"timestamp", "type", "payload"}`; `response_item` payloads are
//!   what the model saw, `event_msg` lines are UI and telemetry (a `token_count` holds the
//!   context size), `compacted` is its compaction marker;
//! - `live`: a replay from the newest `compacted` line, with rollbacks;
//! - `compact`: a compaction appended as Codex's local compaction records itself;
//! - `prune`: call outputs, call arguments, reasoning items; a fresh `token_count` after;
//! - `handoff`: a new rollout, a `session_meta` header then one message item a turn;
//! - `home`: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`;
//! - `trigger`: its auto-compact token limit.

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod read;
mod trigger;

/// The Codex CLI rollout format.
pub struct Codex;
