//! The whole command-line surface, in clap derive. The `///` comments are the `--help` text.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use crate::prompts::Style;
use crate::sessions::Agent;
use crate::settings::MaxContext;
use crate::tokens::{bpe, Estimator, Family, Tokenizer};
use crate::transcript::FormatId;

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

/// Where the one transcript of `split`, `prompt`, `inject`, `caveman` and `bare` comes from,
/// and how it is read.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The transcript file, or a directory (its newest session file); none, or `-`, reads
    /// standard input.
    ///
    /// One transcript: a second FILE is a usage error.
    #[arg(value_name = "FILE", conflicts_with_all = ["latest", "session", "hook"])]
    pub file: Option<PathBuf>,

    /// Which session, when it is not named by FILE.
    #[command(flatten)]
    pub find: FindArgs,

    /// How it is read.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Where the transcripts of `estimate` come from, and how they are read.
#[derive(Debug, Args)]
pub struct FilesArgs {
    /// Transcript files, or directories searched for session files; none, or `-`, reads
    /// standard input.
    ///
    /// A directory is searched for `*.jsonl` files (also `.gz` and `.zst`), without sub-agent
    /// and side files.
    #[arg(value_name = "FILE", conflicts_with_all = ["latest", "session", "hook"])]
    pub files: Vec<PathBuf>,

    /// Also read the files named in LIST, one per line or NUL-separated (`find -print0`);
    /// `-` reads the list from standard input.
    #[arg(hide_short_help = true, long, value_name = "LIST", conflicts_with_all = ["latest", "session", "hook"])]
    pub files_from: Option<PathBuf>,

    /// Which session, when it is not named by FILE.
    #[command(flatten)]
    pub find: FindArgs,

    /// How they are read.
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Finding a session without naming its file.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pick").args(["latest", "session"])))]
pub struct FindArgs {
    /// Read the newest session of any known agent (of --agent, if given).
    ///
    /// That is the session file written last in Claude Code, Codex, kimi-cli, pi and Gemini
    /// CLI's places (see `condense sessions`).
    #[arg(short, long)]
    pub latest: bool,

    /// Read the session with this id (or the start of it): a Claude Code, Codex or pi file name,
    /// a kimi-cli session directory, a Gemini CLI session.
    #[arg(hide_short_help = true, long, value_name = "ID")]
    pub session: Option<String>,

    /// With --latest or --session: search only this agent's place.
    #[arg(
        hide_short_help = true,
        long,
        value_enum,
        value_name = "AGENT",
        requires = "pick"
    )]
    pub agent: Option<Agent>,

    /// Read the transcript named by `transcript_path` in the JSON object on standard input, as
    /// Claude Code hands it to hooks and the status line.
    #[arg(hide_short_help = true, long, conflicts_with = "pick")]
    pub hook: bool,
}

/// How transcripts are read; shared by every command that reads one.
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The transcript format, instead of detecting it from the first lines.
    ///
    /// Detection also checks that the first lines are of one format. Naming a format that no
    /// line of the input is a message in is an error.
    #[arg(hide_short_help = true, long, value_name = "FORMAT")]
    pub from: Option<FormatId>,

    /// Skip malformed lines (and say how many on stderr) instead of failing.
    #[arg(hide_short_help = true, long)]
    pub skip_invalid: bool,

    /// Work on every record of the file, in file order, instead of the live context: the path
    /// to the agent's active leaf since its latest compaction, without abandoned branches,
    /// earlier epochs or sub-agent lines.
    #[arg(hide_short_help = true, long)]
    pub whole_file: bool,
}

