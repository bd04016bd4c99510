//! One module per subcommand, each with the same shape: `run(args, out) -> Result<Outcome>`.

pub mod bare;
pub mod caveman;
pub mod compact;
pub mod compaction;
pub mod completions;
pub mod doctor;
pub mod estimate;
pub mod eval;
pub mod handoff;
pub mod history;
pub mod inject;
pub mod man;
pub mod prompt;
pub mod prune;
pub mod recipes;
pub mod sessions;
pub mod settings;
pub mod shared;
pub mod split;
pub mod undo;
pub mod verified;
