//! `--verify`: a compacted session read back by its agent's live-context rule and checked for
//! what the agent needs before it is written anywhere (pure). The commands build the whole
//! result, run [`check`] on it, and write it only when every check passes, so a failed check
//! leaves the session as it was: there is nothing to roll back.
//!
//! The checks, by name:
//!
//! - `readable`: every line of the result reads as a record of the format, none cut off;
//! - `summary`: the live context holds a compaction marker newer than the session's own, and
//!   the summary's text in it;
//! - `references`: the marker's references resolve (Claude Code `preservedMessages` and
//!   `preservedSegment`, pi `firstKeptEntryId` on the path, Droid `anchorMessage` in the file);
//! - `tool-pairs`: every tool result of the live context answers a call before it there;
//! - `newest-message`: the newest message before the compaction, or the newest request a person
//!   typed (what the user-message modes keep), is in the live context verbatim after the
//!   summary.

pub mod corrupt;

use crate::doctor::tools::orphaned_results;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::{Event, FormatId, Keep, Part, Record};

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

/// The longest text part of a message (each part is a JSON string of its own in the record,
/// so a part, not their join, is what its bytes hold).
fn text_of(record: &Record) -> Option<String> {
    record
        .message()?
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if !text.as_str().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .max_by_key(|text| text.len())
        .map(str::to_owned)
}

/// `text` as it stands inside a JSON string (what to look for in a record's bytes).
fn escaped(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_owned()
}

/// True when `needle` (JSON-escaped) is in the bytes of one of `records`.
fn in_records(records: &[Record], needle: &str) -> bool {
    let needle = escaped(needle);
    records
        .iter()
        .any(|r| memchr::memmem::find(r.raw, needle.as_bytes()).is_some())
}

/// Checks `after`, the compaction of `before` with `summary`, as the agent of `before`'s
/// format (`from`, else detected) reads it.
pub fn check(
    name: &str,
    from: Option<FormatId>,
    before: &[u8],
    after: &[u8],
    summary: &str,
) -> Result<(), Failed> {
    let options = LoadOptions {
        from,
        skip_invalid: true,
        whole_file: false,
    };
    let old = Transcript::parse(name, before, options)
        .map_err(|e| failed("readable", format!("the session before: {e:#}")))?;
    check_against(&old, after, summary)
}

/// Checks `after`, the compaction of `old` (a session read by its agent's rule, not
/// `--whole-file`) with `summary`, as that agent reads it.
pub fn check_against(old: &Transcript, after: &[u8], summary: &str) -> Result<(), Failed> {
    let Some(format) = old.format else {
        return Ok(());
    };
    let new = read_back(&old.name, format, after)?;
    if let Some(marker) = summary_in_context(old, &new, format, summary)? {
        references(&new, marker)?;
    }
    tool_pairs(&new)?;
    newest_message(old, &new)
}

/// `readable`: `after` read as `format`, every line a record, none cut off.
fn read_back<'a>(name: &str, format: FormatId, after: &'a [u8]) -> Result<Transcript<'a>, Failed> {
    let options = LoadOptions {
        from: Some(format),
        skip_invalid: true,
        whole_file: false,
    };
    let new = Transcript::parse(name, after, options)
        .map_err(|e| failed("readable", format!("{e:#}")))?;
    if let Some(first) = new.skipped.first() {
        return Err(failed("readable", first.clone()));
    }
    if let Some(index) = new.incomplete {
        return Err(failed(
            "readable",
            format!("line {} is cut off", new.lines[index].number),
        ));
    }
    Ok(new)
}

/// `summary`: the live context of `new` holds a marker newer than `old`'s own (where the
/// format marks a compaction) and the summary's first line; the marker, when there is one.
fn summary_in_context(
    old: &Transcript,
    new: &Transcript,
    format: FormatId,
    summary: &str,
) -> Result<Option<usize>, Failed> {
    // The append-only formats mark a compaction with a record of their own; kimi-cli and
    // Gemini CLI sessions are rewritten with the summary as their first message.
    let marked = format.format().compaction_marker().is_some();
    let markers = |t: &Transcript| t.records.iter().filter(|r| r.compaction).count();
    let marker = new
        .live
        .order
        .iter()
        .rev()
        .copied()
        .find(|&i| new.records[i].compaction);
    if marked && (marker.is_none() || markers(new) <= markers(old)) {
        return Err(failed(
            "summary",
            "the live context holds no compaction marker written by this run",
        ));
    }
    let first_line = summary.lines().map(str::trim).find(|l| !l.is_empty());
    if let Some(line) = first_line {
        if !in_records(&new.context, line) {
            return Err(failed("summary", "the summary is not in the live context"));
        }
    }
    Ok(marker)
}

/// `tool-pairs`: every tool result of the live context answers a call before it there.
fn tool_pairs(new: &Transcript) -> Result<(), Failed> {
    let orphans = orphaned_results(&new.context);
    if let Some(&position) = orphans.first() {
        return Err(failed(
            "tool-pairs",
            format!(
                "line {}: a tool result whose call is not in the live context ({} in all)",
                new.context[position].line,
                orphans.len()
            ),
        ));
    }
    Ok(())
}

