//! Where the transcripts of a command come from (files, a directory, standard input, or a
//! session found by id or as the newest) and how they are read; shared by every command that
//! reads one.

use std::path::PathBuf;

use clap::{ArgGroup, Args};

use crate::sessions::Agent;
use crate::transcript::FormatId;

/// Where the one transcript of `split`, `prompt`, `inject`, `caveman` and `bare` comes from,
/// and how it is read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The transcript file, or a directory (its newest session file); none, or `-`, reads
    /// standard input.
    ///
    /// One transcript: a second FILE is a usage error.
    #[arg(value_name = "FILE", conflicts_with_all = ["latest", "session", "hook"])]
    pub file: Option<PathBuf>,

    /// Which session, when it is not named by FILE.
    #[command(flatten)]
    pub find: FindArgs,

    /// How it is read.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Where the transcripts of `estimate` come from, and how they are read.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Transcript files, or directories searched for session files; none, or `-`, reads
    /// standard input.
    ///
    /// A directory is searched for `*.jsonl` files (also `.gz` and `.zst`), without sub-agent
    /// and side files.
    #[arg(value_name = "FILE", conflicts_with_all = ["latest", "session", "hook"])]
    pub files: Vec<PathBuf>,

    /// Also read the files named in LIST, one per line or NUL-separated (`find -print0`);
    /// `-` reads the list from standard input.
    #[arg(hide_short_help = true, long, value_name = "LIST", conflicts_with_all = ["latest", "session", "hook"])]
    pub files_from: Option<PathBuf>,

    /// Which session, when it is not named by FILE.
    #[command(flatten)]
    pub find: FindArgs,

    /// How they are read.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Finding a session without naming its file.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pick").args(["latest", "session"])))]
pub struct FindArgs {
    /// Read the newest session of any known agent (of --agent, if given).
    ///
    /// That is the session file written last in Claude Code, Codex, kimi-cli, pi and Gemini
    /// CLI's places (see `condense sessions`).
    #[arg(short, long)]
    pub latest: bool,

    /// Read the session with this id (or the start of it): a Claude Code, Codex or pi file name,
    /// a kimi-cli session directory, a Gemini CLI session.
    #[arg(hide_short_help = true, long, value_name = "ID")]
    pub session: Option<String>,

    /// With --latest or --session: search only this agent's place.
    #[arg(
        hide_short_help = true,
        long,
        value_enum,
        value_name = "AGENT",
        requires = "pick"
    )]
    pub agent: Option<Agent>,

    /// Read the transcript named by `transcript_path` in the JSON object on standard input, as
    /// Claude Code hands it to hooks and the status line.
    #[arg(hide_short_help = true, long, conflicts_with = "pick")]
    pub hook: bool,
}

/// How transcripts are read; shared by every command that reads one.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The transcript format, instead of detecting it from the first lines.
    ///
    /// Detection also checks that the first lines are of one format. Naming a format that no
    /// line of the input is a message in is an error.
    #[arg(hide_short_help = true, long, value_name = "FORMAT")]
    pub from: Option<FormatId>,

    /// Skip malformed lines (and say how many on stderr) instead of failing.
    #[arg(hide_short_help = true, long)]
    pub skip_invalid: bool,

    /// Work on every record of the file, in file order, instead of the live context: the path
    /// to the agent's active leaf since its latest compaction, without abandoned branches,
    /// earlier epochs or sub-agent lines.
    #[arg(hide_short_help = true, long)]
    pub whole_file: bool,
}
