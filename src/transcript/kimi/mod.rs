//! kimi-cli (MoonshotAI/kimi-cli), whose `context.jsonl` is an OpenAI-style chat message list,
//! and any such list (`--from openai`): everything condense knows of them.
//!
//! - `read`: a line is one chat message; kimi-cli's own records (`_system_prompt`,
//!   `_checkpoint`, `_usage`) are bookkeeping, and `_usage` holds the context size;
//! - `compact`: the file rewritten as kimi-cli rewrites it after compacting;
//! - `prune`: tool messages' content, tool calls' arguments, thinking; a fresh `_usage` after;
//! - `handoff`: a new `context.jsonl`;
//! - `home`: `~/.kimi/sessions/<MD5 of the work directory>/<id>/context.jsonl`, and kimi-cli's
//!   list of work directories;
//! - `trigger`: kimi-cli's `compaction_trigger_ratio` and `reserved_context_size`, and the
//!   window of its default model.
//!
//! kimi-cli starts a new file when it compacts, so every record of `context.jsonl` is in the
//! live context: the default [`LiveRule`].

mod compact;
mod handoff;
mod home;
mod prune;
mod read;
mod trigger;

use crate::transcript::live::LiveRule;
use crate::transcript::model::{Entry, Record};

/// kimi-cli's `context.jsonl`, and OpenAI-style chat message lists.
pub struct Kimi;

impl LiveRule for Kimi {}

/// Whether the file is kimi-cli's (it holds kimi-cli's own `_` records) rather than a plain
/// OpenAI message list: only kimi-cli's gets its checkpoint and usage records.
fn is_kimi_file(records: &[Record]) -> bool {
    records
        .iter()
        .any(|r| matches!(&r.entry, Entry::Bookkeeping(kind) if kind.starts_with('_')))
}
