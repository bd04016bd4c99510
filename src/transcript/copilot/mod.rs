//! GitHub Copilot CLI (`~/.copilot/session-state/<session id>/events.jsonl`): everything
//! condense knows of its sessions (`@github/copilot` 1.0.102; `docs/agents/copilot.md` holds
//! the research and the experiments behind each rule).
//!
//! - `read`: every line is an event `{type, data, id, timestamp, parentId}`; `user.message`,
//!   `assistant.message` and `tool.execution_complete` are what the model saw, every other
//!   event is bookkeeping, and a successful `session.compaction_complete` is its compaction
//!   marker, its `summaryContent` the summary;
//! - `live`: a replay in file order that starts again at each compaction with the user's
//!   messages listed beside the summary;
//! - `compact`: a `session.compaction_complete` event put before the kept tail, as Copilot's
//!   own compaction records itself;
//! - `prune`: tool results, call arguments, thinking;
//! - `handoff`: a new `events.jsonl`, a `session.start` then one event a turn;
//! - `home`: `$COPILOT_HOME/session-state/<id>/events.jsonl`;
//! - `trigger`: its background compaction threshold.
//!
//! Copilot CLI is not open source: its session runtime is a native module
//! (`prebuilds/linux-x64/runtime.node` of the package). The rules cited in these files come
//! from the package's JavaScript (`cli-main.js`), its published schema
//! (`schemas/session-events.schema.json`, `copilot-sdk/types.d.ts`), the runtime's strings, and
//! experiments with the pinned CLI against the mock API (`fixtures/agents/copilot/resume.sh`).

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod read;
mod trigger;

/// The GitHub Copilot CLI session format.
pub struct Copilot;
