//! Agent transcripts: one folder per agent, the common model they are read into, and the
//! format-agnostic machinery every agent plugs into.
//!
//! Each agent writes its own JSONL dialect. Everything one agent means lives in its folder
//! (`claude_code/`, `codex/`, `pi/`, `gemini/`, `copilot/`, `droid/`, `qwen_code/`, `opencode/`, `kimi/`, `anthropic/`), one file per job:
//! `read.rs` (its lines into the [`model`]), `live.rs` (the records it sends its model),
//! `compact.rs` (a compaction written back as its own), `prune.rs` (what prune may shrink),
//! `handoff.rs` (a new session handed over to it), `home.rs` (where its sessions live) and
//! `trigger.rs` (when it compacts by itself). Each job's trait sits beside the machinery it
//! plugs into, and [`registry`] lists the agents once; nothing outside an agent's folder knows
//! which agent it is talking to.
//!
//! Layers, lowest first (a module uses only modules of its own layer or below):
//!
//! 1. the model and text: [`model`], [`text`], [`scan`], [`json`], [`sketch`], [`blocks`],
//!    [`classify`];
//! 2. the jobs' traits and shared machinery: [`mod@format`], [`messages`], [`live`],
//!    [`mod@write`], [`prune`], [`handoff`], [`home`], [`trigger`];
//! 3. the agent folders, which implement the traits;
//! 4. [`registry`], which lists the agents;
//! 5. reading a whole input: [`read`] (detection, one line, its records held by
//!    [`line_records`]), [`load`] (a whole transcript),
//!    [`prune::rewrite`] (a pruned file written back), and [`store`] (sessions kept as rows
//!    of a database).

pub mod anthropic;
pub mod blocks;
pub mod classify;
pub mod claude_code;
pub mod codex;
pub mod copilot;
#[cfg(test)]
mod detection_tests;
pub mod droid;
pub mod format;
pub mod gemini;
pub mod handoff;
pub mod home;
pub mod json;
pub mod kimi;
pub mod line_records;
pub mod live;
pub mod load;
pub mod messages;
pub mod model;
pub mod opencode;
pub mod pi;
pub mod prune;
pub mod qwen_code;
pub mod read;
pub mod registry;
pub mod scan;
pub mod sketch;
pub mod store;
pub mod text;
pub mod trigger;
pub mod write;

pub use format::Format;
pub use model::{
    node_id, Entry, Event, Keep, Link, MediaKind, Message, NodeId, Parent, Part, PartKind, QueueOp,
    Record, Role, Usage,
};
pub use read::DETECT_LINES;
pub use registry::{detect, file_before_edit, Agent, FormatId};
