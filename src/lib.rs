//! condense: Unix filters that measure and compact LLM-agent transcripts (JSONL).
//!
//! Data flows one way: input, agent format, model, pure core, output.
//!
//! - [`input`] turns files or stdin into numbered lines.
//! - [`transcript`] holds one folder per agent (Claude Code, Codex, pi, Gemini CLI, kimi-cli,
//!   Anthropic lists), listed once in [`transcript::registry`]: each detects its dialect, reads
//!   each line into the common model (a record is a message with parts, or bookkeeping carried
//!   through untouched, and always keeps its exact bytes), rebuilds its live context, and
//!   writes compactions, prunes and handed-over sessions back in its own shape; it also knows
//!   where its sessions live ([`sessions`] finds them) and when it compacts by itself
//!   ([`trigger`] reports it).
//! - The pure core computes: [`tokens`], [`measure`], [`plan`], [`prune`], [`extract`],
//!   [`request`], [`summary`], [`markdown_document`], [`history`], [`eval`], [`doctor`], [`verify`], and
//!   for the commands that compact, [`compaction`] (the plan report, the ladder, request
//!   assembly), with [`settings`] saying where each number comes from.
//! - [`output`] writes JSON lines or Markdown; [`persist`] and [`undo`] write sessions in place
//!   and take such writes back.
//!
//! Each subcommand in [`cmd`] only wires these together, with options built once from the
//! flags, the config file and the preset. `docs/ARCHITECTURE.md` says what each
//! folder owns and how to add an agent.

pub mod cli;
pub mod cmd;
pub mod compaction;
pub mod doctor;
pub mod eval;
pub mod extract;
pub mod history;
pub mod input;
pub mod llm;
pub mod manual;
pub mod markdown_document;
pub mod measure;
pub mod output;
pub mod persist;
pub mod plan;
pub mod prompts;
pub mod prune;
pub mod request;
pub mod sessions;
pub mod settings;
pub mod simd;
pub mod summary;
pub mod tokens;
pub mod trace;
pub mod transcript;
pub mod trigger;
pub mod undo;
pub mod verify;

use std::io::Write;

use anyhow::Result;

use cli::{Cli, Command};

/// How a successful run ended; `main` maps it to the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done (exit 0).
    Success,
    /// `estimate --check` found compaction due (exit [`EXIT_COMPACTION_DUE`]).
    CompactionDue,
    /// `prompt` found nothing to compact (exit [`EXIT_NOTHING_TO_COMPACT`]).
    NothingToCompact,
    /// `history --search` found no match (exit [`EXIT_NO_MATCH`], as grep's "nothing
    /// selected").
    NoMatch,
}

/// Exit status for a runtime failure: I/O, malformed input.
pub const EXIT_FAILURE: u8 = 1;
/// Exit status for a usage error: what clap reports, and the flag combinations only a run can
/// tell are wrong (see [`UsageError`]).
pub const EXIT_USAGE: u8 = 2;

/// A usage error found after parsing (a flag that needs a value no source gave): `main` exits
/// with [`EXIT_USAGE`] for it.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}
/// Exit status when `estimate --check` finds compaction due.
pub const EXIT_COMPACTION_DUE: u8 = 3;
/// Exit status when `prompt` finds nothing to compact (the plan is a no-op).
pub const EXIT_NOTHING_TO_COMPACT: u8 = 4;
/// Exit status when a search finds nothing: 1, as grep and rg answer (an error says so on
/// stderr; no match prints nothing).
pub const EXIT_NO_MATCH: u8 = 1;

impl Outcome {
    /// The process exit status for this outcome.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::CompactionDue => EXIT_COMPACTION_DUE,
            Outcome::NothingToCompact => EXIT_NOTHING_TO_COMPACT,
            Outcome::NoMatch => EXIT_NO_MATCH,
        }
    }
}

/// Runs one command line, writing results to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<Outcome> {
    match cli.command {
        Command::Estimate(args) => cmd::estimate::run(&args, out),
        Command::Split(args) => cmd::split::run(&args, out),
        Command::Prompt(args) => cmd::prompt::run(&args, out),
        Command::Inject(args) => cmd::inject::run(&args, out),
        Command::Prune(args) => cmd::prune::run(&args, out),
        Command::Caveman(args) => cmd::caveman::run(&args, out),
        Command::Bare(args) => cmd::bare::run(&args, out),
        Command::History(args) => cmd::history::run(&args, out),
        Command::Eval(args) => cmd::eval::run(&args, out),
        Command::Compact(args) => cmd::compact::run(&args, out),
        Command::Sessions(args) => cmd::sessions::run(&args, out),
        Command::Doctor(args) => cmd::doctor::run(&args, out),
        Command::Undo(args) => cmd::undo::run(&args, out),
        Command::Completions(args) => cmd::completions::run(&args, out),
        Command::Man(args) => cmd::man::run(&args, out),
        Command::Recipes(args) => cmd::recipes::run(&args, out),
    }
}
