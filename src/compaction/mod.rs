//! The compaction core (pure: no stdin, stdout, files, clock or environment): what the
//! commands that compact (`split`, `prompt`, `inject`, `compact`, `prune`) decide, given a
//! transcript already read and options already built. The commands in [`crate::cmd`] read the
//! input, build the options from flags, the config file and the preset, call in here, and
//! write the outcome.

pub mod check;
pub mod context;
pub mod extract;
pub mod handover;
pub mod ladder;
pub mod planning;
pub mod prune;
pub mod report;
pub mod request;
pub mod writer;

pub use context::{context_size, live_context};
pub use writer::{compaction, kept_user_texts};
