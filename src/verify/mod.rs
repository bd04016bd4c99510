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
//!   `preservedSegment`, pi `firstKeptEntryId` on the path);
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

mod compaction;
pub mod corrupt;
mod pruned;

use std::collections::HashSet;

pub use compaction::{check, check_against, Planned};
pub use pruned::check_pruned;

use crate::doctor::tools::orphaned_results;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::{FormatId, NodeId, Record};

/// A check that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// The check's name.
    pub check: &'static str,
    /// What was wrong.
    pub detail: String,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "check {:?} failed: {}", self.check, self.detail)
    }
}

fn failed(check: &'static str, detail: impl Into<String>) -> Failed {
    Failed {
        check,
        detail: detail.into(),
    }
}

/// How a record is told apart from the others of its session: by its id where the format gives
/// records one (Claude Code `uuid`, pi `id`, Gemini `id`: the reader puts it in the record's
/// link), else by its bytes (Codex rollout items, OpenAI and kimi-cli lines, Anthropic lines,
/// and the lines of the id formats that carry none). The one per-format fact the checks use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Identity<'a> {
    /// The record's id.
    Id(NodeId),
    /// The record's bytes.
    Bytes(&'a [u8]),
}

/// The [`Identity`] of `record`.
pub fn identity<'a>(record: &Record<'a>) -> Identity<'a> {
    match record.link.id {
        Some(id) => Identity::Id(id),
        None => Identity::Bytes(record.raw),
    }
}

/// `text` as it stands inside a JSON string (what to look for in a record's bytes).
fn escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The newest request a person typed in `context`, by position (a compaction marker's summary
/// is none, whatever its text, as the plan has it).
fn newest_request(context: &[Record]) -> Option<usize> {
    context.iter().rposition(|r| {
        !r.compaction
            && r.message()
                .is_some_and(crate::transcript::classify::is_real_user_request)
    })
}

/// The text of each line a transcript skipped as malformed, in the order of its `skipped`.
fn unreadable_lines<'a>(transcript: &Transcript<'a>) -> Vec<&'a [u8]> {
    let read: std::collections::HashSet<usize> = transcript.record_lines.iter().copied().collect();
    transcript
        .lines
        .iter()
        .enumerate()
        .filter(|&(i, line)| {
            !line.is_blank() && !read.contains(&i) && transcript.incomplete != Some(i)
        })
        .map(|(_, line)| line.text)
        .collect()
}

/// The session `before` (named `name`, in format `from` or as detected) as its agent reads
/// it; `readable` fails when it cannot be read.
pub fn read_before<'a>(
    name: &str,
    from: Option<FormatId>,
    before: &'a [u8],
) -> Result<Transcript<'a>, Failed> {
    let options = LoadOptions {
        from,
        skip_invalid: true,
        whole_file: false,
    };
    Transcript::parse(name, before, options)
        .map_err(|e| failed("readable", format!("the session before: {e:#}")))
}

/// `readable`: `after` read as `format` by its agent's rule, every line a record (but a
/// malformed line `old` had already), none cut off.
fn read_back<'a>(
    old: &Transcript,
    format: FormatId,
    after: &'a [u8],
) -> Result<Transcript<'a>, Failed> {
    let options = LoadOptions {
        from: Some(format),
        skip_invalid: true,
        whole_file: false,
    };
    let new = Transcript::parse(&old.name, after, options)
        .map_err(|e| failed("readable", format!("{e:#}")))?;
    // A malformed line the session already had (read past with --skip-invalid) and kept as it
    // was is not this run's doing; any other is.
    let malformed = unreadable_lines(old);
    let made = unreadable_lines(&new)
        .into_iter()
        .position(|line| !malformed.contains(&line));
    if let Some(index) = made {
        return Err(failed("readable", new.skipped[index].clone()));
    }
    if let Some(index) = new.incomplete {
        return Err(failed(
            "readable",
            format!("line {} is cut off", new.lines[index].number),
        ));
    }
    Ok(new)
}

/// `tool-pairs`: every tool result of `new`'s live context answers a call before it there,
/// unless the same result had no call in `old`'s already (what the session held before is not
/// the write's doing).
fn tool_pairs(old: &Transcript, new: &Transcript) -> Result<(), Failed> {
    let answered_by_orphans = |t: &Transcript| -> Vec<(usize, Vec<String>)> {
        orphaned_results(&t.context)
            .into_iter()
            .map(|position| {
                let ids = t.context[position]
                    .message()
                    .map(|m| m.answered_ids().map(str::to_owned).collect())
                    .unwrap_or_default();
                (position, ids)
            })
            .collect()
    };
    let before: HashSet<String> = answered_by_orphans(old)
        .into_iter()
        .flat_map(|(_, ids)| ids)
        .collect();
    let new_orphans: Vec<usize> = answered_by_orphans(new)
        .into_iter()
        .filter(|(_, ids)| !ids.iter().all(|id| before.contains(id)))
        .map(|(position, _)| position)
        .collect();
    if let Some(&position) = new_orphans.first() {
        return Err(failed(
            "tool-pairs",
            format!(
                "line {}: a tool result whose call is not in the live context ({} in all)",
                new.context[position].line,
                new_orphans.len()
            ),
        ));
    }
    Ok(())
}
