//! Writing a pruned session back: every line of the file in order, the chosen values of a
//! line edited in those values only (see [`super::Site`]), every other line byte for byte, and
//! after the last line the agent's record ([`super::Prune::marker`]) that tells its readers the
//! usage figures recorded so far describe a larger context than the one now in the file,
//! holding the new size; condense reads it as [`crate::transcript::model::Event::VoidUsage`],
//! which stands for every record before it. Plain message lists record no usage, so nothing is
//! added after them.
//!
//! A line removed whole (a Claude Code thinking block is its only content) takes nothing with
//! it: in a format whose records form a tree, the lines under it are re-linked to its nearest
//! ancestor that stays.
//!
//! The input names records and sites, never a plan: which values to prune is the planner's
//! business.

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::{Context as _, Result};
use serde_json::value::RawValue;

use super::{Kind, Mark, Shape, Site};
use crate::input::Line;
use crate::transcript::format::Tree;
use crate::transcript::json::{
    element_removal, replace_spans, shrink_long_strings, top_level_str, top_level_value, value_at,
    Step,
};
use crate::transcript::load::Transcript;
use crate::transcript::write::{push_kept, push_line, Sink};

/// One pruned site and the JSON that replaces its value (`None` for a removal).
pub type Edit<'p> = (&'p Site, Option<&'p [u8]>);

/// What a prune changes.
pub struct Pruned<'p, 'a> {
    /// The transcript: every line, history included.
    pub transcript: &'p Transcript<'a>,
    /// The sites pruned in each record (by index into [`Transcript::records`]), each with the
    /// JSON that replaces its value (`None` for a removal).
    pub edits: BTreeMap<usize, Vec<Edit<'p>>>,
    /// The live context's size before, as `estimate --context` reports it.
    pub tokens_before: u64,
    /// Its size after.
    pub tokens_after: u64,
}

/// The short text that replaces a long string in a copy of a result kept for the agent's user
/// interface (Claude Code `toolUseResult`, pi `details`, Gemini `resultDisplay`), which the
/// model never sees.
pub const COMPANION_PLACEHOLDER: &str = "[condense pruned; see the tool result]";

/// Strings in a result's user-interface copy longer than this are replaced.
const COMPANION_CHARS: usize = 200;

/// `line` with these sites edited: replacements first (they do not move one another's paths),
/// then removals from the last element of an array to the first, each found anew in the line
/// as it stands, so that removing one element never leaves another's span stale.
pub fn edit_line(line: &[u8], edits: &[Edit]) -> Result<Vec<u8>> {
    let mut spans = Vec::new();
    let mut companions: Vec<&Vec<Step>> = Vec::new();
    for (site, json) in edits {
        if let Some(json) = json {
            let span = value_at(line, &site.path).context("a pruned value is not where it was")?;
            spans.push((span, json.to_vec()));
        }
        for companion in &site.companions {
            if !companions.contains(&companion) {
                companions.push(companion);
            }
        }
    }
    for companion in companions {
        let Some(span) = value_at(line, companion) else {
            continue;
        };
        let shrink =
            |text: &str| (text != COMPANION_PLACEHOLDER).then(|| COMPANION_PLACEHOLDER.to_owned());
        if let Some(json) = shrink_long_strings(&line[span.clone()], COMPANION_CHARS, &shrink) {
            spans.push((span, json));
        }
    }
    let mut edited = replace_spans(line, &spans);
    let mut removals: Vec<&Vec<Step>> = edits
        .iter()
        .filter(|(site, _)| site.shape == Shape::Remove)
        .map(|(site, _)| &site.path)
        .collect();
    removals.sort_by(|a, b| path_order(b, a));
    for path in removals {
        let span = element_removal(&edited, path).context("a removed block is not where it was")?;
        edited = replace_spans(&edited, &[(span, Vec::new())]);
    }
    Ok(edited)
}

