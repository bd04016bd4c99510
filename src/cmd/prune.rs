//! `condense prune`: old tool outputs (and, on request, long tool-call arguments and old
//! thinking) of the live context replaced by short placeholders, with no model, and the session
//! written back in its own format, to stdout or, with `--in-place`, over the file.
//!
//! The flow: read the transcript; find the prunable values of each live record (the format's
//! [`sites`]); measure each (its tokens, and the estimator units the context loses when it is
//! replaced, found by reading the edited line back with the format's own reader); let the pure
//! core ([`choose`]) pick; then write every line of the file in order, a line with chosen
//! values edited in those values only, every other line byte for byte, and after the last line
//! the record that tells the format's readers that the usage figures recorded so far describe
//! a larger context than the one now in the file:
//!
//! - kimi-cli: a fresh `_usage` record with the pruned context's estimate, as kimi-cli itself
//!   writes after every step;
//! - Codex: a fresh `token_count` event, its `last_token_usage` the pruned estimate (the
//!   cumulative `total_token_usage` and the window copied from the last one);
//! - Claude Code: a `microcompact_boundary` system line, as Claude Code writes when it clears
//!   old tool results itself (`trigger` `manual`, `preTokens`, `tokensSaved`,
//!   `compactedToolIds`);
//! - pi: a `custom` entry of type `condense-prune` (extension state pi never sends the model);
//! - Gemini CLI: a `$set` of `condensePrune` (metadata Gemini never sends the model);
//! - plain OpenAI and Anthropic message lists record no usage, so nothing is added.
//!
//! condense reads the last three as [`crate::transcript::Event::VoidUsage`]: a usage figure
//! before them is void, so `estimate --context` and `--check` measure the pruned context.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use anyhow::{bail, Context as _, Result};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::compaction::live_context;
use super::inject::replace_atomically;
use super::shared::{load_options, read_source, single_source, transcript_warnings};
use crate::cli::PruneArgs;
use crate::input::Source;
use crate::output::{self, Warnings};
use crate::prune::{
    argument_placeholder, choose, is_placeholder, result_placeholder, Candidate, Choice, Context,
    Options, Target, COMPANION_PLACEHOLDER, PLACEHOLDER,
};
use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::load::Transcript;
use crate::transcript::prune::{replacement, shrunk_arguments, sites, Kind, Shape, Site};
use crate::transcript::write::{
    derived_uuid, element_removal, push_kept, push_line, replace_spans, shrink_long_strings,
    top_level_str, top_level_value, value_at, Sink, Step,
};
use crate::transcript::{pi, Entry, FormatId, Record};
use crate::Outcome;

/// Strings in a result's user-interface copy longer than this are replaced.
const COMPANION_CHARS: usize = 200;

/// Argument strings shorter than this are never replaced, whatever `--min-tokens` says: a
/// placeholder is about this long, so a shorter string would not shrink (and a placeholder
/// must never be long enough to be replaced again).
const MIN_ARGUMENT_CHARS: usize = 400;

/// Runs `prune`.
pub fn run(args: &PruneArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let in_place = match (&source, args.in_place) {
        (_, false) => None,
        (Source::File(path), true) => Some(path.clone()),
        (Source::Stdin, true) => {
            bail!("--in-place needs the transcript as a FILE, not standard input")
        }
    };
    let tokenizer = args.tokens.tokenizer()?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    if let Some(index) = transcript.incomplete {
        bail!(
            "{}:{}: the last line is cut off (a session still being written?); pruning now \
             would lose it, so wait until the agent has finished writing",
            transcript.name,
            transcript.lines[index].number
        );
    }
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);

    let options = options(args);
    let plan = plan(&transcript, tokenizer, &options)?;
    if args.report {
        output::write_json_line(out, &plan.report(&transcript))?;
        warnings.print();
        return Ok(Outcome::Success);
    }
    if let Some(nothing) = plan.choice.nothing {
        warnings.push(format!(
            "{}: nothing to prune ({}); the transcript is written unchanged",
            transcript.name,
            nothing.reason()
        ));
        if in_place.is_none() {
            out.write_all(&bytes)?;
        }
        warnings.print();
        return Ok(Outcome::NothingToCompact);
    }
    let write = |out: &mut dyn Write| -> Result<()> {
        let mut sink = Sink::new(out);
        write_pruned(&transcript, &plan, &mut sink)?;
        Ok(sink.finish()?)
    };
    // A dry run first, so a failure leaves no partial output.
    write(&mut std::io::sink())?;
    match in_place {
        Some(path) => replace_atomically(&path, &args.backup_suffix, write)?,
        None => write(out)?,
    }
    warnings.print();
    Ok(Outcome::Success)
}

