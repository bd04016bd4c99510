//! The checks of a prune (`prune`, `compact`'s pruned rung): the result read back by its
//! agent's rule and held against the session before and the values the prune chose (see the
//! module docs of [`crate::verify`] for the list).

use std::collections::HashSet;

use serde_json::Value;

use super::{failed, newest_request, read_back, tool_pairs, Failed};
use crate::transcript::load::Transcript;
use crate::transcript::prune::rewrite::{Edit, Pruned};
use crate::transcript::prune::Shape;
use crate::transcript::write::Step;
use crate::transcript::{Parent, Record, Role};

/// Checks `after`, the session `pruned` describes as written, as its agent reads it. `old` is
/// the session before as the agent reads it: `pruned.transcript` itself, unless that was read
/// `--whole-file` (its records are the same either way; only the live context differs).
pub fn check_pruned(pruned: &Pruned, old: &Transcript, after: &[u8]) -> Result<(), Failed> {
    let Some(format) = old.format else {
        return Ok(());
    };
    let new = read_back(&old.name, format, after)?;
    let dropped: HashSet<usize> = pruned
        .edits
        .iter()
        .filter(|(_, edits)| edits.iter().any(|(site, _)| site.shape == Shape::DropLine))
        .map(|(&record, _)| record)
        .collect();
    newest_message(old, &new)?;
    tool_pairs(old, &new)?;
    calls_answered(old, &new)?;
    messages(old, &new, &dropped)?;
    untouched(pruned, old, &new, &dropped)
}

/// `newest-message`: the record of the newest request a person typed is in the live context,
/// byte for byte (a prune never chooses a value of it).
fn newest_message(old: &Transcript, new: &Transcript) -> Result<(), Failed> {
    let Some(position) = newest_request(&old.context) else {
        return Ok(());
    };
    let request = &old.context[position];
    if new.context.iter().any(|r| r.raw == request.raw) {
        return Ok(());
    }
    Err(failed(
        "newest-message",
        format!(
            "the newest user request (line {} of the session) is not in the live context byte \
             for byte",
            request.line
        ),
    ))
}

