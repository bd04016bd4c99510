//! The arguments of `condense prompt`, and the forms the compaction request is printed in.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::plan::PlanArgs;
use super::source::InputArgs;
use crate::prompts::Style;

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
    /// With --hook, by default the `custom_instructions` of Claude Code's PreCompact hook input.
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