/// Which records a compaction keeps; shared by `split`, `prompt` and `inject` so the three
/// always agree.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Keep the last N user/assistant messages and everything after the first of them.
    ///
    /// This is kimi-cli's rule, and the default mode, with N = 2, unless a preset or the config
    /// file says otherwise. A message is one as the model received it: the lines of one
    /// response are one, and a tool call travels with its result. The user's newest request
    /// is kept too, after the summary, when the N messages do not reach back to it.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub preserve: Option<i64>,

    /// Keep the session's first request within this many tokens and compact the middle
    /// (ACF's head/tail mode; the tail budget defaults to 1000).
    #[arg(hide_short_help = true, long, value_name = "TOKENS", conflicts_with_all = ["keep_user_tokens", "upto"])]
    pub head_tokens: Option<u64>,

    /// Keep the most recent output within this many tokens (ACF's head/tail mode; the head
    /// budget defaults to 500).
    #[arg(hide_short_help = true, long, value_name = "TOKENS", conflicts_with_all = ["keep_user_tokens", "upto"])]
    pub tail_tokens: Option<u64>,

    /// Compact everything and keep real user messages within this many tokens beside the
    /// summary, the oldest and the newest, with an elision marker between (kimi-code's rule;
    /// it uses 20000).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "TOKENS",
        conflicts_with = "upto"
    )]
    pub keep_user_tokens: Option<u64>,

    /// With --keep-user-tokens: the part of the budget given to the oldest user messages
    /// (default 2000).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "TOKENS",
        requires = "keep_user_tokens"
    )]
    pub user_head_tokens: Option<u64>,

    /// Compact exactly the records before this one: a record index (0-based) or a record id
    /// (Claude Code uuid, pi id, …). Nothing else is preserved but what follows it.
    #[arg(hide_short_help = true, long, value_name = "INDEX|ID")]
    pub upto: Option<String>,

    /// How tokens are counted.
    #[command(flatten)]
    pub tokens: TokenizerArgs,

    /// Where the defaults come from.
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// Presets and the config file: the defaults of the trigger and of what a compaction keeps.
/// Flags win over the config file, the file over a preset.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Take the trigger and budgets of an agent or guide: kimi (the default), kimi-code, acf,
    /// checkpoint, claude-code, codex, gemini.
    ///
    /// Their numbers and sources are in `man condense`.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,

    /// Read this config file instead of ./.condense.toml or the user's
    /// condense/config.toml.
    #[arg(hide_short_help = true, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

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

/// `compact --style`: the style, and whether the command line gave it. An explicit style wins
/// over the config file's prompt, which wins over the default (as `prompt --style` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleFlag {
    /// The style named, or the default.
    pub style: Style,
    /// Whether the command line named it.
    pub given: bool,
}

impl StyleFlag {
    /// The style, when the command line named one.
    pub fn explicit(self) -> Option<Style> {
        self.given.then_some(self.style)
    }
}