/// Paths compared step by step, array indexes by number.
fn path_order(a: &[Step], b: &[Step]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x, y) {
            (Step::Index(x), Step::Index(y)) => x.cmp(y),
            (Step::Key(x), Step::Key(y)) => x.cmp(y),
            (Step::Key(_), Step::Index(_)) => std::cmp::Ordering::Less,
            (Step::Index(_), Step::Key(_)) => std::cmp::Ordering::Greater,
        };
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// Writes every line of the file, the chosen values edited and dropped lines left out, then
/// the agent's record of the new context size (see the module docs).
pub fn write(pruned: &Pruned, out: &mut Sink) -> Result<()> {
    let transcript = pruned.transcript;
    let format = transcript
        .format
        .context("an empty transcript has nothing to prune")?
        .format();
    let dropped: HashSet<usize> = pruned
        .edits
        .iter()
        .filter(|(_, list)| list.iter().any(|(site, _)| site.shape == Shape::DropLine))
        .map(|(&record, _)| record)
        .collect();
    let tree = format.tree();
    let relinked = match tree {
        Some(tree) if !dropped.is_empty() => relink(transcript, tree, &dropped),
        _ => HashMap::new(),
    };
    let mut record = 0;
    for (line_index, line) in transcript.lines.iter().enumerate() {
        let first = record;
        while transcript.record_lines.get(record) == Some(&line_index) {
            record += 1;
        }
        let edited = match first..record {
            on_line if on_line.is_empty() => None,
            on_line if on_line.len() == 1 => {
                if dropped.contains(&first) {
                    continue;
                }
                let parent = relinked.get(&first).zip(tree);
                let parent = parent.map(|(json, tree)| (tree.parent, json.as_str()));
                edit_record(pruned, first, parent)?
            }
            // Several records share the line (a Gemini `$set` of `messages`, which Gemini CLI
            // sends as the session's history): each message is edited in its own bytes there.
            on_line => edit_shared_line(pruned, line, on_line)?,
        };
        let Some(edited) = edited else {
            push_kept(out, &[line.full]);
            continue;
        };
        // The line's own byte-order mark and terminator (CRLF or none) are kept.
        let start = line.text.as_ptr() as usize - line.full.as_ptr() as usize;
        let mut full = line.full[..start].to_vec();
        full.extend_from_slice(&edited);
        full.extend_from_slice(&line.full[start + line.text.len()..]);
        push_kept(out, &[&full]);
    }
    if let Some(marker) = format.marker(&mark(pruned, &pruned_ids(pruned)))? {
        push_line(out, &marker);
    }
    Ok(())
}

/// Record `index`, alone on its line, with its sites edited and, when its parent was dropped,
/// `parent` (the parent field and the new parent's JSON) put in its place; `None` when nothing
/// changes.
fn edit_record(
    pruned: &Pruned,
    index: usize,
    parent: Option<(&str, &str)>,
) -> Result<Option<Vec<u8>>> {
    let edits: &[Edit] = pruned.edits.get(&index).map_or(&[], Vec::as_slice);
    if edits.is_empty() && parent.is_none() {
        return Ok(None);
    }
    let mut edited = edit_line(pruned.transcript.records[index].raw, edits)?;
    if let Some((field, json)) = parent {
        let span = top_level_value(&edited, field)
            .with_context(|| format!("a relinked line has no {field}"))?;
        edited = replace_spans(&edited, &[(span, json.as_bytes().to_vec())]);
    }
    Ok(Some(edited))
}

/// A line holding the records `on_line`, each edited in its own bytes; `None` when none of
/// them has a site pruned.
fn edit_shared_line(
    pruned: &Pruned,
    line: &Line,
    on_line: std::ops::Range<usize>,
) -> Result<Option<Vec<u8>>> {
    let mut spans = Vec::new();
    for index in on_line {
        let Some(edits) = pruned.edits.get(&index).filter(|e| !e.is_empty()) else {
            continue;
        };
        let raw = pruned.transcript.records[index].raw;
        if !line.text.as_ptr_range().contains(&raw.as_ptr()) {
            anyhow::bail!("a record of a shared line lies outside it");
        }
        let start = raw.as_ptr() as usize - line.text.as_ptr() as usize;
        spans.push((start..start + raw.len(), edit_line(raw, edits)?));
    }
    Ok((!spans.is_empty()).then(|| replace_spans(line.text, &spans)))
}

