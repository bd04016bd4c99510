//! The whole command-line surface, in clap derive. The `///` comments are the `--help` text.
//!
//! This file holds the top: [`Cli`] and its one [`Command`] per subcommand. Each command's
//! arguments live in a module of their own beside it, with the flag groups several commands
//! share (where the transcript comes from, how tokens are counted, which records are kept,
//! writing in place, handing off) in theirs; everything is re-exported here, so the rest of the
//! crate names it `crate::cli::X`.

use clap::{Parser, Subcommand};

mod bare;
mod caveman;
mod compact;
mod doctor;
mod estimate;
mod eval;
mod handoff;
mod history;
mod in_place;
mod inject;
mod install;
mod plan;
mod prompt;
mod prune;
mod report;
mod sessions;
mod settings;
mod source;
mod split;
mod tokenizer;
mod undo;

pub use bare::{BareArgs, BareFormat};
pub use caveman::{CavemanArgs, CavemanFormat};
pub use compact::{CompactArgs, CompactFormat, StyleFlag};
pub use doctor::DoctorArgs;
pub use estimate::EstimateArgs;
pub use eval::{Builtin, EvalArgs, EvalFormat};
pub use handoff::HandoffArgs;
pub use history::HistoryArgs;
pub use in_place::InPlaceArgs;
pub use inject::{InjectArgs, InjectFormat};
pub use install::{CompletionsArgs, ManArgs, RecipesArgs};
pub use plan::PlanArgs;
pub use prompt::{PromptArgs, RequestFormat};
pub use prune::{PruneArgs, PruneFormat};
pub use report::ReportFormat;
pub use sessions::{SessionsArgs, SessionsFormat};
pub use settings::SettingsArgs;
pub use source::{FilesArgs, FindArgs, InputArgs, ReadArgs};
pub use split::{Region, SplitArgs};
pub use tokenizer::{FamilyName, Lang, TokenizerArgs, TokenizerName};
pub use undo::UndoArgs;

/// The version line `--version` prints: the version, then the optional features built in, so a
/// user can tell whether exact token counting (`bpe`) and zstd input are there. (`concat!`
/// takes literals only, hence the four spelled-out cases.)
pub const VERSION: &str = match (cfg!(feature = "bpe"), cfg!(feature = "zstd")) {
    (true, true) => concat!(env!("CARGO_PKG_VERSION"), " (features: +bpe +gzip +zstd)"),
    (true, false) => concat!(env!("CARGO_PKG_VERSION"), " (features: +bpe +gzip -zstd)"),
    (false, true) => concat!(env!("CARGO_PKG_VERSION"), " (features: -bpe +gzip +zstd)"),
    (false, false) => concat!(env!("CARGO_PKG_VERSION"), " (features: -bpe +gzip -zstd)"),
};

