//! The arguments of `condense sessions`, and its output forms.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::sessions::Agent;

/// The arguments of `condense sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Search these directories instead of the agents' places.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Search only this agent's place.
    #[arg(long, value_enum, value_name = "AGENT", conflicts_with = "dirs")]
    pub agent: Option<Agent>,

    /// Print only the newest session.
    #[arg(long)]
    pub latest: bool,

    /// Print only the session with this id (or the start of it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["latest", "dirs"])]
    pub session: Option<String>,

    /// End each path with a NUL byte instead of a newline (for `xargs -0`, `--files-from`).
    #[arg(hide_short_help = true, short = '0', long, conflicts_with = "format")]
    pub null: bool,

    /// Output form: one path per line (text), or one JSON object per session with its path,
    /// size in bytes and the time it was last written (jsonl).
    #[arg(short, long, value_enum, default_value = "text")]
    pub format: SessionsFormat,
}

/// Output forms of `sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsFormat {
    /// One path per line.
    Text,
    /// One JSON object per session: `path`, `bytes`, `modified` (RFC 3339, UTC).
    Jsonl,
}