// By hand rather than derived, because only the parsed matches tell a default from a value
// the user typed; the argument is the one the derive made (`--style <STYLE>`, its help and
// default).
impl clap::FromArgMatches for StyleFlag {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(StyleFlag {
            style: matches
                .get_one::<Style>("style")
                .copied()
                .unwrap_or(Style::Structured),
            given: matches.value_source("style") == Some(clap::parser::ValueSource::CommandLine),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for StyleFlag {
    fn augment_args(command: clap::Command) -> clap::Command {
        command.arg(
            clap::Arg::new("style")
                .long("style")
                .value_name("STYLE")
                .value_parser(clap::builder::EnumValueParser::<Style>::new())
                .action(clap::ArgAction::Set)
                .default_value("structured")
                .help("The prompt body that follows the compacted messages (the config file's prompt wins over the default)"),
        )
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

/// Output forms of the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RequestFormat {
    /// The user message as one text, for LLM CLIs that read stdin.
    Text,
    /// The two request messages, system then user, one JSON object per line.
    Jsonl,
    /// A complete chat-completions request body with no tools, ready for `curl -d @-`.
    Openai,
    /// A complete Anthropic Messages request body with no tools, ready for `curl -d @-`.
    Anthropic,
}

/// The arguments of `condense prompt`.
#[derive(Debug, Args)]
pub struct PromptArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// Which records to keep.
    #[command(flatten)]
    pub plan: PlanArgs,

    /// Print the compactor's system prompt and nothing else.
    #[arg(long, conflicts_with_all = ["style", "prompt_file", "instructions", "plan_file"])]
    pub system: bool,

    /// Print the prompt body of --style (or --prompt-file, with --instructions) and nothing
    /// else, as the compaction prompt of an agent that summarises by itself (Codex
    /// `compact_prompt`).
    #[arg(hide_short_help = true, long, conflicts_with_all = ["system", "plan_file"])]
    pub body: bool,

    /// The prompt body that follows the compacted messages (default structured, or the config
    /// file's prompt).
    #[arg(long, value_enum)]
    pub style: Option<Style>,

    /// Use this file's text as the prompt body instead of a style.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "FILE",
        conflicts_with = "style"
    )]
    pub prompt_file: Option<PathBuf>,

    /// A focus for the summary, appended after the body under the custom-instruction marker.
    #[arg(hide_short_help = true, long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// Output form.
    #[arg(short, long, value_enum, default_value = "text")]
    pub format: RequestFormat,

    /// The model named in request bodies (default gpt-4o-mini for openai, claude-haiku-4-5 for
    /// anthropic, or the config file's compaction_model; its settings_overrides join the body).
    #[arg(hide_short_help = true, long, value_name = "NAME")]
    pub model: Option<String>,

    /// The most tokens the summary may have: `max_tokens` of `--format anthropic` request
    /// bodies, which the Messages API requires.
    ///
    /// `--reply-tokens` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "reply-tokens",
        value_name = "TOKENS",
        default_value_t = 8192
    )]
    pub summary_tokens: u64,

    /// Also write the plan (the JSON `split` prints) to this file, for `inject --plan`.
    #[arg(hide_short_help = true, long = "plan", value_name = "FILE")]
    pub plan_file: Option<PathBuf>,

    /// Fit the request to the LLM into this many tokens (by --tokenizer's count).
    ///
    /// Tool-result bodies are shrunk first (oldest first, todo and plan tools last), then long
    /// texts cut in their middle, the user's own words last; a previous summary is never cut.
    /// Exit 1, saying by how much, when it cannot fit. The plan records what was cut.
    ///
    /// `--max-tokens` is its old name, kept for one release (LLM APIs use that name for the
    /// reply).
    #[arg(long, alias = "max-tokens", value_name = "TOKENS")]
    pub request_tokens: Option<u64>,
}

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

/// Handing a session to another agent, shared by `inject` and `compact`.
#[derive(Debug, Args)]
pub struct HandoffArgs {
    /// Start a new session of this agent instead (openai: kimi-cli's context.jsonl).
    ///
    /// It opens with the summary, then carries the plan's kept tail: user and assistant text
    /// as messages, every tool call and result written out as text in the assistant's turn
    /// (the target has other tools), thinking and the source's own injected context left out,
    /// user and assistant alternating. Ids are derived from the input, timestamps count on from
    /// the source's last one (the clock, when it records none). FILE is not changed.
    #[arg(long, value_name = "FORMAT", conflicts_with = "enabled")]
    pub to: Option<FormatId>,

    /// With --to: the working directory the new session belongs to, instead of the one the
    /// source records (Claude Code, Codex, pi and Gemini CLI sessions need one; kimi-cli and
    /// plain lists record none, Gemini CLI only a hash of it).
    #[arg(hide_short_help = true, long, value_name = "DIR", requires = "to")]
    pub cwd: Option<String>,