/// For a format whose records form a [`Tree`]: the new parent JSON of each line hanging under
/// a dropped line (its nearest ancestor that stays, or `null`).
fn relink(transcript: &Transcript, tree: Tree, dropped: &HashSet<usize>) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    let records = &transcript.records;
    let uuid = |i: usize| top_level_str(records[i].raw, tree.id);
    let parent_json = |i: usize| {
        top_level_value(records[i].raw, tree.parent)
            .map(|s| String::from_utf8_lossy(&records[i].raw[s]).into_owned())
    };
    let by_uuid: HashMap<String, usize> = (0..records.len())
        .filter_map(|i| uuid(i).map(|u| (u, i)))
        .collect();
    let dropped_uuids: HashSet<String> = dropped.iter().filter_map(|&i| uuid(i)).collect();
    for (index, _) in records.iter().enumerate() {
        if dropped.contains(&index) {
            continue;
        }
        let Some(parent) = top_level_str(records[index].raw, tree.parent) else {
            continue;
        };
        if !dropped_uuids.contains(&parent) {
            continue;
        }
        // Walk up past every dropped line.
        let mut current = by_uuid.get(&parent).copied();
        let mut seen = HashSet::new();
        let mut json = "null".to_owned();
        while let Some(at) = current.filter(|&i| seen.insert(i)) {
            if !dropped.contains(&at) {
                json = serde_json::to_string(&uuid(at)).unwrap_or_else(|_| "null".to_owned());
                break;
            }
            json = parent_json(at).unwrap_or_else(|| "null".to_owned());
            current =
                top_level_str(records[at].raw, tree.parent).and_then(|p| by_uuid.get(&p).copied());
        }
        out.insert(index, json);
    }
    out
}

/// The last `timestamp` value of the file, as JSON.
fn last_timestamp<'a>(transcript: &Transcript<'a>) -> Option<&'a RawValue> {
    transcript
        .records
        .iter()
        .rev()
        .find_map(|r| top_level_value(r.raw, "timestamp").map(|span| &r.raw[span]))
        .and_then(|json| serde_json::from_slice::<&RawValue>(json).ok())
}

/// The call ids of the tool results pruned.
fn pruned_ids<'p>(pruned: &Pruned<'p, '_>) -> Vec<&'p str> {
    pruned
        .edits
        .values()
        .flatten()
        .filter(|(site, _)| site.kind == Kind::Result)
        .filter_map(|(site, _)| site.call_id.as_deref())
        .collect()
}

