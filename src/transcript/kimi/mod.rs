//! The kimi agent folder (being split by job: reading is `read`).

pub(crate) mod handoff;
mod read;

pub use read::*;