/// The core's knobs from the flags.
fn options(args: &PruneArgs) -> Options {
    Options {
        keep_turns: args.keep_turns,
        keep: args.keep,
        protect: args
            .protect
            .iter()
            .filter(|tool| !tool.is_empty())
            .cloned()
            .collect(),
        min_tokens: args.min_tokens,
        target: args.target,
        trigger: args.trigger,
        clear_at_least: args.clear_at_least,
        clear_inputs: args.clear_inputs,
        keep_thinking: args.keep_thinking,
    }
}

/// A measured site: where it is, and what replacing it writes.
struct Measured {
    /// The record (index into `records`).
    record: usize,
    site: Site,
    /// The edit: the JSON that replaces the value, or `None` for a removal.
    json: Option<Vec<u8>>,
}

/// What prune found and chose.
struct PrunePlan {
    format: FormatId,
    measured: Vec<Measured>,
    candidates: Vec<Candidate>,
    choice: Choice,
}

/// Finds, measures and chooses.
fn plan(transcript: &Transcript, tokenizer: Tokenizer, options: &Options) -> Result<PrunePlan> {
    let format = transcript
        .format
        .context("an empty transcript has nothing to prune")?;
    let mut measured = Vec::new();
    let mut candidates = Vec::new();
    let mut tool_units: HashMap<String, usize> = HashMap::new();
    let mut tool_count = 0usize;
    let mut thinking_units: HashMap<u64, usize> = HashMap::new();
    let mut thinking_count = 0usize;
    // Results without a call id are each a tool use of their own.
    let mut anonymous = 0usize;
    let mut context_units = 0u64;
    let mut turns = Vec::new();
    // Call ids and tool names of every call, for results that do not name their tool.
    let mut call_names: HashMap<String, String> = HashMap::new();
    let argument_chars =
        MIN_ARGUMENT_CHARS.max(usize::try_from(options.min_tokens * 4).unwrap_or(usize::MAX));

    for (position, record) in transcript.context.iter().enumerate() {
        let index = transcript.record_index(position);
        let Some(message) = record.message().filter(|m| !m.sidechain) else {
            continue;
        };
        let units = tokenizer.message_units(message);
        context_units += units;
        if is_real_user_request(message) {
            turns.push(position);
        }
        for site in sites(format, record.raw) {
            let tokens = tokenizer.tokens(tokenizer.text_units(&site.text));
            let (json, pruned) = match site.kind {
                Kind::Result => {
                    let pruned = is_placeholder(&site.text);
                    let text = result_placeholder(site.tool.as_deref(), tokens, &site.text);
                    (Some(replacement(site.shape, &text)), pruned)
                }
                Kind::Arguments => {
                    let Some(span) = value_at(record.raw, &site.path) else {
                        continue;
                    };
                    let shrink = |text: &str| {
                        (!is_placeholder(text)).then(|| {
                            argument_placeholder(tokenizer.tokens(tokenizer.text_units(text)), text)
                        })
                    };
                    match shrunk_arguments(site.shape, &record.raw[span], argument_chars, &shrink) {
                        Some(json) => (Some(json), false),
                        // Nothing long left: already pruned, or short to begin with.
                        None => (None, site.text.contains(PLACEHOLDER)),
                    }
                }
                Kind::Thinking => (None, false),
            };
            if let (Kind::Arguments, Some(id), Some(tool)) = (&site.kind, &site.call_id, &site.tool)
            {
                call_names.entry(id.clone()).or_insert_with(|| tool.clone());
            }
            // Every tool use is numbered, also those with nothing to prune: `--keep` counts
            // the most recent tool uses, whatever their size.
            let target = match site.kind {
                Kind::Result => Target::Result,
                Kind::Arguments => Target::Arguments,
                Kind::Thinking => Target::Thinking,
            };
            let unit = match target {
                Target::Thinking => {
                    // One response is one thinking turn (Claude Code writes it as several
                    // lines sharing its message id).
                    let key = record.link.response.unwrap_or(u64::MAX - index as u64);
                    *thinking_units.entry(key).or_insert_with(|| {
                        thinking_count += 1;
                        thinking_count - 1
                    })
                }
                _ => {
                    let key = site.call_id.clone().unwrap_or_else(|| {
                        anonymous += 1;
                        format!("\0{anonymous}")
                    });
                    *tool_units.entry(key).or_insert_with(|| {
                        tool_count += 1;
                        tool_count - 1
                    })
                }
            };
            if site.kind == Kind::Arguments && json.is_none() && !pruned {
                continue;
            }
            let saved_units = if pruned {
                0
            } else {
                saved_units(format, record, &site, json.as_deref(), tokenizer, units)?
            };
            let shrinks = match (&json, site.shape) {
                (Some(json), _) => {
                    value_at(record.raw, &site.path).is_some_and(|span| json.len() < span.len())
                }
                (None, Shape::Remove | Shape::DropLine) => true,
                (None, _) => false,
            };
            candidates.push(Candidate {
                target,
                position,
                unit,
                tool: site.tool.clone(),
                tokens,
                saved_units,
                shrinks,
                pruned,
            });
            measured.push(Measured {
                record: index,
                site,
                json,
            });
        }
    }
    // A result names its tool through its call where the result line does not.
    for (candidate, measured) in candidates.iter_mut().zip(&mut measured) {
        if candidate.target != Target::Thinking && candidate.tool.is_none() {
            candidate.tool = measured
                .site
                .call_id
                .as_ref()
                .and_then(|id| call_names.get(id))
                .cloned();
            if let (Some(tool), Kind::Result) = (&candidate.tool, &measured.site.kind) {
                let text = result_placeholder(Some(tool), candidate.tokens, &measured.site.text);
                measured.json = Some(replacement(measured.site.shape, &text));
                measured.site.tool = Some(tool.clone());
            }
        }
    }
    let view = live_context(transcript, tokenizer);
    let context = Context {
        tokenizer,
        units: context_units,
        tokens: view.tokens,
        usage: view.usage.is_some(),
        turns,
    };
    let choice = choose(&candidates, &context, options);
    Ok(PrunePlan {
        format,
        measured,
        candidates,
        choice,
    })
}

