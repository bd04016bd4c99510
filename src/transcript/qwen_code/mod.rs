//! Qwen Code (`~/.qwen/projects/<project>/chats/<session id>.jsonl`): everything condense knows
//! of its sessions (`@qwen-code/qwen-code` 0.24.4; `docs/agents/qwen-code.md` holds the research
//! and the resume experiments behind each rule).
//!
//! Qwen Code is a fork of Gemini CLI, but its session file is its own: Claude Code's `uuid` /
//! `parentUuid` chain of records, each message a Gemini `Content` (`role` `user`/`model`,
//! `parts`). The parts are Gemini's, so they are read, and their tool results found for prune,
//! by the [`super::gemini`] folder's code; everything else lives here:
//!
//! - `read`: `user`, `assistant` and `tool_result` records holding a `message`, `system`
//!   records (`ui_telemetry`, `attribution_snapshot`, …) as bookkeeping, and
//!   `chat_compression`, its compaction marker, whose `compressedHistory` restarts the history;
//! - `live`: the chain walked back from the last conversation record, replayed from its newest
//!   `chat_compression`;
//! - `compact`: a `chat_compression` appended to the chain, its `compressedHistory` the summary,
//!   Qwen Code's acknowledgement and the kept tail;
//! - `prune`: tool results (`functionResponse`), call arguments and thought parts;
//! - `handoff`: a new session, one `user` or `assistant` record a turn;
//! - `home`: `$QWEN_RUNTIME_DIR/projects`, else `$QWEN_HOME/projects` (`~/.qwen/projects`), and
//!   the writer lease a running Qwen Code holds;
//! - `trigger`: its automatic compression threshold.
//!
//! The code read is the published package's bundle (esbuild chunks that name each source file
//! of `QwenLM/qwen-code` in a `// packages/…` comment); each file cites the source file and
//! function its rule comes from.

mod compact;
mod handoff;
mod home;
mod live;
mod prune;
mod read;
mod trigger;

/// The Qwen Code session format.
pub struct QwenCode;
