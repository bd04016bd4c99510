//! The arguments of `condense estimate`.

use clap::Args;

use super::report::ReportFormat;
use super::settings::SettingsArgs;
use super::source::FilesArgs;
use super::tokenizer::TokenizerArgs;
use crate::settings::MaxContext;

/// The arguments of `condense estimate`.
#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// Where transcripts come from.
    #[command(flatten)]
    pub input: FilesArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// Always on now: every report leads with the context size as the agent sees it (kept so
    /// that scripts which pass it go on working, for one release).
    #[arg(long, hide = true)]
    pub context: bool,

    /// The model's context window, or `auto`: the window of the model the session records.
    ///
    /// `auto` looks the model up in a table of known models, which the config file's models table
    /// adds to. Adds the window, the share used, the tokens left, and whether compaction is due
    /// (kimi-cli's rule, applied to the context size).
    #[arg(long, value_name = "TOKENS|auto")]
    pub max_context: Option<MaxContext>,

    /// Compaction is due at this share of the window (default 0.85, or the preset's).
    #[arg(hide_short_help = true, long, value_name = "RATIO")]
    pub trigger_ratio: Option<f64>,

    /// Compaction is due when fewer tokens than this remain free (default 50000, or the
    /// preset's).
    #[arg(hide_short_help = true, long, value_name = "TOKENS")]
    pub reserved: Option<u64>,

    /// Answer with the exit status: 3 when compaction is due for any FILE, 0 when not.
    ///
    /// 1 and 2 stay errors. Needs a window (--max-context, a preset that has one, or the config
    /// file). Never due when the config file says `enabled = false`.
    #[arg(long)]
    pub check: bool,

    /// With --check: print nothing, answer with the exit status only.
    #[arg(short, long, requires = "check")]
    pub quiet: bool,

    /// Report a file that cannot be read on stderr and go on with the others; the exit status
    /// is 1 at the end (also with --check).
    #[arg(hide_short_help = true, long)]
    pub keep_going: bool,

    /// Where the defaults come from.
    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Output format [default: text at a terminal, else jsonl].
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,

    /// Print only the context size, summed over all files.
    #[arg(long, conflicts_with_all = ["per_message", "format"])]
    pub total: bool,

    /// Leave out the total line that follows several files (for reports merged later).
    ///
    /// `--no-total` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "no-total",
        conflicts_with = "total"
    )]
    pub no_total_line: bool,

    /// Print one line per message: its index, line, role and tokens.
    #[arg(long)]
    pub per_message: bool,

    /// Add `explain`: when the agent itself will compact, and how far the session is from it.
    ///
    /// That is the agent's own auto-compaction trigger for the session's model (its rule,
    /// numbers and source), the tokens left until the agent compacts by itself, the trigger
    /// --check uses and why they differ, and the agent's earlier compactions recorded in the
    /// file. The window is --max-context's, else the session model's (as with `auto`).
    #[arg(long, conflicts_with_all = ["per_message", "total"])]
    pub explain: bool,
}
