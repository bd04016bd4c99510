//! The checks of a compaction (`inject`, `compact`): the result read back by its agent's rule
//! and held against the session before and what the plan did with it (see the module docs of
//! [`crate::verify`] for the list).

use std::collections::{HashMap, HashSet};

use super::checks::{
    escaped, failed, identity, newest_request, read_back, read_before, tool_pairs, Failed, Identity,
};
use crate::transcript::classify::{is_real_user_request, text_of};
use crate::transcript::load::Transcript;
use crate::transcript::write::Compacted;
use crate::transcript::{Event, FormatId, Keep, Part, Record, Role};

/// What a compaction's plan did with the records of the session it compacted (indexes into
/// [`Transcript::records`]): what the checks hold the result against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Planned {
    /// The records the summary replaces.
    pub summarised: Vec<usize>,
    /// The records kept as they are: the lead, the head, the tail (the kept request with it).
    pub kept: Vec<usize>,
    /// The user messages' texts kept beside the summary (kimi-code's user mode), oldest first,
    /// with the elision marker where messages were left out.
    pub kept_texts: Vec<String>,
}

impl Planned {
    /// What `compacted`, a writer's input, says the plan did.
    pub fn of(compacted: &Compacted) -> Self {
        Planned {
            summarised: compacted.summarised.clone(),
            kept: [&compacted.lead, &compacted.head, &compacted.tail]
                .into_iter()
                .flatten()
                .copied()
                .collect(),
            kept_texts: compacted.kept_user_texts.clone(),
        }
    }
}

/// Checks `after`, the compaction of `before` with `summary` by `planned`, as the agent of
/// `before`'s format (`from`, else detected) reads it.
pub fn check(
    name: &str,
    from: Option<FormatId>,
    before: &[u8],
    after: &[u8],
    summary: &str,
    planned: &Planned,
) -> Result<(), Failed> {
    let old = read_before(name, from, before)?;
    check_against(&old, &[after], summary, planned)
}

/// Checks `after`, the compaction of `old` (a session read by its agent's rule, not
/// `--whole-file`) with `summary` by `planned`, as that agent reads it. `after` is the bytes
/// written, in parts read one after the other (the session as it was, then the records a
/// compaction appends to it), each but the last ending at a line end.
pub fn check_against(
    old: &Transcript,
    after: &[&[u8]],
    summary: &str,
    planned: &Planned,
) -> Result<(), Failed> {
    let Some(format) = old.format else {
        return Ok(());
    };
    let new = read_back(old, format, after)?;
    let marker = marker(old, &new, format)?;
    let written = summary_in_context(&new, summary)?;
    if let Some(marker) = marker {
        references(&new, marker)?;
    }
    summarised_gone(old, &new, format, written, planned)?;
    tool_pairs(old, &new)?;
    newest_message(old, &new, written, planned)
}

/// `summary`, for the formats that mark a compaction with a record of their own (kimi-cli and
/// Gemini CLI sessions are rewritten with the summary as a message): the newest marker of the
/// live context of `new`, which must be one this run wrote.
fn marker(old: &Transcript, new: &Transcript, format: FormatId) -> Result<Option<usize>, Failed> {
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
    Ok(marker)
}

/// Where the summary is written in the live context: the position of its record and the
/// offset in that record's bytes just past the summary's text.
type Written = Option<(usize, usize)>;

/// `summary`: the whole summary (its text as a JSON string holds it) is in a record of the
/// live context of `new`; the newest such record, and where in it the summary ends.
fn summary_in_context(new: &Transcript, summary: &str) -> Result<Written, Failed> {
    let text = summary.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let needle = escaped(text);
    let written = new
        .context()
        .iter()
        .enumerate()
        .rev()
        .find_map(|(position, r)| {
            let start = memchr::memmem::rfind(r.raw, needle.as_bytes())?;
            Some((position, start + needle.len()))
        });
    match written {
        Some(written) => Ok(Some(written)),
        None => Err(failed("summary", "the summary is not in the live context")),
    }
}

