//! The checks of a prune (`prune`, `compact`'s pruned rung): the result read back by its
//! agent's rule and held against the session before and the values the prune chose (see the
//! module docs of [`crate::verify`] for the list).

use std::collections::HashSet;

use serde_json::Value;

use super::checks::{failed, newest_request, read_back, tool_pairs, Failed};
use crate::transcript::json::Step;
use crate::transcript::load::Transcript;
use crate::transcript::prune::rewrite::{Edit, Pruned};
use crate::transcript::prune::Shape;
use crate::transcript::{Parent, Record, Role};

/// Checks `after`, the session `pruned` describes as written (in parts, as
/// [`super::check_against`] takes it), as its agent reads it. `old` is
/// the session before as the agent reads it: `pruned.transcript` itself, unless that was read
/// `--whole-file` (its records are the same either way; only the live context differs).
pub fn check_pruned(pruned: &Pruned, old: &Transcript, after: &[&[u8]]) -> Result<(), Failed> {
    let Some(format) = old.format else {
        return Ok(());
    };
    let new = read_back(old, format, after)?;
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
    let Some(position) = newest_request(old.context()) else {
        return Ok(());
    };
    let request = &old.context()[position];
    if new.context().iter().any(|r| r.raw == request.raw) {
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
        let messages = t.context().iter().filter_map(Record::message);
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
    let parent = [Step::Key("parentUuid")];
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
        Step::Key(key) => value.get_mut(*key),
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::transcript::load::LoadOptions;
    use crate::transcript::prune::rewrite::write;
    use crate::transcript::prune::{sites, Kind, Site};
    use crate::transcript::write::Sink;

    /// A request, a call and its long result, an answer, and a newer request.
    fn session() -> String {
        let long = "output line\n".repeat(200);
        [
            serde_json::json!({"role": "user", "content": "list the files"}),
            serde_json::json!({"role": "assistant", "content": "calling", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            ]}),
            serde_json::json!({"role": "tool", "tool_call_id": "c1", "content": long}),
            serde_json::json!({"role": "assistant", "content": "done"}),
            serde_json::json!({"role": "user", "content": "now the next step"}),
        ]
        .iter()
        .map(|line| format!("{line}\n"))
        .collect()
    }

    /// `bytes` with every site `pick` chooses pruned (a placeholder for values, removal for
    /// the rest): the sites found, and the session written.
    fn pruned(bytes: &[u8], pick: impl Fn(&Site) -> bool) -> (Vec<(usize, Vec<Site>)>, Vec<u8>) {
        let old = Transcript::parse("s", bytes, LoadOptions::default()).unwrap();
        let format = old.format.unwrap();
        let found: Vec<(usize, Vec<Site>)> = old
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| {
                (
                    i,
                    sites(format.format(), r.raw)
                        .into_iter()
                        .filter(&pick)
                        .collect(),
                )
            })
            .collect();
        let built = {
            let pruned = edits(&old, &found);
            let mut out = Vec::new();
            let mut sink = Sink::new(&mut out);
            write(&pruned, &mut sink).unwrap();
            sink.finish().unwrap();
            out
        };
        (found, built)
    }

    fn edits<'p, 'a>(old: &'p Transcript<'a>, found: &'p [(usize, Vec<Site>)]) -> Pruned<'p, 'a> {
        let mut edits: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
        for (record, list) in found {
            for site in list {
                let removed = matches!(site.shape, Shape::Remove | Shape::DropLine);
                let json: &[u8] = b"\"[pruned]\"";
                edits
                    .entry(*record)
                    .or_default()
                    .push((site, (!removed).then_some(json)));
            }
        }
        Pruned {
            transcript: old,
            edits,
            tokens_before: 100,
            tokens_after: 40,
        }
    }

    /// The check that fails on `after`, the prune of `before` by `found` tampered with.
    fn check(before: &str, found: &[(usize, Vec<Site>)], after: &str) -> Result<(), Failed> {
        let old = Transcript::parse("s", before.as_bytes(), LoadOptions::default()).unwrap();
        check_pruned(&edits(&old, found), &old, &[after.as_bytes()])
    }

    #[test]
    fn an_honest_prune_passes_and_each_check_names_itself() {
        let before = session();
        let (found, built) = pruned(before.as_bytes(), |s| s.kind == Kind::Result);
        let built = String::from_utf8(built).unwrap();
        assert!(built.contains("[pruned]"));
        assert_eq!(check(&before, &found, &built), Ok(()));
        let lines: Vec<&str> = built.lines().collect();
        let without = |drop: usize| -> String {
            let mut kept = lines.clone();
            kept.remove(drop);
            kept.iter().map(|l| format!("{l}\n")).collect()
        };
        let failed = |after: &str| check(&before, &found, after).unwrap_err().check;
        assert_eq!(
            failed(&built.replace("now the next", "now the")),
            "newest-message"
        );
        assert_eq!(failed(&without(1)), "tool-pairs");
        assert_eq!(failed(&without(2)), "tool-pairs");
        assert_eq!(failed(&without(3)), "messages");
        assert_eq!(failed(&built.replace("\"done\"", "\"DONE\"")), "untouched");
        // The chosen value may change; nothing else of its line.
        let tool_line = lines[2].replace("[pruned]", "[other placeholder]");
        let other = built.replace(lines[2], &tool_line);
        assert_eq!(check(&before, &found, &other), Ok(()));
        let extra = lines[2].replacen('{', "{\"extra\":1,", 1);
        assert_eq!(failed(&built.replace(lines[2], &extra)), "untouched");
        let added = format!("{built}{{\"role\":\"user\",\"content\":\"more\"}}\n");
        assert_eq!(failed(&added), "untouched");
    }

    #[test]
    fn a_value_after_a_removed_block_is_found_where_it_moved() {
        let input = serde_json::json!({"path": "a.txt", "content": "x".repeat(3000)});
        let lines = [
            serde_json::json!({"role": "user", "content": "write it"}),
            serde_json::json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "plan", "signature": "sig"},
                {"type": "text", "text": "writing"},
                {"type": "tool_use", "id": "t1", "name": "Write", "input": input},
            ]}),
            serde_json::json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
            ]}),
            serde_json::json!({"role": "assistant", "content": "written"}),
        ];
        let before: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let pick = |s: &Site| matches!(s.kind, Kind::Thinking | Kind::Arguments);
        let (found, built) = pruned(before.as_bytes(), pick);
        let built = String::from_utf8(built).unwrap();
        assert!(
            !built.contains("\"plan\"") && !built.contains("xxxx"),
            "{built}"
        );
        assert_eq!(check(&before, &found, &built), Ok(()));
        let touched = built.replace("\"writing\"", "\"Writing\"");
        assert_eq!(
            check(&before, &found, &touched).unwrap_err().check,
            "untouched"
        );
    }

    #[test]
    fn a_dropped_claude_code_line_and_its_relinked_child_pass() {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
        ];
        let before = lines.join("\n") + "\n";
        let (found, built) = pruned(before.as_bytes(), |s| s.kind == Kind::Thinking);
        let built = String::from_utf8(built).unwrap();
        assert_eq!(built.lines().count(), 3, "{built}");
        assert_eq!(check(&before, &found, &built), Ok(()));
        // Re-linked anywhere but to the dropped line's parent, the chain loses the request.
        let astray = built.replace(r#""parentUuid":"u1""#, r#""parentUuid":null"#);
        let failed = check(&before, &found, &astray).unwrap_err().check;
        assert_eq!(failed, "newest-message");
    }
}