    /// With --to: the model the new session's assistant turns name, instead of the one the
    /// source records (pi needs one; PROVIDER/MODEL names pi's provider too).
    ///
    /// `--model` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "model",
        value_name = "NAME",
        requires = "to"
    )]
    pub to_model: Option<String>,

    /// With --to: write the session where the agent keeps its sessions under DIR (its home:
    /// ~/.claude, ~/.codex, ~/.pi/agent, ~/.kimi) instead of to standard output, and print the
    /// command that resumes it.
    ///
    /// Claude Code: DIR/projects/SLUG/ID.jsonl (SLUG: the working directory, every character
    /// but letters and digits made -); Codex: DIR/sessions/YYYY/MM/DD/rollout-TIME-ID.jsonl;
    /// pi: DIR/sessions/--PATH--/TIME_ID.jsonl (PATH: the working directory, / made -);
    /// kimi-cli: DIR/sessions/MD5/ID/context.jsonl (MD5: of the working directory, which is
    /// added to DIR/kimi.json); Gemini CLI (whose folders come from a registry of its own):
    /// DIR/session-TIME-ID.jsonl, resumed by path. An
    /// existing file is never overwritten.
    #[arg(hide_short_help = true, long, value_name = "DIR", requires = "to")]
    pub to_session_dir: Option<PathBuf>,
}

/// Writing the session file itself, shared by the commands that compact it.
#[derive(Debug, Args)]
pub struct InPlaceArgs {
    /// Compact FILE itself, safely while its agent is still writing it.
    ///
    /// Where the result only adds records at the end (the append-only formats: Claude Code,
    /// Codex, pi), they are appended in one write: lines the agent writes meanwhile stay, the
    /// history before them is untouched and no backup is made. Otherwise FILE is replaced
    /// atomically and the original kept as FILE.bak, or FILE.bak.1, FILE.bak.2, … when that name
    /// is taken: a backup is never overwritten, and the highest number is the newest (`ls -v
    /// FILE.bak*`; restore with `mv FILE.bak.N FILE`). A replace is refused while another process
    /// has FILE open for writing. A symlinked FILE: the file it points to is compacted (its
    /// backup goes beside it) and the link is kept. Only regular files.
    #[arg(short = 'i', long = "in-place")]
    pub enabled: bool,

    /// With --in-place: always replace FILE (with a backup) rather than append, for a new file
    /// instead of a longer log.
    #[arg(hide_short_help = true, long, requires = "enabled")]
    pub rewrite: bool,

    /// The suffix of the backups --in-place keeps (not empty, no `/`).
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SUFFIX",
        default_value = ".bak",
        requires = "enabled",
        value_parser = backup_suffix
    )]
    pub backup_suffix: String,

    /// With --in-place: write without reading the result back first.
    ///
    /// By default the compacted session is read by its agent's rule before anything is written
    /// and checked, in this order: readable (every line a record of the format, none cut off);
    /// summary (a compaction marker newer than the session's own, where the agent writes one,
    /// and the whole summary in the live context); references (the marker's references
    /// resolve: Claude Code preservedMessages, pi firstKeptEntryId); summarised-gone (no
    /// message the summary replaces left in the live context, known by its id where the
    /// format has ids, else by its bytes); tool-pairs (every tool result after its call);
    /// newest-message (the newest request a person typed verbatim: kept, or after the
    /// summary). `compact`'s pruned rung is checked as `prune --in-place` is (see `condense
    /// prune --help`). A failed check is an error naming it, with FILE left as it was.
    #[arg(hide_short_help = true, long, requires = "enabled")]
    pub no_verify: bool,
}

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
    /// TodoWrite and TodoRead, Codex update_plan, Gemini CLI write_todos, kimi-cli SetTodoList,
    /// OpenCode todowrite and todoread, todo_write), whose output is the agent's own state of
    /// the task, small and needed until the end; skills (Skill, skill; OpenCode protects these
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