/// `newest-message`: the newest message of `old`, or its newest request a person typed, is in
/// the live context of `new`.
fn newest_message(old: &Transcript, new: &Transcript) -> Result<(), Failed> {
    // Every mode keeps one of the two: the tail (--preserve, the budgets) its newest message,
    // the user-message modes (kimi-code, Codex) the newest request a person typed.
    let newest_request = old
        .context
        .iter()
        .rev()
        .filter(|r| r.message().is_some_and(is_real_user_request))
        .find_map(text_of);
    // The newest message is kept as its record, byte for byte, or at least its text.
    let newest_message = old
        .context
        .iter()
        .rev()
        .find(|r| r.message().is_some_and(|m| !m.sidechain));
    // (A rewritten format may void a kept record's usage: then its text stands for it.)
    let kept_record = newest_message.is_some_and(|newest| {
        new.context
            .iter()
            .any(|r| memchr::memmem::find(r.raw, newest.raw).is_some())
            || text_of(newest).is_some_and(|t| in_records(&new.context, &t))
    });
    let kept_request = newest_request
        .as_ref()
        .is_some_and(|t| in_records(&new.context, t));
    if (newest_request.is_some() || newest_message.is_some()) && !kept_record && !kept_request {
        return Err(failed(
            "newest-message",
            "neither the newest message nor the newest user request is in the live context \
             after the summary",
        ));
    }
    Ok(())
}

/// The marker's references resolve in `transcript`.
fn references(transcript: &Transcript, marker: usize) -> Result<(), Failed> {
    let ids: std::collections::HashSet<_> = transcript
        .records
        .iter()
        .filter_map(|r| r.link.id)
        .collect();
    let has = |id| ids.contains(&id);
    match &transcript.records[marker].link.event {
        Event::Compaction(Keep::Preserved { anchor, nodes })
            if !has(*anchor) || !nodes.iter().all(|&id| has(id)) =>
        {
            return Err(failed(
                "references",
                "preservedMessages names a uuid the session lacks",
            ));
        }
        Event::Compaction(Keep::Segment { head, anchor, tail })
            if ![head, anchor, tail].into_iter().all(|&id| has(id)) =>
        {
            return Err(failed(
                "references",
                "preservedSegment names a uuid the session lacks",
            ));
        }
        // Droid keeps every message after a summary whose anchor it cannot find.
        Event::Compaction(Keep::After(id)) if !has(*id) => {
            return Err(failed(
                "references",
                "anchorMessage names no message of the session",
            ));
        }
        Event::Compaction(Keep::FromNode(id)) => {
            let on_path = transcript
                .live
                .order
                .iter()
                .any(|&i| transcript.records[i].link.id == Some(*id));
            if !on_path {
                return Err(failed(
                    "references",
                    "firstKeptEntryId names no entry on the path to the leaf",
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIMI_BEFORE: &[u8] = b"{\"role\":\"user\",\"content\":\"first question\"}\n\
        {\"role\":\"assistant\",\"content\":\"first answer\"}\n\
        {\"role\":\"user\",\"content\":\"newest question\"}\n\
        {\"role\":\"assistant\",\"content\":\"newest answer\"}\n";

    fn kimi(after: &str) -> Result<(), Failed> {
        check("s", None, KIMI_BEFORE, after.as_bytes(), "SUMMARY one\n")
    }

    #[test]
    fn a_good_kimi_compaction_passes() {
        let after = "{\"role\":\"user\",\"content\":\"SUMMARY one\"}\n\
            {\"role\":\"user\",\"content\":\"newest question\"}\n\
            {\"role\":\"assistant\",\"content\":\"newest answer\"}\n";
        assert_eq!(kimi(after), Ok(()));
    }

    #[test]
    fn each_check_names_itself() {
        let check = |after: &str| kimi(after).unwrap_err().check;
        assert_eq!(
            check("{\"role\":\"user\",\"content\":\"SUMMARY one\"}\n{\"ro"),
            "readable"
        );
        assert_eq!(
            check("{\"role\":\"user\",\"content\":\"other\"}\n"),
            "summary"
        );
        assert_eq!(
            check("{\"role\":\"user\",\"content\":\"SUMMARY one\"}\n"),
            "newest-message"
        );
        let orphan = "{\"role\":\"user\",\"content\":\"SUMMARY one\"}\n\
            {\"role\":\"tool\",\"tool_call_id\":\"gone\",\"content\":\"ok\"}\n\
            {\"role\":\"assistant\",\"content\":\"newest answer\"}\n";
        assert_eq!(check(orphan), "tool-pairs");
    }

    #[test]
    fn a_pi_marker_keeping_an_entry_off_the_path_fails_its_references() {
        let before = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
            {\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"question\"}],\"timestamp\":1}}\n\
            {\"type\":\"message\",\"id\":\"e2\",\"parentId\":\"e1\",\"timestamp\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"answer\"}],\"timestamp\":2}}\n";
        let marker = |kept: &str| {
            format!(
                "{before}{{\"type\":\"compaction\",\"id\":\"c1\",\"parentId\":\"e2\",\"timestamp\":\"t\",\"summary\":\"SUMMARY one\",\"firstKeptEntryId\":\"{kept}\",\"tokensBefore\":5}}\n"
            )
        };
        let run = |after: &str| {
            check(
                "s",
                None,
                before.as_bytes(),
                after.as_bytes(),
                "SUMMARY one",
            )
        };
        assert_eq!(run(&marker("e2")), Ok(()));
        assert_eq!(run(&marker("nowhere")).unwrap_err().check, "references");
    }
}
