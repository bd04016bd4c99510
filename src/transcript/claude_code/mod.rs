//! Claude Code (`~/.claude/projects/<project>/<sessionId>.jsonl`): everything condense knows
//! of its sessions.
//!
//! - `read`: every line is an event with a top-level `type`; `user` and `assistant` lines hold
//!   an Anthropic message, one content block a line for the assistant, the rest is
//!   bookkeeping; `compact_boundary` is its compaction marker;
//! - `live`: the `parentUuid` chain from the newest leaf, relinked after a compaction that
//!   keeps messages;
//! - `queued`: where the messages typed while the agent worked join that context;
//! - `compact`: a compaction appended as Claude Code's own `/compact` appends it;
//! - `prune`: the Anthropic values under `message`, and the `toolUseResult` copy; a
//!   `microcompact_boundary` line after;
//! - `handoff`: a new session, one line a turn chained from a root;
//! - `home`: `$CLAUDE_CONFIG_DIR/projects/<working directory made a name>/<id>.jsonl`;
//! - `trigger`: its auto-compact threshold, and `compactMetadata.preTokens`.

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod queued;
mod read;
mod trigger;

/// The Claude Code session log format.
pub struct ClaudeCode;
