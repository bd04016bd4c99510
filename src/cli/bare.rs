//! The arguments of `condense bare`, and its output forms.

use clap::{Args, ValueEnum};

use super::source::InputArgs;
use super::tokenizer::TokenizerArgs;

/// Output forms of `bare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BareFormat {
    /// The four lines.
    Text,
    /// One JSON object with the fields now, next, test and ci.
    Jsonl,
}

/// The arguments of `condense bare`.
#[derive(Debug, Args)]
pub struct BareArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// The most tokens the four lines may have together.
    #[arg(short, long, value_name = "TOKENS", default_value_t = 100)]
    pub budget: u64,

    /// A focus for the summary: the user's instructions for the compaction (what follows
    /// `/compact`), stated first among the next steps. With --hook, by default the
    /// `custom_instructions` of Claude Code's PreCompact hook input.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// Output form.
    #[arg(short, long, value_enum, default_value = "text")]
    pub format: BareFormat,
}
