//! Which records a compaction keeps (`--preserve`, the head/tail budgets, `--upto`, ...);
//! shared by `split`, `prompt`, `inject` and `compact` so they always agree.

use clap::Args;

use super::settings::SettingsArgs;
use super::tokenizer::TokenizerArgs;

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