/// Measure and compact LLM-agent transcripts (JSONL) with Unix pipelines.
///
/// condense reads the session files of Claude Code, Codex, kimi-cli, pi, Gemini CLI and plain
/// OpenAI- or Anthropic-style message lists, on standard input or from files, and writes JSONL
/// or Markdown to standard output.
///
/// Exit status: 0 success, 1 failure (I/O, malformed input; also no match for `history
/// --search`, as grep, and no session for `--latest`), 2 usage error, 3 compaction is due
/// (`estimate --check`), 4 nothing to compact (`prompt`, `inject`, `compact`) or prune
/// (`prune`).
#[derive(Debug, Parser)]
#[command(name = "condense", version = VERSION, max_term_width = 100)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The filters, the session finder, and the installation helpers.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the tokens of transcripts, and tell whether compaction is due.
    ///
    /// Leads with the context size the agent sees: the last usage figure its provider recorded
    /// plus the estimate of what came after it (or the estimate alone where the session records
    /// none). At a terminal it prints a table; piped, or with --format jsonl, one JSON object
    /// per FILE (file, format, tokenizer, context, tokens and messages of the live context,
    /// counts by role and by part kind, bookkeeping records), then a total line when there are
    /// several. Files are read in parallel and reported in argument order. "tokens" counts only
    /// the messages, by the estimator; "whole_file" counts every line. Claude Code sidechain
    /// (sub-agent) messages are counted apart, under "sidechain".
    Estimate(EstimateArgs),
    /// Decide which records a compaction keeps and which it summarises.
    ///
    /// Prints the plan as one JSON object: the regions (lead, head, compact, tail) as record and
    /// line ranges with their tokens, whether it is a no-op and why, and a fingerprint of the
    /// records before the tail. `--emit REGION` prints that region's original lines instead,
    /// byte for byte.
    Split(SplitArgs),
    /// Build the compaction request for an LLM.
    ///
    /// Prints the request's user message: every compacted message as `## Message N`, its role
    /// and its text, then the prompt body. `--system` prints the system prompt instead. When the
    /// plan compacts nothing, prints nothing and exits with status 4.
    Prompt(PromptArgs),
    /// Write the compacted transcript with a summary in place of the old records.
    ///
    /// The result is in the transcript's own format, shaped the way its agent writes its own
    /// compactions, so the agent can resume it: kept records are copied byte for byte. With
    /// `--plan`, the records the plan compacted must be unchanged, and every record after them
    /// is kept, including ones appended since. When the plan compacts nothing the transcript is
    /// written unchanged and the exit status is 4.
    Inject(InjectArgs),
    /// Replace old tool outputs in the live context with short placeholders, with no model.
    ///
    /// Deterministic: each pruned tool result becomes one line saying what was there (the
    /// tool, its size in tokens, its exit status when it states one, its first and last
    /// lines), and the session is written back in its own format, every other line byte for
    /// byte, so the agent resumes with the smaller context. Call and result ids still pair.
    /// The knobs follow Anthropic's context editing (clear_tool_uses_20250919,
    /// clear_thinking_20251015). After the last line comes what tells readers that earlier
    /// usage figures no longer hold: a fresh kimi-cli `_usage` or Codex `token_count`, a Claude
    /// Code `microcompact_boundary`, a pi `custom` entry, a Gemini `$set`, each holding the new
    /// size. `estimate --context` and `--check` then measure the pruned context, so a step such
    /// as `estimate --check --max-context N FILE || prune --in-place FILE` prunes once. When
    /// nothing is pruned the transcript is written unchanged and the exit status is 4.
    Prune(PruneArgs),
    /// Summarise a transcript in under 500 tokens with no model at all.
    ///
    /// Deterministic extraction: the goal in the user's words, the current task, unresolved
    /// errors, files touched, commands with their last outcome, the next step, and counts of
    /// what was left out. Never longer than --budget tokens.
    Caveman(CavemanArgs),
    /// Summarise a transcript in four lines, NOW / NEXT / TEST / CI, about 100 tokens.
    ///
    /// Every line is always printed (`TEST:none` when there is nothing), so scripts can
    /// `grep ^NEXT:`.
    Bare(BareArgs),
    /// List a session's compactions: what each summarised, the context before and after, and
    /// the first line of its summary.
    ///
    /// Append-only sessions (Claude Code, Codex, pi) keep every epoch in the file; rewritten
    /// ones (kimi-cli, OpenAI and Anthropic lists, Gemini) keep earlier versions in the
    /// backups `inject --in-place` made beside them (FILE.bak, FILE.bak.N), listed first.
    /// --show prints an epoch's original records byte for byte; --search finds them.
    History(HistoryArgs),
    /// Grade summaries at a session's compactions: what the agent re-used after each cut,
    /// and which of it each summary carried.
    ///
    /// At every compaction the session recorded (or, in a session with none, at the --at
    /// places), the prefix is the live context before the cut and the suffix what the user and
    /// the agent wrote after it (text, thinking, tool-call arguments; not tool outputs). The
    /// entities of the suffix that also occur in the prefix (paths, commands, identifiers,
    /// flags, environment variables, errors, numbers with units, URLs, the user's constraints)
    /// are graded: which of them the agent's own summary (native), caveman, bare, a frequency
    /// list at caveman's budget (baseline) and each --cmd carried. Prints one JSON line per
    /// cut and summary, or Markdown tables. The kinds and the matching are defined in
    /// docs/EVAL.md and condense-eval(1).
    Eval(EvalArgs),
    /// Compact a session in one command: with an LLM CLI, or down the ACF ladder to a budget.
    ///
    /// --llm CMD runs CMD through `sh -c` with the compaction request on its standard input and
    /// the compactor's system prompt in $CONDENSE_SYSTEM (and the config file's
    /// compaction_model in $CONDENSE_MODEL), e.g. --llm 'llm -s "$CONDENSE_SYSTEM"'; its output
    /// is the summary. --budget N writes the richest form whose live context fits N tokens: the
    /// session unchanged if it fits (exit 4), pruned (old tool outputs out, as `prune`), the
    /// LLM's summary (with --llm), caveman's, then bare's. The rung taken is said on standard
    /// error. A failing CMD, an empty summary or one
    /// over --summary-tokens leaves the session untouched (exit 1).
    Compact(CompactArgs),
    /// List the session files of the known agents, newest first.
    ///
    /// Searches Claude Code, Codex, kimi-cli, pi and Gemini CLI session places (each overridable
    /// by the agent's own variable: CLAUDE_CONFIG_DIR, CODEX_HOME, KIMI_SHARE_DIR,
    /// PI_CODING_AGENT_DIR or PI_CODING_AGENT_SESSION_DIR, GEMINI_CLI_HOME), or the DIRs given,
    /// and prints one path per line, for `--files-from -`, `xargs` or a shell variable.
    Sessions(SessionsArgs),
    /// Check sessions the way their agent resumes them, and repair what its rules allow.
    ///
    /// Reports, per FILE, what the agent would lose on resume: a cut-off last line, malformed
    /// lines, dangling parents and cycles (Claude Code `parentUuid`, pi `parentId`), duplicate
    /// ids, messages unreachable from the leaf, and orphaned tool results in the live context.
    /// `--repair` relinks broken links and drops a cut-off last line, with a backup.
    Doctor(DoctorArgs),
    /// Restore a session to before condense's last in-place write.
    ///
    /// An append (Claude Code, Codex, pi) is removed byte for byte, keeping what the agent wrote
    /// since unless it hangs under the compaction; a replace is undone from its backup while the
    /// file is still what condense left. `--list` shows what can be undone.
    Undo(UndoArgs),
    /// Print a shell completion script.
    ///
    /// bash: `condense completions bash > ~/.local/share/bash-completion/completions/condense`;
    /// zsh: into a directory on $fpath as `_condense`; fish:
    /// `~/.config/fish/completions/condense.fish`; PowerShell: `condense completions powershell |
    /// Out-String | Invoke-Expression` in $PROFILE.
    Completions(CompletionsArgs),
    /// Write the man pages (condense.1 and one per command) into a directory.
    ///
    /// `condense man ~/.local/share/man/man1` installs them for `man condense-estimate`.
    Man(ManArgs),
    /// List, print or install the agent recipes (hooks, scripts) that come with condense.
    ///
    /// `condense recipes` lists them; `condense recipes pi` prints pi's; `condense recipes --dir
    /// ~/condense-recipes` writes them all, never over a file that exists.
    Recipes(RecipesArgs),
}
