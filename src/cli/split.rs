//! The arguments of `condense split`, and the regions a plan names.

use clap::{Args, ValueEnum};

use super::plan::PlanArgs;
use super::source::InputArgs;

/// The regions a plan names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Region {
    /// Leading bookkeeping and system records.
    Lead,
    /// The first request kept verbatim (head/tail mode).
    Head,
    /// The records summarised away.
    Compact,
    /// The records kept after the summary.
    Tail,
}

/// The arguments of `condense split`.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// Which records to keep.
    #[command(flatten)]
    pub plan: PlanArgs,

    /// Print this region's original lines, byte for byte, instead of the plan.
    #[arg(long, value_enum, value_name = "REGION")]
    pub emit: Option<Region>,
}
