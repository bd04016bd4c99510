//! The arguments of `condense history`.

use clap::Args;

use super::report::ReportFormat;
use super::source::InputArgs;
use super::tokenizer::TokenizerArgs;

/// The arguments of `condense history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// Print the original records epoch N summarised (1 is the oldest), byte for byte.
    #[arg(long, value_name = "N", conflicts_with = "search")]
    pub show: Option<usize>,

    /// Find the messages of compacted epochs whose text contains TEXT, with their epoch, file
    /// and line.
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,

    /// Output form of the list [default: text at a terminal, else jsonl].
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
}
