//! What a failed check is, and what the checks of a compaction ([`super::compaction`]) and of a
//! prune ([`super::pruned`]) share: reading the session before and the result back
//! (`readable`), `tool-pairs`, the newest request a person typed, and how a record is told apart
//! from the others.

use std::collections::HashSet;

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

pub(super) fn failed(check: &'static str, detail: impl Into<String>) -> Failed {
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
pub(super) fn escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The newest request a person typed in `context`, by position (a compaction marker's summary
/// is none, whatever its text, as the plan has it).
pub(super) fn newest_request(context: &[Record]) -> Option<usize> {
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

/// `readable`: `after` (its parts one after the other, see [`Transcript::parse_parts`]) read
/// as `format` by its agent's rule, every line a record (but a malformed line `old` had
/// already), none cut off.
pub(super) fn read_back<'a>(
    old: &Transcript,
    format: FormatId,
    after: &[&'a [u8]],
) -> Result<Transcript<'a>, Failed> {
    let options = LoadOptions {
        from: Some(format),
        skip_invalid: true,
        whole_file: false,
    };
    let new = Transcript::parse_parts(&old.name, after, options)
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
pub(super) fn tool_pairs(old: &Transcript, new: &Transcript) -> Result<(), Failed> {
    let answered_by_orphans = |t: &Transcript| -> Vec<(usize, Vec<String>)> {
        orphaned_results(t.context())
            .into_iter()
            .map(|position| {
                let ids = t.context()[position]
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
                new.context()[position].line,
                new_orphans.len()
            ),
        ));
    }
    Ok(())
}
