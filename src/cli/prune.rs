//! The arguments of `condense prune`: the knobs of what is pruned, and what it writes.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::in_place::backup_suffix;
use super::source::InputArgs;
use super::tokenizer::TokenizerArgs;

/// The arguments of `condense prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// The last N user turns keep every tool output verbatim (OpenCode keeps 2, Gemini CLI the
    /// latest). Default 0.
    #[arg(long, value_name = "N")]
    pub keep_turns: Option<usize>,

    /// The N most recent tool uses are kept (Anthropic's `keep`). Default 3.
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,

    /// Tools whose uses are never pruned (Anthropic's `exclude_tools`); replaces the default
    /// list, `--protect ''` protects none. The defaults: the to-do and plan tools (Claude Code
    /// TodoWrite and TodoRead and its task tools TaskCreate, TaskUpdate, TaskList and TaskGet,
    /// Codex update_plan, Gemini CLI write_todos, kimi-cli SetTodoList, OpenCode todowrite and
    /// todoread, todo_write), whose output is the agent's own state of the task, small and
    /// needed until the end; skills (Skill, skill; OpenCode protects these
    /// too), instructions the agent is to follow; and sub-agent reports (Task, Agent), the only
    /// record of work done elsewhere, which, unlike a file read or a command, cannot be fetched
    /// again.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "TOOL,...",
        value_delimiter = ','
    )]
    pub protect: Option<Vec<String>>,

    /// Outputs (and with --clear-inputs, arguments) smaller than N tokens are kept: a
    /// placeholder costs 20 to 80. Default 100.
    #[arg(hide_short_help = true, long, value_name = "N")]
    pub min_tokens: Option<u64>,

    /// Prune oldest first only until the live context is at most this many tokens.
    ///
    /// The live context is measured as `estimate` reports its context size after the prune.
    /// `--target` is its old name, kept for one release.
    #[arg(short, long, alias = "target", value_name = "TOKENS")]
    pub budget: Option<u64>,

    /// Prune only when the live context is larger than N tokens (Anthropic's `trigger`, whose
    /// default there is 100000; here the default is to prune whenever asked).
    #[arg(hide_short_help = true, long, value_name = "N")]
    pub trigger: Option<u64>,

    /// Prune nothing unless at least N tokens are freed (Anthropic's `clear_at_least`: a small
    /// saving may not be worth invalidating the provider's prompt cache). Default 0.
    #[arg(hide_short_help = true, long, value_name = "N")]
    pub clear_at_least: Option<u64>,

    /// Also prune the arguments of old tool uses (Anthropic's `clear_tool_inputs`).
    ///
    /// They are pruned by the same rules as results: every long string becomes a placeholder,
    /// e.g. the content of a whole-file write; keys and short values such as the file path stay.
    /// chars4 counts no arguments, but what this frees comes off the provider's figure in the
    /// size recorded.
    #[arg(long)]
    pub clear_inputs: bool,

    /// Remove thinking blocks except in the last N thinking turns (Anthropic's
    /// `clear_thinking_20251015`). Blocks are removed whole, never edited, since a signed block
    /// must stay intact where it is kept; the newest thinking turn always stays, as Anthropic
    /// requires for a turn continuing a tool loop. Without this flag thinking is untouched.
    #[arg(hide_short_help = true, long, value_name = "N")]
    pub keep_thinking: Option<usize>,

    /// Read this config file instead of ./.condense.toml or the user's condense/config.toml:
    /// the knobs' defaults from its `[prune]` block (keys named like the flags: keep,
    /// keep_turns, protect, min_tokens, budget, trigger, clear_at_least, clear_inputs,
    /// keep_thinking). Flags win over the file.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// What to write: the pruned session (jsonl), or what would be pruned as one JSON object
    /// (json: the tokens before and after, counts, and each value with its line, kind, tool and
    /// tokens).
    #[arg(
        short,
        long,
        value_enum,
        value_name = "FORMAT",
        default_value = "jsonl"
    )]
    pub format: PruneFormat,

    /// The old name of --format json, kept for one release.
    #[arg(long, hide = true)]
    pub report: bool,

    /// Prune FILE itself, safely while its agent is still writing it.
    ///
    /// This is the same safe replace as `inject --in-place --rewrite` (a pruned file is
    /// rewritten, never appended to):
    /// FILE is replaced atomically and the original kept as FILE.bak, or FILE.bak.1, FILE.bak.2,
    /// … when that name is taken (a backup is never overwritten); lines the agent appends
    /// meanwhile are kept; a replace is refused while another process has FILE open for
    /// writing. Nothing to prune leaves FILE untouched.
    #[arg(short = 'i', long)]
    pub in_place: bool,

    /// The suffix of the backups --in-place keeps (not empty, no `/`).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SUFFIX",
        default_value = ".bak",
        requires = "in_place",
        value_parser = backup_suffix
    )]
    pub backup_suffix: String,

    /// With --in-place: write without reading the result back first.
    ///
    /// By default the pruned session is read by its agent's rule before anything is written
    /// and checked, in this order: readable (every line a record of the format, none cut off);
    /// newest-message (the newest request a person typed in the live context, byte for byte);
    /// tool-pairs (every call and result still there, no result without its call);
    /// messages (the same messages in the live context, in the same order, but for the lines
    /// dropped whole); untouched (every record the prune did not choose byte-identical, the
    /// others changed in the chosen values only, and nothing added but the line that records
    /// the new context size). A failed check is an error naming it, with FILE left as it was.
    #[arg(hide_short_help = true, long, requires = "in_place")]
    pub no_verify: bool,
}

impl PruneArgs {
    /// Whether the report is asked for instead of the session (`--format json`, or the old
    /// `--report`).
    pub fn reports(&self) -> bool {
        self.report || self.format == PruneFormat::Json
    }
}

/// What `prune` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PruneFormat {
    /// The pruned session, in its own format.
    Jsonl,
    /// One JSON object: what would be pruned.
    Json,
}