/// A backup suffix: an empty one would name the backup as the session itself, and one with a
/// `/` would put it in another directory.
fn backup_suffix(suffix: &str) -> Result<String, String> {
    if suffix.is_empty() {
        return Err("the backup would be FILE itself; give a suffix such as .bak".to_owned());
    }
    if suffix.contains('/') {
        return Err("a suffix cannot hold `/`: backups stay beside FILE".to_owned());
    }
    Ok(suffix.to_owned())
}

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

    /// Output form.
    #[arg(short, long, value_enum, default_value = "markdown")]
    pub format: CavemanFormat,
}

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

    /// Output form.
    #[arg(short, long, value_enum, default_value = "text")]
    pub format: BareFormat,
}

/// How tokens are counted; shared by the commands that count.
#[derive(Debug, Args)]
pub struct TokenizerArgs {
    /// The estimator [default: the session's own]
    ///
    /// The session's own is fast, weighted for the family of the first model the session names
    /// (Claude's for Claude Code and Anthropic lists that name none, OpenAI's otherwise), and
    /// chars4 for kimi-cli's format. chars4: characters of text and tool-result parts ÷ 4, floored once over the whole sum
    /// (kimi-cli). chars3.5: the same ÷ 3.5. kimi-code: ⌈ascii/4⌉ + non-ascii per string,
    /// plus the role, thinking, tool calls and 2000 per media part. fast: a one-pass
    /// character-class estimate of text, thinking, tool results and tool calls, weighted for
    /// the family of the model the session names (fast-openai, fast-claude, fast-claude-4.7
    /// name one). o200k, cl100k: exact OpenAI BPE counts of the same parts as fast. `--preset kimi` counts with chars4 and `--preset kimi-code` with
    /// kimi-code, as those agents do.
    #[arg(short, long, value_enum, value_name = "NAME")]
    pub tokenizer: Option<TokenizerName>,

    /// The old way to name fast's family (--tokenizer fast-claude is --family claude), kept
    /// for one release.
    #[arg(hide = true, long, value_enum)]
    pub family: Option<FamilyName>,

    /// The old way to name chars3.5 (--lang es) or chars4 (--lang en), kept for one release.
    #[arg(hide = true, long, value_enum)]
    pub lang: Option<Lang>,
}

impl TokenizerArgs {
    /// The estimator these flags select; `preset` is the one a named preset brings (see
    /// [`crate::settings::Settings::preset_tokenizer`]). With none of them, the session's own.
    pub fn estimator(&self, preset: Option<Tokenizer>) -> anyhow::Result<Estimator> {
        let family = |name: FamilyName| match name {
            FamilyName::Openai => Family::Openai,
            FamilyName::Claude => Family::Claude,
            FamilyName::Claude47 => Family::Claude47,
        };
        let named = match (self.tokenizer, self.lang, self.family) {
            (Some(name), _, _) => Some(name),
            (None, Some(Lang::En), _) => Some(TokenizerName::Chars4),
            (None, Some(Lang::Es), _) => Some(TokenizerName::Chars35),
            (None, None, Some(FamilyName::Openai)) => Some(TokenizerName::FastOpenai),
            (None, None, Some(FamilyName::Claude)) => Some(TokenizerName::FastClaude),
            (None, None, Some(FamilyName::Claude47)) => Some(TokenizerName::FastClaude47),
            (None, None, None) => None,
        };
        let Some(name) = named else {
            return Ok(preset.map_or(Estimator::Session, Estimator::Given));
        };
        let bpe_only = matches!(name, TokenizerName::O200k | TokenizerName::Cl100k);
        if bpe_only && !bpe::AVAILABLE {
            anyhow::bail!("this condense was built without the `bpe` feature, so o200k and cl100k are not available");
        }
        Ok(Estimator::Given(match name {
            TokenizerName::Chars4 => Tokenizer::Chars4,
            TokenizerName::Chars35 => Tokenizer::Chars35,
            TokenizerName::KimiCode => Tokenizer::KimiCode,
            // `--tokenizer fast --family F`, the old spelling of fast-F.
            TokenizerName::Fast => match self.family {
                Some(name) => Tokenizer::Fast(family(name)),
                None => return Ok(Estimator::SessionFamily),
            },
            TokenizerName::FastOpenai => Tokenizer::Fast(Family::Openai),
            TokenizerName::FastClaude => Tokenizer::Fast(Family::Claude),
            TokenizerName::FastClaude47 => Tokenizer::Fast(Family::Claude47),
            TokenizerName::O200k => Tokenizer::O200k,
            TokenizerName::Cl100k => Tokenizer::Cl100k,
        }))
    }
}

