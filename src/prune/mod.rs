//! The pure core of `condense prune`: which old tool outputs, tool-call arguments and thinking
//! blocks of the live context to replace, and the placeholder that says what was there.
//!
//! The knobs are those of Anthropic's server-side context editing, so that users who know it
//! find the same ones: `clear_tool_uses_20250919` (`trigger`, `keep` the most recent tool uses,
//! `clear_at_least`, `exclude_tools`, `clear_tool_inputs`) and `clear_thinking_20251015` (keep
//! the last N thinking turns); plus OpenCode's and Gemini CLI's protection of the newest user
//! turns, a minimum size below which a result is not worth a placeholder, and a target size.
//!
//! The unit of pruning is a *tool use* (a call and its result, paired by id) or a *thinking
//! turn* (one response's thinking). Units are taken oldest first; each is pruned whole (every
//! one of its values that is large enough), and with a target, taking stops as soon as the
//! context fits. Nothing here reads or writes anything: the command measures the values and
//! applies the choice.
//!
//! The parts: `candidate` (a value prune could replace), `options` (the knobs), `context`
//! (where the live context stands), `eligible` (which candidates the rules let be pruned),
//! `choice` ([`choose`]: which of them are, oldest unit first), `placeholder` (what a pruned
//! value becomes).

mod candidate;
mod choice;
mod context;
mod eligible;
mod options;
mod placeholder;

pub use candidate::{Candidate, Target};
pub use choice::{choose, Choice, Nothing};
pub use context::Context;
pub use options::{Options, PROTECTED};
pub use placeholder::{
    argument_placeholder, exit_status, is_placeholder, result_placeholder, Outline, PLACEHOLDER,
};

#[cfg(test)]
mod tests;
