//! The codex agent folder (being split by job: reading is `read`).

pub(crate) mod handoff;
pub(crate) mod live;
mod read;

pub use read::*;