/// The units the context loses when this one site is replaced: the record's message read
/// back from the edited line, measured against the message as it is.
fn saved_units(
    format: FormatId,
    record: &Record,
    site: &Site,
    json: Option<&[u8]>,
    tokenizer: Tokenizer,
    units: u64,
) -> Result<u64> {
    if site.shape == Shape::DropLine {
        return Ok(units);
    }
    let edited = edit_line(record.raw, &[(site, json)])?;
    let text = std::str::from_utf8(&edited)?;
    let read = format
        .format()
        .read(record.line, text)
        .context("a pruned line no longer reads")?;
    let after = read
        .message()
        .map_or(0, |message| tokenizer.message_units(message));
    Ok(units.saturating_sub(after))
}

/// `line` with these sites edited: replacements first (they do not move one another's paths),
/// then removals from the last element of an array to the first, each found anew in the line
/// as it stands, so that removing one element never leaves another's span stale.
fn edit_line(line: &[u8], edits: &[(&Site, Option<&[u8]>)]) -> Result<Vec<u8>> {
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
/// the format's fresh usage figure or void marker.
fn write_pruned(transcript: &Transcript, plan: &PrunePlan, out: &mut Sink) -> Result<()> {
    let mut by_record: BTreeMap<usize, Vec<&Measured>> = BTreeMap::new();
    for &i in &plan.choice.chosen {
        let measured = &plan.measured[i];
        by_record.entry(measured.record).or_default().push(measured);
    }
    let dropped: HashSet<usize> = by_record
        .iter()
        .filter(|(_, list)| list.iter().any(|m| m.site.shape == Shape::DropLine))
        .map(|(&record, _)| record)
        .collect();
    let relinked = relink(transcript, plan.format, &dropped);
    let mut record = 0;
    for (line_index, line) in transcript.lines.iter().enumerate() {
        let is_record = transcript.record_lines.get(record) == Some(&line_index);
        if !is_record {
            push_kept(out, &[line.full]);
            continue;
        }
        let index = record;
        record += 1;
        if dropped.contains(&index) {
            continue;
        }
        let edits: Vec<(&Site, Option<&[u8]>)> = by_record
            .get(&index)
            .into_iter()
            .flatten()
            .map(|m| (&m.site, m.json.as_deref()))
            .collect();
        let parent = relinked.get(&index);
        if edits.is_empty() && parent.is_none() {
            push_kept(out, &[line.full]);
            continue;
        }
        let raw = transcript.records[index].raw;
        let mut edited = edit_line(raw, &edits)?;
        if let Some(parent) = parent {
            let span = top_level_value(&edited, "parentUuid")
                .context("a relinked line has no parentUuid")?;
            edited = replace_spans(&edited, &[(span, parent.clone().into_bytes())]);
        }
        // The line's own byte-order mark and terminator (CRLF or none) are kept.
        let start = line.text.as_ptr() as usize - line.full.as_ptr() as usize;
        let mut full = line.full[..start].to_vec();
        full.extend_from_slice(&edited);
        full.extend_from_slice(&line.full[start + line.text.len()..]);
        push_kept(out, &[&full]);
    }
    if let Some(marker) = marker(transcript, plan)? {
        push_line(out, &marker);
    }
    Ok(())
}

/// For Claude Code, whose lines chain by `parentUuid`: the new `parentUuid` JSON of each line
/// hanging under a dropped line (its nearest ancestor that stays, or `null`).
fn relink(
    transcript: &Transcript,
    format: FormatId,
    dropped: &HashSet<usize>,
) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    if format != FormatId::ClaudeCode || dropped.is_empty() {
        return out;
    }
    let records = &transcript.records;
    let uuid = |i: usize| top_level_str(records[i].raw, "uuid");
    let parent_json = |i: usize| {
        top_level_value(records[i].raw, "parentUuid")
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
        let Some(parent) = top_level_str(records[index].raw, "parentUuid") else {
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
                top_level_str(records[at].raw, "parentUuid").and_then(|p| by_uuid.get(&p).copied());
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
        .and_then(|json| serde_json::from_slice(json).ok())
}

/// The record appended after the pruned file, if the format records usage (see the module
/// docs).
fn marker(transcript: &Transcript, plan: &PrunePlan) -> Result<Option<Vec<u8>>> {
    let before = plan.choice.tokens_before;
    let after = plan.choice.tokens_after;
    let records = &transcript.records;
    let seed = format!(
        "prune:{}:{}:{before}:{after}",
        records.len(),
        transcript.lines.last().map_or(0, |l| l.full.len())
    );
    let timestamp = last_timestamp(transcript);
    let pruned_ids: Vec<&str> = plan
        .choice
        .chosen
        .iter()
        .filter(|&&i| plan.candidates[i].target == Target::Result)
        .filter_map(|&i| plan.measured[i].site.call_id.as_deref())
        .collect();
    Ok(match plan.format {
        FormatId::Openai => {
            let kimi = records
                .iter()
                .any(|r| matches!(&r.entry, Entry::Bookkeeping(kind) if kind.starts_with('_')));
            kimi.then(|| format!(r#"{{"role": "_usage", "token_count": {after}}}"#).into_bytes())
        }
        FormatId::Anthropic => None,
        FormatId::ClaudeCode => Some(claude_code_marker(
            transcript,
            &seed,
            timestamp,
            before,
            after,
            &pruned_ids,
        )?),
        FormatId::Codex => codex_marker(transcript, timestamp, after)?,
        FormatId::Pi => Some(pi_marker(transcript, &seed, timestamp, before, after)?),
        FormatId::Gemini => Some(serde_json::to_vec(&serde_json::json!({
            "$set": { "condensePrune": { "tokensBefore": before, "tokensAfter": after } }
        }))?),
    })
}

/// A `microcompact_boundary` line hanging under the live context's last line, with that
/// line's envelope.
fn claude_code_marker(
    transcript: &Transcript,
    seed: &str,
    timestamp: Option<&RawValue>,
    before: u64,
    after: u64,
    pruned_ids: &[&str],
) -> Result<Vec<u8>> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Line<'r> {
        parent_uuid: Option<&'r RawValue>,
        is_sidechain: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        user_type: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        session_id: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        git_branch: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        slug: Option<&'r RawValue>,
        #[serde(rename = "type")]
        kind: &'static str,
        subtype: &'static str,
        content: &'static str,
        is_meta: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<&'r RawValue>,
        uuid: String,
        level: &'static str,
        microcompact_metadata: Metadata<'r>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Metadata<'r> {
        trigger: &'static str,
        pre_tokens: u64,
        tokens_saved: u64,
        post_tokens: u64,
        compacted_tool_ids: &'r [&'r str],
        cleared_attachment_uui_ds: [u8; 0],
    }
    let source = transcript
        .live
        .order
        .iter()
        .rev()
        .map(|&i| transcript.records[i].raw)
        .find(|raw| top_level_value(raw, "uuid").is_some());
    let copy = |key: &str| -> Option<&RawValue> {
        let raw = source?;
        serde_json::from_slice(&raw[top_level_value(raw, key)?]).ok()
    };
    let line = Line {
        parent_uuid: copy("uuid"),
        is_sidechain: false,
        user_type: copy("userType"),
        cwd: copy("cwd"),
        session_id: copy("sessionId"),
        version: copy("version"),
        git_branch: copy("gitBranch"),
        slug: copy("slug"),
        kind: "system",
        subtype: "microcompact_boundary",
        content: "Context microcompacted",
        is_meta: false,
        timestamp,
        uuid: derived_uuid(seed, "microcompact"),
        level: "info",
        microcompact_metadata: Metadata {
            trigger: "manual",
            pre_tokens: before,
            tokens_saved: before.saturating_sub(after),
            post_tokens: after,
            compacted_tool_ids: pruned_ids,
            cleared_attachment_uui_ds: [],
        },
    };
    let mut json = serde_json::to_vec(&line)?;
    // serde's camelCase spells the last key `clearedAttachmentUuiDs`; Claude Code's is this.
    let wrong = b"clearedAttachmentUuiDs";
    if let Some(at) = memchr::memmem::find(&json, wrong) {
        json.splice(
            at..at + wrong.len(),
            b"clearedAttachmentUUIDs".iter().copied(),
        );
    }
    Ok(json)
}

/// A fresh `token_count` event, when the rollout has any (the legacy bare layout has none).
fn codex_marker(
    transcript: &Transcript,
    timestamp: Option<&RawValue>,
    after: u64,
) -> Result<Option<Vec<u8>>> {
    #[derive(serde::Deserialize)]
    struct Event<'r> {
        #[serde(borrow)]
        payload: Payload<'r>,
    }
    #[derive(serde::Deserialize)]
    struct Payload<'r> {
        #[serde(rename = "type")]
        kind: Option<String>,
        #[serde(borrow, default)]
        info: Option<&'r RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Info<'r> {
        #[serde(borrow, default)]
        total_token_usage: Option<&'r RawValue>,
        #[serde(borrow, default)]
        model_context_window: Option<&'r RawValue>,
    }
    let last = transcript.records.iter().rev().find_map(|record| {
        let event: Event = serde_json::from_slice(record.raw).ok()?;
        let info = event
            .payload
            .info
            .filter(|_| event.payload.kind.as_deref() == Some("token_count"))?;
        serde_json::from_str::<Info>(info.get()).ok()
    });
    let Some(last) = last else {
        return Ok(None);
    };
    let usage = serde_json::json!({
        "input_tokens": after,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": after,
    });
    // Newer rollouts number their lines, and Codex refuses to resume one whose last line has
    // no `ordinal`: the marker takes the next number.
    let ordinal = transcript
        .records
        .iter()
        .filter_map(|r| {
            let span = top_level_value(r.raw, "ordinal")?;
            std::str::from_utf8(&r.raw[span]).ok()?.parse::<u64>().ok()
        })
        .max()
        .map(|last| last + 1);
    #[derive(Serialize)]
    struct Line<'r> {
        timestamp: Option<&'r RawValue>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ordinal: Option<u64>,
        #[serde(rename = "type")]
        kind: &'static str,
        payload: Value,
    }
    let line = Line {
        timestamp,
        ordinal,
        kind: "event_msg",
        payload: serde_json::json!({
            "type": "token_count",
            "info": {
                "total_token_usage": last.total_token_usage,
                "last_token_usage": usage,
                "model_context_window": last.model_context_window,
            },
            "rate_limits": null,
        }),
    };
    Ok(Some(serde_json::to_vec(&line)?))
}

