//! The arguments of `condense doctor`.

use std::path::PathBuf;

use clap::Args;

use super::in_place::backup_suffix;
use super::report::ReportFormat;
use crate::transcript::FormatId;

/// The arguments of `condense doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Session files; none, or `-`, reads standard input (checked only, never repaired).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The transcript format, instead of detecting it from the first lines.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub from: Option<FormatId>,

    /// Write the smallest fixes the agent's rules allow into each FILE: a broken link is
    /// relinked to the nearest earlier record on the chain, a cut-off last line is dropped.
    /// FILE is replaced atomically, the original kept as FILE.bak (or FILE.bak.N), and each
    /// change is printed.
    #[arg(long)]
    pub repair: bool,

    /// The suffix of the backups --repair keeps (not empty, no `/`).
    #[arg(
        long,
        value_name = "SUFFIX",
        default_value = ".bak",
        requires = "repair",
        value_parser = backup_suffix
    )]
    pub backup_suffix: String,

    /// Output format [default: text at a terminal, else jsonl].
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
}
