//! The arguments of `condense undo`.

use std::path::PathBuf;

use clap::Args;

use super::in_place::backup_suffix;

/// The arguments of `condense undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The session file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// List what can be undone, newest first, one JSON object a line; change nothing.
    #[arg(long)]
    pub list: bool,

    /// The suffix of the backups undo keeps of the file it replaces (not empty, no `/`).
    #[arg(long, value_name = "SUFFIX", default_value = ".bak", value_parser = backup_suffix)]
    pub backup_suffix: String,
}
