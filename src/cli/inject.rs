//! The arguments of `condense inject`, and what it writes.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::handoff::HandoffArgs;
use super::in_place::InPlaceArgs;
use super::plan::PlanArgs;
use super::source::InputArgs;

/// What `inject` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InjectFormat {
    /// The compacted transcript in the input's own format.
    Jsonl,
    /// ACF's Markdown document: original request, elision marker, current state, summary.
    Markdown,
}

/// The arguments of `condense inject`.
#[derive(Debug, Args)]
pub struct InjectArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// Which records to keep (ignored with --plan, which brings its own).
    #[command(flatten)]
    pub plan: PlanArgs,

    /// The summary the LLM wrote; `-` reads it from standard input (then the transcript must
    /// come from a FILE). `<think>` blocks and control characters are removed, and
    /// `<system>` tags are escaped so the summary cannot close the wrapper it is put in.
    #[arg(long, value_name = "FILE")]
    pub summary: PathBuf,

    /// The plan `prompt --plan` wrote: check that the records it compacted are unchanged, and
    /// keep everything after them.
    #[arg(hide_short_help = true, long = "plan", value_name = "FILE")]
    pub plan_file: Option<PathBuf>,

    /// What to write.
    #[arg(short, long, value_enum, default_value = "jsonl")]
    pub format: InjectFormat,

    /// Writing FILE itself.
    #[command(flatten)]
    pub in_place: InPlaceArgs,

    /// Handing the session to another agent.
    #[command(flatten)]
    pub handoff: HandoffArgs,
}
