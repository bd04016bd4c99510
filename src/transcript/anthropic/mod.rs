//! Anthropic Messages API messages, one per line: a message list no agent keeps as its
//! session, which condense reads, compacts and writes all the same.
//!
//! - `read`: a line is one message, its content a string or content blocks;
//! - `compact`: the summary as a user message after the kept leading records, then the tail;
//! - `prune`: `tool_result` content, `tool_use` input, thinking blocks (Claude Code's messages
//!   are Anthropic's, and its folder asks this one where their values are);
//! - `handoff`: a new list, its content as text blocks.
//!
//! No agent keeps such a list, so it has no session folder and no trigger of its own, and its
//! live context is every record, in file order (the default [`LiveRule`] and [`Trigger`]).

mod compact;
mod handoff;
mod home;
pub(crate) mod prune;
mod read;

use crate::transcript::live::LiveRule;
use crate::transcript::trigger::Trigger;

/// The Anthropic Messages API format.
pub struct Anthropic;

impl LiveRule for Anthropic {}

impl Trigger for Anthropic {}