/// A `custom` entry; in a v2/v3 session it gets an id and hangs under the last entry, as pi's
/// own `appendCustomEntry` does.
fn pi_marker(
    transcript: &Transcript,
    seed: &str,
    timestamp: Option<&RawValue>,
    before: u64,
    after: u64,
) -> Result<Vec<u8>> {
    let leaf = transcript
        .records
        .iter()
        .rev()
        .find_map(|r| top_level_str(r.raw, "id").filter(|_| r.link.id.is_some()));
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Entry<'r> {
        #[serde(rename = "type")]
        kind: &'static str,
        custom_type: &'static str,
        data: Data,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<&'r RawValue>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Data {
        tokens_before: u64,
        tokens_after: u64,
    }
    let id = leaf
        .is_some()
        .then(|| derived_uuid(seed, "pi")[..8].to_owned());
    Ok(serde_json::to_vec(&Entry {
        kind: "custom",
        custom_type: pi::PRUNE_CUSTOM_TYPE,
        data: Data {
            tokens_before: before,
            tokens_after: after,
        },
        id,
        parent_id: leaf,
        timestamp,
    })?)
}

/// The `--report` line.
#[derive(Serialize)]
struct Report {
    file: String,
    format: &'static str,
    tokens_before: u64,
    tokens_after: u64,
    pruned: Counts,
    candidates: Counts,
    #[serde(skip_serializing_if = "Option::is_none")]
    nothing: Option<&'static str>,
}

#[derive(Serialize, Default)]
struct Counts {
    results: usize,
    arguments: usize,
    thinking: usize,
}

impl Counts {
    fn add(&mut self, target: Target) {
        match target {
            Target::Result => self.results += 1,
            Target::Arguments => self.arguments += 1,
            Target::Thinking => self.thinking += 1,
        }
    }
}

impl PrunePlan {
    fn report(&self, transcript: &Transcript) -> Report {
        let mut pruned = Counts::default();
        for &i in &self.choice.chosen {
            pruned.add(self.candidates[i].target);
        }
        let mut candidates = Counts::default();
        for candidate in &self.candidates {
            candidates.add(candidate.target);
        }
        Report {
            file: transcript.name.clone(),
            format: self.format.as_str(),
            tokens_before: self.choice.tokens_before,
            tokens_after: self.choice.tokens_after,
            pruned,
            candidates,
            nothing: self.choice.nothing.map(|n| n.reason()),
        }
    }
}