/// What the agent's marker is made from: the file, a seed naming this prune (the same input
/// gives the same ids), the file's last timestamp, and the sizes.
fn mark<'m, 'a>(pruned: &'m Pruned<'m, 'a>, pruned_ids: &'m [&'m str]) -> Mark<'m, 'a> {
    let transcript = pruned.transcript;
    let (before, after) = (pruned.tokens_before, pruned.tokens_after);
    let seed = format!(
        "prune:{}:{}:{before}:{after}",
        transcript.records.len(),
        transcript.lines.last().map_or(0, |l| l.full.len())
    );
    Mark {
        records: &transcript.records,
        context: &transcript.live.order,
        seed,
        timestamp: last_timestamp(transcript),
        tokens_before: before,
        tokens_after: after,
        pruned_ids,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::transcript::load::LoadOptions;
    use crate::transcript::prune::sites;
    use crate::transcript::FormatId;

    fn write_all(bytes: &[u8], pick: impl Fn(&Site) -> bool, json: &str) -> String {
        let transcript = Transcript::parse("t", bytes, LoadOptions::default()).unwrap();
        let format = transcript.format.unwrap();
        let found: Vec<(usize, Vec<Site>)> = transcript
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| (i, sites(format.format(), r.raw)))
            .collect();
        let mut edits: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
        for (record, list) in &found {
            for site in list.iter().filter(|s| pick(s)) {
                let value = matches!(site.shape, Shape::Remove | Shape::DropLine);
                edits
                    .entry(*record)
                    .or_default()
                    .push((site, (!value).then_some(json.as_bytes())));
            }
        }
        let pruned = Pruned {
            transcript: &transcript,
            edits,
            tokens_before: 100,
            tokens_after: 40,
        };
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out);
        write(&pruned, &mut sink).unwrap();
        sink.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn removals_in_one_array_and_a_replacement_in_one_line() {
        let line = r#"{"role":"assistant","content":[{"type":"think","think":"a"},{"type":"text","text":"t"},{"type":"think","think":"b"}],"tool_calls":[{"id":"c","function":{"name":"W","arguments":"{}"}}]}"#;
        let found = sites(FormatId::Openai.format(), line.as_bytes());
        let edits: Vec<Edit> = found
            .iter()
            .map(|site| {
                (
                    site,
                    (site.kind == Kind::Arguments).then_some(&br#""{\"p\":1}""#[..]),
                )
            })
            .collect();
        let edited = String::from_utf8(edit_line(line.as_bytes(), &edits).unwrap()).unwrap();
        assert_eq!(
            edited,
            r#"{"role":"assistant","content":[{"type":"text","text":"t"}],"tool_calls":[{"id":"c","function":{"name":"W","arguments":"{\"p\":1}"}}]}"#
        );
    }

    #[test]
    fn a_companion_copy_loses_its_long_strings_only() {
        let long = "x".repeat(300);
        let line = format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t","content":"{long}"}}]}},"toolUseResult":{{"file":{{"filePath":"/a.rs","content":"{long}","numLines":9}}}}}}"#
        );
        let found = sites(FormatId::ClaudeCode.format(), line.as_bytes());
        let edited = edit_line(line.as_bytes(), &[(&found[0], Some(&br#""P""#[..]))]).unwrap();
        let value: Value = serde_json::from_slice(&edited).unwrap();
        assert_eq!(value["message"]["content"][0]["content"], "P");
        assert_eq!(
            value["toolUseResult"]["file"],
            serde_json::json!({"filePath": "/a.rs", "content": COMPANION_PLACEHOLDER, "numLines": 9})
        );
    }

    #[test]
    fn a_dropped_claude_code_line_hands_its_children_to_its_parent() {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"}]}}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"done"}]}}"#,
        ];
        let bytes = lines.join("\n") + "\n";
        let out = write_all(bytes.as_bytes(), |s| s.kind == Kind::Thinking, "");
        let out: Vec<&str> = out.lines().collect();
        assert_eq!(out.len(), 3, "{out:?}");
        assert_eq!(out[0], lines[0]);
        assert_eq!(
            out[1],
            lines[2].replace(r#""parentUuid":"a1""#, r#""parentUuid":"u1""#)
        );
        let marker: Value = serde_json::from_str(out[2]).unwrap();
        assert_eq!(marker["subtype"], "microcompact_boundary");
        assert_eq!(marker["parentUuid"], "a2");
        assert_eq!(marker["microcompactMetadata"]["postTokens"], 40);
        assert!(out[2].contains(r#""clearedAttachmentUUIDs":[]"#));
    }

    #[test]
    fn the_codex_marker_is_a_token_count_with_the_next_ordinal() {
        let lines = [
            r#"{"timestamp":"t1","ordinal":1,"type":"session_meta","payload":{"id":"x","cwd":"/"}}"#,
            r#"{"timestamp":"t2","ordinal":2,"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"long"}}"#,
            r#"{"timestamp":"t3","ordinal":3,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":900},"last_token_usage":{"total_tokens":100},"model_context_window":1000}}}"#,
        ];
        let bytes = lines.join("\n");
        let out = write_all(bytes.as_bytes(), |s| s.kind == Kind::Result, r#""P""#);
        let out: Vec<&str> = out.lines().collect();
        assert_eq!(out[0], lines[0]);
        assert_eq!(
            out[2], lines[2],
            "an unterminated last line gets its newline"
        );
        let marker: Value = serde_json::from_str(out[3]).unwrap();
        assert_eq!(marker["ordinal"], 4);
        assert_eq!(marker["timestamp"], "t3");
        assert_eq!(
            marker["payload"]["info"]["last_token_usage"]["total_tokens"],
            40
        );
        assert_eq!(
            marker["payload"]["info"]["total_token_usage"]["total_tokens"],
            900
        );
        assert!(out[3].starts_with(r#"{"timestamp":"t3","ordinal":4,"type":"event_msg""#));
    }

    #[test]
    fn markers_of_pi_and_kimi_and_none_for_plain_lists() {
        let last = |bytes: &str| {
            let out = write_all(
                bytes.as_bytes(),
                |s| s.kind == Kind::Result,
                r#"[{"type":"text","text":"P"}]"#,
            );
            out.lines().last().unwrap().to_owned()
        };
        let pi3 = last(concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","id":"e1","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"x"}]}}"#,
            "\n",
        ));
        let pi3: Value = serde_json::from_str(&pi3).unwrap();
        assert_eq!(pi3["customType"], "condense-prune");
        assert_eq!(pi3["parentId"], "e1");
        assert_eq!(pi3["data"]["tokensAfter"], 40);
        let kimi = last(concat!(
            r#"{"role":"_checkpoint","id":0}"#,
            "\n",
            r#"{"role":"tool","content":[{"type":"text","text":"x"}],"tool_call_id":"c"}"#,
            "\n",
        ));
        assert_eq!(kimi, r#"{"role": "_usage", "token_count": 40}"#);
        let plain = last(r#"{"role":"tool","content":"x","tool_call_id":"c"}"#);
        assert_eq!(
            plain,
            r#"{"role":"tool","content":[{"type":"text","text":"P"}],"tool_call_id":"c"}"#
        );
    }
}
