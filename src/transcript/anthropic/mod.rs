//! The anthropic agent folder (being split by job: reading is `read`).

mod read;

pub use read::*;
