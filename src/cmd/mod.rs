//! One module per subcommand, each with the same shape: `run(args, out) -> Result<Outcome>`,
//! wiring only: read the input, build the options, call the core, write the outcome. Beside
//! them what the subcommands share: [`source`] (where transcripts come from), [`document`]
//! (sessions stored as one JSON document, and the JSONL file written for them), [`options`] (the
//! typed options, built once), [`settings`] (the config file, read once), [`shared`] (what is
//! said of unusable lines), [`verified`] (in-place writes checked before they are written; the
//! undo journal is [`crate::persist`]'s), [`handoff`] (placing a session for another agent),
//! [`stored`] (sessions kept as rows of a database, written in place).

pub mod bare;
pub mod caveman;
pub mod compact;
pub mod completions;
pub mod doctor;
pub mod document;
pub mod estimate;
pub mod eval;
pub mod handoff;
pub mod history;
pub mod inject;
pub mod man;
pub mod options;
pub mod prompt;
pub mod prune;
pub mod recipes;
pub mod sessions;
pub mod settings;
pub mod shared;
pub mod source;
pub mod split;
pub mod stored;
pub mod undo;
pub mod verified;
