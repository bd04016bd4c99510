//! The compaction core (pure: no stdin, stdout, files, clock or environment): what the
//! commands that compact (`split`, `prompt`, `inject`, `compact`, `prune`) decide, given a
//! transcript already read and options already built. The commands in [`crate::cmd`] read the
//! input, build the options from flags, the config file and the preset, call in here, and
//! write the outcome.

pub mod writer;

pub use writer::{compaction, context_size, kept_user_texts, live_context};
