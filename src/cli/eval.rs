//! The arguments of `condense eval`: the summaries it grades and its output forms.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::source::FilesArgs;
use super::tokenizer::TokenizerArgs;

/// The summaries `eval` makes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Builtin {
    /// The agent's own summary at the cut (none at an --at cut).
    Native,
    /// `condense caveman` of the prefix, at --budget.
    Caveman,
    /// `condense bare` of the prefix, at its default budget (100 tokens).
    Bare,
    /// The prefix's entities, most frequent first, one a line, cut to --budget.
    Baseline,
}

/// Output forms of `eval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalFormat {
    /// One JSON object per cut and summary.
    Jsonl,
    /// A table of every cut and summary, the totals by kind, and the probes by kind.
    Markdown,
}

/// The arguments of `condense eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Where transcripts come from.
    #[command(flatten)]
    pub input: FilesArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// Where to cut a session that recorded no compaction: after the N-th main-chain message,
    /// or after P% of them (rounded down). Repeat for several cuts.
    #[arg(long, value_name = "N|P%")]
    pub at: Vec<crate::eval::cuts::At>,

    /// End each suffix after N message records (default: at the next cut or the end).
    #[arg(long, value_name = "N")]
    pub horizon: Option<usize>,

    /// The summaries made in-process, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "NAME",
        default_value = "native,caveman,bare,baseline"
    )]
    pub builtin: Vec<Builtin>,

    /// Also grade the output of a shell command, named NAME: it runs under `sh -c` with the
    /// prefix (whole lines of the session) on standard input and its path in
    /// $CONDENSE_PREFIX, the user's instructions for the compaction (what followed Claude
    /// Code's `/compact`) in $CONDENSE_INSTRUCTIONS, and its standard output is the summary.
    /// Repeatable.
    #[arg(long, value_name = "NAME=CMD")]
    pub cmd: Vec<String>,

    /// The most tokens caveman's summary and the baseline may have.
    #[arg(short, long, value_name = "TOKENS", default_value_t = 500)]
    pub budget: u64,

    /// Hand-written probes: a probe file, or a directory of them (*.txt). The probes of a file
    /// whose `file:` and `cut:` lines name a cut being graded are graded at it.
    #[arg(long, value_name = "PATH")]
    pub probes: Option<PathBuf>,

    /// List, per cut and summary, the re-used entities it lost, each with the suffix line that
    /// needed it.
    #[arg(long)]
    pub show_lost: bool,

    /// Output form.
    #[arg(short, long, value_enum, default_value = "jsonl")]
    pub format: EvalFormat,
}
