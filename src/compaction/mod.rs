//! The compaction core (pure: no stdin, stdout, files, clock or environment): what the
//! commands that compact (`split`, `prompt`, `inject`, `compact`, `prune`) decide, given a
//! transcript already read and options already built. The commands in [`crate::cmd`] read the
//! input, build the options from flags, the config file and the preset, call in here, and
//! write the outcome.
//!
//! - [`planning`]: what a compaction keeps, as options, and the plan they make of a transcript;
//! - [`report`]: the plan as data (`split`'s JSON, `prompt --plan`'s file) and what
//!   `inject --plan` reads back of it;
//! - [`check`]: a saved plan checked against the transcript as it is now;
//! - [`request`]: the compaction request a plan makes, for `prompt` and `compact --llm` alike;
//! - [`writer`]: from a plan and a summary to what a format writer needs, and the session or
//!   handoff document written;
//! - [`handover`]: a new session of another agent (`--to`);
//! - [`context`]: the live context's size as the agent sees it;
//! - [`streamed`]: the live context's size of a session as it is written, never held whole;
//! - [`extract`]: what the model-free summaries (caveman, bare) extract from;
//! - [`prune`]: prune's measurement of the values it may replace, and what it writes;
//! - [`ladder`]: `compact`'s rungs, from the session unchanged down to bare's four lines.

pub mod check;
pub mod context;
pub mod extract;
pub mod handover;
pub mod ladder;
pub mod planning;
pub mod prune;
pub mod report;
pub mod request;
pub mod streamed;
pub mod writer;

pub use context::{context_size, live_context};
pub use writer::{compaction, kept_user_texts};
