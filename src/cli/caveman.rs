//! The arguments of `condense caveman`, and its output forms.

use clap::{Args, ValueEnum};

use super::source::InputArgs;
use super::tokenizer::TokenizerArgs;

/// Output forms of `caveman`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CavemanFormat {
    /// The summary as Markdown.
    Markdown,
    /// One JSON object `{"summary": …}` that `inject --summary` accepts as it is, with the
    /// transcript's `file`, its `session` id and the `time` it was written.
    Jsonl,
}

/// The arguments of `condense caveman`.
#[derive(Debug, Args)]
pub struct CavemanArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// The most tokens the summary may have; lower-priority lines are dropped, and counted.
    #[arg(short, long, value_name = "TOKENS", default_value_t = 500)]
    pub budget: u64,

    /// A focus for the summary: the user's instructions for the compaction (what follows
    /// `/compact`), stated first among the next steps. With --hook, by default the
    /// `custom_instructions` of Claude Code's PreCompact hook input.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// Output form.
    #[arg(short, long, value_enum, default_value = "markdown")]
    pub format: CavemanFormat,
}