/// `references`: the marker's references resolve in `transcript`.
fn references(transcript: &Transcript, marker: usize) -> Result<(), Failed> {
    let ids: HashSet<_> = transcript
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

/// `summarised-gone`: no message `planned` summarised is in the live context of `new` (the
/// bookkeeping a format keeps there never reaches the model; the user messages an agent's own
/// rule lists beside its summary, Copilot's, are its choice). A record with an id is there when
/// a record of the context has its id (and no kept record does); one without, when the
/// context holds more lines with its bytes than the kept records do. A line whose text the mode keeps beside the summary (kimi-code's user mode) is kept, not left: its
/// new line may well have the same bytes. The record this run wrote the summary into is never a
/// left-over, though it may have the bytes of an earlier summary it replaces (the same summary
/// injected twice).
fn summarised_gone(
    old: &Transcript,
    new: &Transcript,
    format: FormatId,
    written: Written,
    planned: &Planned,
) -> Result<(), Failed> {
    let mut kept: HashMap<Identity, usize> = HashMap::new();
    for record in planned.kept.iter().filter_map(|&i| old.records.get(i)) {
        *kept.entry(identity(record)).or_default() += 1;
    }
    let mut live: HashMap<Identity, (usize, usize)> = HashMap::new();
    let summary_record = written.map(|(position, _)| position);
    // Where the agent's rule lists the user's messages beside its summary (Copilot), those
    // before the newest marker are its own choice.
    let marker = new.context().iter().rposition(|r| r.compaction);
    let listed = |position: usize, record: &Record| {
        format.format().lists_users_beside_summary()
            && marker.is_some_and(|m| position < m)
            && record.message().is_some_and(is_real_user_request)
    };
    for (position, record) in new.context().iter().enumerate() {
        if Some(position) == summary_record || listed(position, record) {
            continue;
        }
        let entry = live.entry(identity(record)).or_insert((0, record.line));
        entry.0 += 1;
    }
    let kept_text = |record: &Record| {
        record
            .message()
            .is_some_and(|m| planned.kept_texts.contains(&text_of(m)))
    };
    let summarised_messages = planned
        .summarised
        .iter()
        .filter_map(|&i| old.records.get(i))
        .filter(|r| r.message().is_some_and(|m| !m.sidechain));
    for record in summarised_messages {
        let identity = identity(record);
        let Some(&(count, line)) = live.get(&identity) else {
            continue;
        };
        let left = match identity {
            Identity::Id(_) => !kept.contains_key(&identity),
            Identity::Bytes(_) => {
                count > kept.get(&identity).copied().unwrap_or(0) && !kept_text(record)
            }
        };
        if left {
            let by = match identity {
                Identity::Id(_) => "its id",
                Identity::Bytes(_) => "its bytes",
            };
            return Err(failed(
                "summarised-gone",
                format!(
                    "line {} of the session, which the summary replaces, is in the live context \
                     as line {line} (by {by})",
                    record.line
                ),
            ));
        }
    }
    Ok(())
}

/// `newest-message`: the newest request a person typed in `old`'s live context is in `new`'s
/// verbatim: its record kept, or a user message after the summary with its text byte for byte,
/// or (pi, whose marker carries it) its text in the summary's record after the summary; in
/// kimi-code's user mode, the text the mode keeps of it (the whole, or the end of one over its
/// budget) as a user message or message part of its own, or after the summary in its record.
fn newest_message(
    old: &Transcript,
    new: &Transcript,
    written: Written,
    planned: &Planned,
) -> Result<(), Failed> {
    let Some(position) = newest_request(old.context()) else {
        return Ok(());
    };
    let request = &old.context()[position];
    let text = request.message().map(text_of).unwrap_or_default();
    let context = new.context();
    let after_summary = written.map_or(0, |(position, _)| position + 1);
    let in_summary_record = |text: &str| {
        written.is_some_and(|(position, end)| paragraph_in(&context[position].raw[end..], text))
    };
    let kept = context.iter().any(|r| r.raw == request.raw);
    let after = context[after_summary.min(context.len())..]
        .iter()
        .any(|r| user_text(r).is_some_and(|t| t == text));
    if kept || after || in_summary_record(&text) {
        return Ok(());
    }
    // kimi-code's user mode keeps its newest user message, or the end of one over its budget.
    let kept_text = planned
        .kept_texts
        .last()
        .filter(|kept| !kept.is_empty() && text.ends_with(kept.as_str()));
    if let Some(kept_text) = kept_text {
        let as_message = context.iter().any(|r| {
            user_text(r).is_some_and(|t| t == *kept_text)
                || r.message().is_some_and(|m| {
                    m.parts
                        .iter()
                        .any(|p| matches!(p, Part::Text(t) if t.as_ref() == kept_text))
                })
        });
        if as_message || in_summary_record(kept_text) {
            return Ok(());
        }
    }
    // A plan that summarises the request (a cut or a budget that leaves it out) is not the
    // writer's fault, but the agent would carry on without its question all the same.
    let record = old.record_index(position);
    let why = if planned.summarised.contains(&record) {
        "the plan summarises it and keeps it whole nowhere beside the summary (--preserve \
         keeps it; --no-verify writes anyway)"
    } else {
        "neither kept nor after the summary"
    };
    Err(failed(
        "newest-message",
        format!(
            "the newest user request (line {} of the session) is not in the live context \
             verbatim: {why}",
            request.line
        ),
    ))
}

/// Whether `text` is a paragraph of its own in `raw`, a stretch of a JSON string: after a line
/// end, and before one or the string's end (not the start of a longer line).
fn paragraph_in(raw: &[u8], text: &str) -> bool {
    let needle = format!("\\n{}", escaped(text));
    memchr::memmem::find_iter(raw, needle.as_bytes()).any(|at| {
        let rest = &raw[at + needle.len()..];
        rest.starts_with(b"\\n") || rest.starts_with(b"\"")
    })
}

/// The text of a user message.
fn user_text(record: &Record) -> Option<String> {
    record
        .message()
        .filter(|m| m.role == Role::User && !m.sidechain)
        .map(text_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIMI_BEFORE: &[u8] = b"{\"role\":\"user\",\"content\":\"first question\"}\n\
        {\"role\":\"assistant\",\"content\":\"first answer\"}\n\
        {\"role\":\"user\",\"content\":\"newest question\"}\n\
        {\"role\":\"assistant\",\"content\":\"newest answer\"}\n";

    /// The tail plan of `KIMI_BEFORE`: the first two records summarised, the last two kept.
    fn tail_plan() -> Planned {
        Planned {
            summarised: vec![0, 1],
            kept: vec![2, 3],
            kept_texts: Vec::new(),
        }
    }

    fn kimi(after: &str) -> Result<(), Failed> {
        check(
            "s",
            None,
            KIMI_BEFORE,
            after.as_bytes(),
            "SUMMARY one\n",
            &tail_plan(),
        )
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
        let left = "{\"role\":\"user\",\"content\":\"SUMMARY one\"}\n\
            {\"role\":\"assistant\",\"content\":\"first answer\"}\n\
            {\"role\":\"user\",\"content\":\"newest question\"}\n";
        assert_eq!(check(left), "summarised-gone");
    }

    #[test]
    fn the_newest_request_only_quoted_by_the_summary_is_not_kept() {
        let summary = "SUMMARY one: the user asked \"newest question\"";
        let after = format!(
            "{}\n{{\"role\":\"assistant\",\"content\":\"newest answer\"}}\n",
            serde_json::json!({"role": "user", "content": summary})
        );
        let planned = Planned {
            summarised: vec![0, 1, 2],
            kept: vec![3],
            kept_texts: Vec::new(),
        };
        let failed = check("s", None, KIMI_BEFORE, after.as_bytes(), summary, &planned);
        assert_eq!(failed.unwrap_err().check, "newest-message");
        // Written after the summary's text in its record (as pi's marker carries it), it is.
        let carried = format!("{summary}\n\n## Request\n\nnewest question");
        let after = format!(
            "{}\n{{\"role\":\"assistant\",\"content\":\"newest answer\"}}\n",
            serde_json::json!({"role": "user", "content": carried})
        );
        let kept = check("s", None, KIMI_BEFORE, after.as_bytes(), summary, &planned);
        assert_eq!(kept, Ok(()));
    }

    #[test]
    fn a_line_repeated_in_the_kept_tail_is_not_a_summarised_one_left() {
        let before = b"{\"role\":\"user\",\"content\":\"go on\"}\n\
            {\"role\":\"assistant\",\"content\":\"a\"}\n\
            {\"role\":\"user\",\"content\":\"go on\"}\n\
            {\"role\":\"assistant\",\"content\":\"b\"}\n";
        let planned = Planned {
            summarised: vec![0, 1],
            kept: vec![2, 3],
            kept_texts: Vec::new(),
        };
        let run = |after: &str| check("s", None, before, after.as_bytes(), "S", &planned);
        let good = "{\"role\":\"user\",\"content\":\"S\"}\n\
            {\"role\":\"user\",\"content\":\"go on\"}\n\
            {\"role\":\"assistant\",\"content\":\"b\"}\n";
        assert_eq!(run(good), Ok(()));
        let twice = "{\"role\":\"user\",\"content\":\"S\"}\n\
            {\"role\":\"user\",\"content\":\"go on\"}\n\
            {\"role\":\"user\",\"content\":\"go on\"}\n\
            {\"role\":\"assistant\",\"content\":\"b\"}\n";
        assert_eq!(run(twice).unwrap_err().check, "summarised-gone");
    }

    #[test]
    fn a_pi_marker_keeping_an_entry_off_the_path_fails_its_references() {
        let before = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n\
            {\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"question\"}],\"timestamp\":1}}\n\
            {\"type\":\"message\",\"id\":\"e2\",\"parentId\":\"e1\",\"timestamp\":\"t\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"answer\"}],\"timestamp\":2}}\n";
        let marker = |kept: &str| {
            format!(
                "{before}{{\"type\":\"compaction\",\"id\":\"c1\",\"parentId\":\"e2\",\"timestamp\":\"t\",\"summary\":\"SUMMARY one\\n\\n## Request\\n\\nquestion\",\"firstKeptEntryId\":\"{kept}\",\"tokensBefore\":5}}\n"
            )
        };
        let planned = Planned {
            summarised: vec![1],
            kept: vec![2],
            kept_texts: Vec::new(),
        };
        let run = |after: &str| {
            check(
                "s",
                None,
                before.as_bytes(),
                after.as_bytes(),
                "SUMMARY one",
                &planned,
            )
        };
        assert_eq!(run(&marker("e2")), Ok(()));
        assert_eq!(run(&marker("nowhere")).unwrap_err().check, "references");
        // Kept from the summarised entry: the request is on the path again.
        assert_eq!(run(&marker("e1")).unwrap_err().check, "summarised-gone");
    }
}
