//! Factory Droid (`~/.factory/sessions/<project>/<session id>.jsonl`): everything condense
//! knows of its sessions (`@factory/cli-linux-x64` 0.225.2; `docs/agents/droid.md` holds the
//! research and the experiments behind each rule).
//!
//! - `read`: a `session_start` line, `message` records holding Anthropic-shaped messages,
//!   `agent_turn_outcome` lines, and `compaction_state`, its compaction marker;
//! - `live`: the newest `compaction_state`'s summary, then the messages after its anchor;
//! - `compact`: a `compaction_state` appended, anchored at the last summarised message;
//! - `prune`: tool results, tool inputs and thinking blocks of its messages;
//! - `handoff`: a new session, a `session_start` then one `message` a turn;
//! - `home`: `$FACTORY_HOME_OVERRIDE/.factory/sessions` (`~/.factory/sessions`);
//! - `trigger`: its compaction token limit.
//!
//! Droid is not open source: the rules cited in these files come from the JavaScript bundled in
//! its executable (chunk and minified function, and the source file the chunk's source map
//! names) and from experiments with the pinned Droid against the mock API
//! (`fixtures/agents/droid/resume.sh`).

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod read;
mod trigger;

/// The Factory Droid session format.
pub struct Droid;