/// The estimators, as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TokenizerName {
    /// Characters ÷ 4 (kimi-cli).
    Chars4,
    /// Characters ÷ 3.5 (Spanish).
    #[value(name = "chars3.5")]
    Chars35,
    /// kimi-code's estimator.
    KimiCode,
    /// Character classes, weighted for the family of the session's model.
    Fast,
    /// Character classes, weighted for OpenAI's o200k.
    FastOpenai,
    /// Character classes, weighted for Claude 3 to Opus 4.6.
    FastClaude,
    /// Character classes, weighted for Claude Opus 4.7.
    #[value(name = "fast-claude-4.7")]
    FastClaude47,
    /// Exact o200k_base BPE.
    O200k,
    /// Exact cl100k_base BPE.
    Cl100k,
}

/// Tokenizer families the `fast` estimator has weights for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FamilyName {
    /// o200k-like: OpenAI, also fine for Llama 3, Qwen 3 and Kimi.
    Openai,
    /// Claude 3 to Opus 4.6.
    Claude,
    /// Claude Opus 4.7.
    #[value(name = "claude-4.7")]
    Claude47,
}

/// Transcript languages with their own character rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    /// English (and most code): chars4.
    En,
    /// Spanish: chars3.5.
    Es,
}

/// Output formats of reports. Without `--format`, a terminal gets `text` and a pipe `jsonl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns for a person.
    Text,
    /// One JSON object per line (`json` is its old name, kept for one release).
    #[value(alias = "json")]
    Jsonl,
    /// A Markdown table.
    Markdown,
}

impl ReportFormat {
    /// The format asked for, else `text` at a terminal and `jsonl` for a program.
    pub fn chosen(asked: Option<ReportFormat>) -> ReportFormat {
        asked.unwrap_or(if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            ReportFormat::Text
        } else {
            ReportFormat::Jsonl
        })
    }
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

/// The arguments of `condense doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Session files; none, or `-`, reads standard input (checked only, never repaired).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The transcript format, instead of detecting it from the first lines.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub from: Option<FormatId>,

    /// Write the smallest fixes the agent's rules allow into each FILE: a broken link is
    /// relinked to the nearest earlier record on the chain, a cut-off last line is dropped.
    /// FILE is replaced atomically, the original kept as FILE.bak (or FILE.bak.N), and each
    /// change is printed.
    #[arg(long)]
    pub repair: bool,

    /// The suffix of the backups --repair keeps (not empty, no `/`).
    #[arg(
        long,
        value_name = "SUFFIX",
        default_value = ".bak",
        requires = "repair",
        value_parser = backup_suffix
    )]
    pub backup_suffix: String,

    /// Output format [default: text at a terminal, else jsonl].
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ReportFormat>,
}

/// The arguments of `condense undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// The session file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// List what can be undone, newest first, one JSON object a line; change nothing.
    #[arg(long)]
    pub list: bool,

    /// The suffix of the backups undo keeps of the file it replaces (not empty, no `/`).
    #[arg(long, value_name = "SUFFIX", default_value = ".bak", value_parser = backup_suffix)]
    pub backup_suffix: String,
}

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
    /// $CONDENSE_PREFIX, and its standard output is the summary. Repeatable.
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

