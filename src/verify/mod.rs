//! `--verify`: a session condense is about to write, read back by its agent's live-context rule
//! and checked for what the agent needs before it is written anywhere (pure). The commands build
//! the whole result, run the checks on it, and write it only when every check passes, so a
//! failed check leaves the session as it was: there is nothing to roll back. A failure names
//! its check: `check "summarised-gone" failed: …`.
//!
//! A compaction (`inject`, `compact`; [`check`], [`check_against`]) is checked, in this order:
//!
//! - `readable`: every line of the result reads as a record of the format, none cut off;
//! - `summary`: the live context holds a compaction marker newer than the session's own (the
//!   formats that mark one: Claude Code, Codex, pi), and the whole summary in one record;
//! - `references`: the marker's references resolve (Claude Code `preservedMessages` and
//!   `preservedSegment`, pi `firstKeptEntryId` on the path, Droid
//!   `anchorMessage` in the file);
//! - `summarised-gone`: no message the plan summarised is in the live context. A record is
//!   known by its id where the format gives it one (Claude Code `uuid`, pi `id`, Gemini `id`),
//!   else by its bytes (Codex, OpenAI and kimi-cli lists, Anthropic lists): the live context
//!   holds no more lines with those bytes than the records kept hold;
//! - `tool-pairs`: every tool result of the live context answers a call before it there (a
//!   result the session already had without its call aside);
//! - `newest-message`: the newest request a person typed is in the live context verbatim,
//!   byte for byte as text: as a message after the summary, or as its own record kept; where
//!   the format keeps it inside the marker (pi), after the summary's text there; and in
//!   kimi-code's user mode, as the user message the mode keeps beside the summary (the end of
//!   it, for a request over the mode's budget).
//!
//! A prune (`prune`, `compact`'s pruned rung; [`check_pruned`]) is checked, in this order:
//!
//! - `readable`, as above;
//! - `newest-message`: the newest request a person typed is in the live context, its record
//!   byte for byte;
//! - `tool-pairs`: every call paired with its result before is paired after, and no result
//!   lost its call;
//! - `messages`: the live context holds the same messages in the same order (the lines a prune
//!   drops whole aside: a Claude Code thinking fragment, a Codex reasoning item), each with
//!   its role and its calls' and results' ids;
//! - `untouched`: nothing but the chosen values changed: every record the prune did not choose
//!   is byte-identical (a Claude Code line re-linked past a dropped one differs in its
//!   `parentUuid` only), a record that holds chosen values is the same JSON once those values
//!   are set aside, and nothing follows the last record but the one bookkeeping line that
//!   records the new context size.
//!
//! What the checks need of a format beyond its reader and its live-context rule is in
//! [`identity`], one small function.

mod checks;
mod compaction;
pub mod corrupt;
mod pruned;

pub use checks::{identity, read_before, Failed, Identity};
pub use compaction::{check, check_against, Planned};
pub use pruned::check_pruned;
