//! Gemini CLI (`~/.gemini/tmp/<project>/chats/session-<date>-<id>.jsonl`, the JSONL layout):
//! everything condense knows of its sessions.
//!
//! - `read`: a metadata line, `$set` updates, `$rewindTo` rewinds and message records (`user`,
//!   `gemini` turns with their thoughts and tool calls); it writes no compaction marker;
//! - `legacy`: the legacy session file (one JSON document, before 0.39), read as the JSONL
//!   Gemini CLI 0.61 converts it to, and written back into that JSONL beside it;
//! - `live`: the ordered map of messages that updates replace and rewinds cut;
//! - `compact`: the file written anew with the summary as a user turn, as its own compression
//!   holds it in memory;
//! - `prune`: tool results (and `resultDisplay`), call arguments, thoughts; a `$set` after;
//! - `handoff`: a new session, its metadata holding the project's hash;
//! - `home`: `$GEMINI_CLI_HOME/.gemini/tmp/*/chats`;
//! - `trigger`: its compression threshold, and the windows it gives Gemini models.

mod compact;
mod handoff;
mod home;
mod legacy;
mod live;
// Qwen Code, a fork of Gemini CLI, keeps its messages as Gemini `Content`: its folder reads
// their parts (`read::content_parts`), and finds their tool results for prune
// (`prune::response_site`), with these modules' code.
pub(crate) mod prune;
pub(crate) mod read;
mod trigger;

/// The Gemini CLI JSONL session format.
pub struct Gemini;
