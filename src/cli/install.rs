//! The arguments of the installation helpers: `condense completions`, `man` and `recipes`.

use std::path::PathBuf;

use clap::Args;

/// The arguments of `condense completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// The arguments of `condense man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The directory to write the pages into (a `man1` directory on the MANPATH).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Create DIR and its parents when missing, as `mkdir -p` does (else a missing DIR is an
    /// error: a mistyped path would hide the pages where `man` never looks).
    #[arg(short, long)]
    pub parents: bool,
}

/// The arguments of `condense recipes`.
#[derive(Debug, Args)]
pub struct RecipesArgs {
    /// The recipe to print: its path as listed (`pi/pi-compact.sh`) or its agent (`pi`).
    #[arg(value_name = "NAME", conflicts_with = "dir")]
    pub name: Option<String>,

    /// Write every recipe into this existing directory, each in its agent's folder.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