/// `tool-pairs`, the other half: every call of the live context before and every call it
/// answered are still there (a result's loss would leave its call unanswered).
fn calls_answered(old: &Transcript, new: &Transcript) -> Result<(), Failed> {
    let ids = |t: &Transcript| -> (HashSet<String>, HashSet<String>) {
        let messages = t.context.iter().filter_map(Record::message);
        let calls = messages
            .clone()
            .flat_map(|m| m.call_ids().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        let answered = messages
            .flat_map(|m| m.answered_ids().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        (calls, answered)
    };
    let (calls_before, answered_before) = ids(old);
    let (calls_after, answered_after) = ids(new);
    let lost = |before: &HashSet<String>, after: &HashSet<String>| before.difference(after).count();
    let (calls, results) = (
        lost(&calls_before, &calls_after),
        lost(&answered_before, &answered_after),
    );
    if calls + results > 0 {
        return Err(failed(
            "tool-pairs",
            format!(
                "{calls} tool calls and {results} tool results of the live context are no \
                 longer in it"
            ),
        ));
    }
    Ok(())
}

/// A message as the `messages` check compares it: its role and the ids of its calls and of
/// the calls it answers.
type Signature = (Role, Vec<String>, Vec<String>);

fn signature(record: &Record) -> Option<Signature> {
    let message = record.message().filter(|m| !m.sidechain)?;
    Some((
        message.role,
        message.call_ids().map(str::to_owned).collect(),
        message.answered_ids().map(str::to_owned).collect(),
    ))
}

/// `messages`: the live context of `new` holds the messages of `old`'s, but for the records
/// dropped whole, in the same order; the record appended after the last one (the new context
/// size) aside.
fn messages(old: &Transcript, new: &Transcript, dropped: &HashSet<usize>) -> Result<(), Failed> {
    let appended_from = old.records.len() - dropped.len();
    let before: Vec<(usize, Signature)> = old
        .live
        .order
        .iter()
        .filter(|i| !dropped.contains(i))
        .filter_map(|&i| Some((old.records[i].line, signature(&old.records[i])?)))
        .collect();
    let after: Vec<(usize, Signature)> = new
        .live
        .order
        .iter()
        .filter(|&&i| i < appended_from)
        .filter_map(|&i| Some((new.records[i].line, signature(&new.records[i])?)))
        .collect();
    let differ = before
        .iter()
        .zip(&after)
        .position(|((_, was), (_, is))| was != is);
    let detail = match differ {
        Some(k) => format!(
            "message {} of the live context is line {} of the session before, line {} now, and \
             they differ",
            k + 1,
            before[k].0,
            after[k].0
        ),
        None if before.len() != after.len() => format!(
            "the live context holds {} messages, {} before",
            after.len(),
            before.len()
        ),
        None => return Ok(()),
    };
    Err(failed("messages", detail))
}

/// `untouched`: the records of `new`, in file order, are those of `old` but for the records
/// dropped whole: byte for byte where the prune chose no value (a Claude Code line whose parent
/// was dropped differs in `parentUuid` only), the same JSON with the chosen values set aside
/// where it chose some; after them at most one record, and no message.
fn untouched(
    pruned: &Pruned,
    old: &Transcript,
    new: &Transcript,
    dropped: &HashSet<usize>,
) -> Result<(), Failed> {
    let dropped_ids: HashSet<_> = dropped
        .iter()
        .filter_map(|&i| old.records[i].link.id)
        .collect();
    let mut written = new.records.iter();
    for (index, record) in old.records.iter().enumerate() {
        if dropped.contains(&index) {
            continue;
        }
        let Some(now) = written.next() else {
            return Err(failed(
                "untouched",
                format!("line {} of the session is gone", record.line),
            ));
        };
        let edits = pruned.edits.get(&index).map_or(&[][..], Vec::as_slice);
        let relinked = matches!(record.link.parent, Parent::Node(id) if dropped_ids.contains(&id));
        if now.raw == record.raw || same_but_chosen(record.raw, now.raw, edits, relinked) {
            continue;
        }
        let what = if edits.is_empty() {
            "which the prune did not choose, changed"
        } else {
            "changed beyond the values the prune chose"
        };
        return Err(failed(
            "untouched",
            format!(
                "line {} of the session, {what} (line {})",
                record.line, now.line
            ),
        ));
    }
    let added: Vec<&Record> = written.collect();
    if added.len() > 1 || added.iter().any(|r| r.message().is_some()) {
        return Err(failed(
            "untouched",
            format!(
                "line {}: {} records follow the session's last, where the prune adds at most \
                 one line of bookkeeping",
                added[0].line,
                added.len()
            ),
        ));
    }
    Ok(())
}

/// Whether `now` is `was` with only the values `edits` chose changed (and `parentUuid`, when
/// `relinked`): both read as JSON, each chosen value (and each copy of a result kept for the
/// agent's user interface) set to null, each removed element removed from `was`.
fn same_but_chosen(was: &[u8], now: &[u8], edits: &[Edit], relinked: bool) -> bool {
    let (Ok(mut was), Ok(mut now)) = (
        serde_json::from_slice::<Value>(was),
        serde_json::from_slice::<Value>(now),
    ) else {
        return false;
    };
    let mut removals: Vec<&[Step]> = edits
        .iter()
        .filter(|(site, _)| site.shape == Shape::Remove)
        .map(|(site, _)| site.path.as_slice())
        .collect();
    let mut masks: Vec<&[Step]> = edits
        .iter()
        .filter(|(site, json)| json.is_some() && site.shape != Shape::Remove)
        .map(|(site, _)| site.path.as_slice())
        .chain(
            edits
                .iter()
                .flat_map(|(site, _)| site.companions.iter().map(Vec::as_slice)),
        )
        .collect();
    let parent = [Step::Key("parentUuid".to_owned())];
    if relinked {
        masks.push(&parent);
    }
    for path in &masks {
        if let Some(value) = at(&mut was, path) {
            *value = Value::Null;
        }
        if let Some(value) = at(&mut now, &moved(path, &removals)) {
            *value = Value::Null;
        }
    }
    // The last element first, so that no removal moves another.
    removals.sort_by_key(|path| std::cmp::Reverse(last_index(path)));
    for path in removals {
        let Some((Step::Index(index), array)) = path.split_last() else {
            return false;
        };
        match at(&mut was, array) {
            Some(Value::Array(elements)) if *index < elements.len() => {
                elements.remove(*index);
            }
            _ => return false,
        }
    }
    was == now
}

/// The value at `path` in `value`.
fn at<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Index(index) => value.get_mut(*index),
    })
}

/// `path` once the elements at `removals` are removed from the arrays they are in: an index
/// after a removed element of the same array moves down by one.
fn moved(path: &[Step], removals: &[&[Step]]) -> Vec<Step> {
    let mut moved = path.to_vec();
    for removal in removals {
        let Some((Step::Index(removed), array)) = removal.split_last() else {
            continue;
        };
        if let Some(Step::Index(index)) = moved.get_mut(array.len()) {
            if path.starts_with(array) && *index > *removed {
                *index -= 1;
            }
        }
    }
    moved
}

fn last_index(path: &[Step]) -> usize {
    match path.last() {
        Some(Step::Index(index)) => *index,
        _ => 0,
    }
}