/// What `compact` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompactFormat {
    /// The compacted session in its own format.
    Jsonl,
    /// ACF's Markdown document: original request, elision marker, current state, summary.
    Markdown,
    /// A JSON line: the rung taken and the live context's tokens before and after (the
    /// session goes to the file with --in-place, nowhere without).
    Json,
}

/// The arguments of `condense compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Where the transcript comes from.
    #[command(flatten)]
    pub input: InputArgs,

    /// Which records to keep.
    #[command(flatten)]
    pub plan: PlanArgs,

    /// The LLM command that writes the summary (run with `sh -c`; the request on its standard
    /// input, the system prompt in $CONDENSE_SYSTEM).
    #[arg(long, value_name = "CMD")]
    pub llm: Option<String>,

    /// Stop the --llm command (its whole process group) after this many seconds.
    #[arg(
        hide_short_help = true,
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        requires = "llm"
    )]
    pub llm_timeout: u64,

    /// Walk the ladder: write the richest form whose live context fits this many tokens.
    #[arg(short, long, value_name = "TOKENS")]
    pub budget: Option<u64>,

    /// The most tokens the summary may have: a longer LLM summary is refused, the session left
    /// untouched.
    #[arg(hide_short_help = true, long, value_name = "TOKENS")]
    pub summary_tokens: Option<u64>,

    /// Fit the request to the LLM into this many tokens, as `prompt --request-tokens` does.
    ///
    /// `--max-tokens` is its old name, kept for one release.
    #[arg(
        hide_short_help = true,
        long,
        alias = "max-tokens",
        value_name = "TOKENS"
    )]
    pub request_tokens: Option<u64>,

    /// The prompt body of the request.
    #[command(flatten)]
    pub style: StyleFlag,

    /// A focus for the summary, appended under the custom-instruction marker.
    #[arg(hide_short_help = true, long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// What to write.
    #[arg(short, long, value_enum, default_value = "jsonl")]
    pub format: CompactFormat,

    /// Writing FILE itself.
    #[command(flatten)]
    pub in_place: InPlaceArgs,

    /// Handing the session to another agent.
    #[command(flatten)]
    pub handoff: HandoffArgs,
}

/// The arguments of `condense sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// Search these directories instead of the agents' places.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Search only this agent's place.
    #[arg(long, value_enum, value_name = "AGENT", conflicts_with = "dirs")]
    pub agent: Option<Agent>,

    /// Print only the newest session.
    #[arg(long)]
    pub latest: bool,

    /// Print only the session with this id (or the start of it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["latest", "dirs"])]
    pub session: Option<String>,

    /// End each path with a NUL byte instead of a newline (for `xargs -0`, `--files-from`).
    #[arg(hide_short_help = true, short = '0', long, conflicts_with = "format")]
    pub null: bool,

    /// Output form: one path per line (text), or one JSON object per session with its path,
    /// size in bytes and the time it was last written (jsonl).
    #[arg(short, long, value_enum, default_value = "text")]
    pub format: SessionsFormat,
}

/// Output forms of `sessions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SessionsFormat {
    /// One path per line.
    Text,
    /// One JSON object per session: `path`, `bytes`, `modified` (RFC 3339, UTC).
    Jsonl,
}

/// The arguments of `condense completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// The arguments of `condense man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The directory to write the pages into (a `man1` directory on the MANPATH).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Create DIR and its parents when missing, as `mkdir -p` does (else a missing DIR is an
    /// error: a mistyped path would hide the pages where `man` never looks).
    #[arg(short, long)]
    pub parents: bool,
}

/// The arguments of `condense recipes`.
#[derive(Debug, Args)]
pub struct RecipesArgs {
    /// The recipe to print: its path as listed (`pi/pi-compact.sh`) or its agent (`pi`).
    #[arg(value_name = "NAME", conflicts_with = "dir")]
    pub name: Option<String>,

    /// Write every recipe into this existing directory, each in its agent's folder.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
