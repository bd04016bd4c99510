//! `condense prune`: old tool outputs (and, on request, long tool-call arguments and old
//! thinking) of the live context replaced by short placeholders, with no model, and the session
//! written back in its own format, to stdout or, with `--in-place`, over the file through
//! [`persist`]'s safe replace.
//!
//! The flow: read the transcript; find the prunable values of each live record (the format's
//! [`sites`]); measure each (its tokens, and the estimator units the context loses when it is
//! replaced, found by reading the edited line back with the format's own reader); let the pure
//! core ([`choose`]) pick; hand the choice to [`rewrite::write`], which writes the file back
//! with the record that holds the new context size.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use anyhow::{bail, Context as _, Result};
use rayon::prelude::*;
use serde::Serialize;

use super::compaction::live_context;
use super::settings;
use super::shared::{
    load_options, read_source, refuse_cut_off, single_source, transcript_warnings,
};
use crate::cli::{PruneArgs, SettingsArgs};
use crate::input::Source;
use crate::output::{self, Warnings};
use crate::persist;
use crate::prune::{
    argument_placeholder, choose, is_placeholder, result_placeholder, Candidate, Choice, Context,
    Options, Target, PLACEHOLDER,
};
use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::load::Transcript;
use crate::transcript::prune::rewrite::{self, edit_line, Edit, Pruned};
use crate::transcript::prune::{replacement, shrunk_arguments, sites, Kind, Shape, Site};
use crate::transcript::write::{value_at, Sink};
use crate::transcript::{FormatId, Record};
use crate::Outcome;

/// Argument strings shorter than this are never replaced, whatever `--min-tokens` says: a
/// placeholder is about this long, so a shorter string would not shrink (and a placeholder
/// must never be long enough to be replaced again).
const MIN_ARGUMENT_CHARS: usize = 400;

/// Runs `prune`.
pub fn run(args: &PruneArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let tokenizer = args.tokens.tokenizer()?;
    let knobs = options(args)?;
    if args.in_place {
        let Source::File(path) = &source else {
            bail!("--in-place needs the transcript as a FILE, not standard input");
        };
        let options = persist::Options {
            backup_suffix: &args.backup_suffix,
            // A pruned file is rewritten, never only appended to.
            strategy: persist::Strategy::Replace,
            inputs: &[],
        };
        let name = path.display().to_string();
        let done = persist::in_place(path, &options, |bytes, out| {
            prune(args, &knobs, tokenizer, &name, bytes, out, false)
        })?;
        let (outcome, mut warnings) = done.value;
        for warning in done.warnings {
            warnings.push(warning);
        }
        warnings.print();
        return Ok(outcome);
    }
    let bytes = read_source(&source)?;
    let (outcome, warnings) = prune(args, &knobs, tokenizer, &source.name(), &bytes, out, true)?;
    warnings.print();
    Ok(outcome)
}

/// Writes the pruned transcript of `bytes` to `out` (or them unchanged when nothing is
/// pruned, or the `--report` line); with `dry_run`, once to nowhere first, so that nothing
/// reaches `out` if writing fails.
fn prune(
    args: &PruneArgs,
    options: &Options,
    tokenizer: Tokenizer,
    name: &str,
    bytes: &[u8],
    out: &mut dyn Write,
    dry_run: bool,
) -> Result<(Outcome, Warnings)> {
    let transcript = Transcript::parse(name, bytes, load_options(&args.input))?;
    refuse_cut_off(&transcript, "pruning")?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    if transcript.format.is_none() {
        // As `prompt`, `inject` and `compact` answer an empty session: nothing to do (exit 4).
        warnings.note(format!(
            "{}: nothing to prune: the transcript has no messages",
            transcript.name
        ));
        out.write_all(bytes)?;
        return Ok((Outcome::NothingToCompact, warnings));
    }

    let plan = plan(&transcript, tokenizer, options)?;
    if args.report {
        output::write_json_line(out, &plan.report(&transcript))?;
        return Ok((Outcome::Success, warnings));
    }
    if let Some(nothing) = plan.choice.nothing {
        warnings.note(format!(
            "{}: nothing to prune ({}); the transcript is written unchanged",
            transcript.name,
            nothing.reason()
        ));
        out.write_all(bytes)?;
        return Ok((Outcome::NothingToCompact, warnings));
    }
    if let Some(target) = options.target.filter(|&t| plan.choice.tokens_after > t) {
        warnings.push(format!(
            "{}: pruning every output the rules allow leaves {} tokens of live context, above \
             --target {target}; `compact --budget {target}` summarises the rest",
            transcript.name, plan.choice.tokens_after
        ));
    }
    let pruned = plan.pruned(&transcript);
    let write = |out: &mut dyn Write| -> Result<()> {
        let mut sink = Sink::new(out);
        rewrite::write(&pruned, &mut sink)?;
        Ok(sink.finish()?)
    };
    if dry_run {
        write(&mut std::io::sink())?;
    }
    write(out)?;
    Ok((Outcome::Success, warnings))
}

/// The core's knobs: the flags, else the config file's `[prune]` block, else the defaults.
fn options(args: &PruneArgs) -> Result<Options> {
    knobs(Some(args), args.config.clone())
}

/// The knobs of `args` (none: the config file's and the defaults only).
fn knobs(args: Option<&PruneArgs>, config: Option<std::path::PathBuf>) -> Result<Options> {
    let file = settings::config(&SettingsArgs {
        preset: None,
        config,
    })?
    .prune;
    let defaults = Options::default();
    let flag = |get: fn(&PruneArgs) -> Option<usize>| args.and_then(get);
    let protect = args
        .and_then(|a| a.protect.clone())
        .or(file.protect)
        .unwrap_or(defaults.protect);
    Ok(Options {
        keep_turns: flag(|a| a.keep_turns)
            .or(file.keep_turns)
            .unwrap_or(defaults.keep_turns),
        keep: flag(|a| a.keep).or(file.keep).unwrap_or(defaults.keep),
        protect: protect
            .into_iter()
            .filter(|tool| !tool.is_empty())
            .collect(),
        min_tokens: args
            .and_then(|a| a.min_tokens)
            .or(file.min_tokens)
            .unwrap_or(defaults.min_tokens),
        target: args.and_then(|a| a.target).or(file.target),
        trigger: args.and_then(|a| a.trigger).or(file.trigger),
        clear_at_least: args
            .and_then(|a| a.clear_at_least)
            .or(file.clear_at_least)
            .unwrap_or(defaults.clear_at_least),
        clear_inputs: args.is_some_and(|a| a.clear_inputs)
            || file.clear_inputs.unwrap_or(defaults.clear_inputs),
        keep_thinking: flag(|a| a.keep_thinking).or(file.keep_thinking),
    })
}

/// `transcript` pruned, oldest first, toward a live context of `target` tokens with the
/// config file's knobs and the defaults (`compact`'s pruned rung); `None` when nothing can be
/// pruned.
pub fn pruned_toward(
    transcript: &Transcript,
    tokenizer: Tokenizer,
    target: u64,
    config: Option<std::path::PathBuf>,
) -> Result<Option<Vec<u8>>> {
    let options = Options {
        target: Some(target),
        ..knobs(None, config)?
    };
    let plan = plan(transcript, tokenizer, &options)?;
    if plan.choice.nothing.is_some() {
        return Ok(None);
    }
    let pruned = plan.pruned(transcript);
    let mut bytes = Vec::new();
    let mut sink = Sink::new(&mut bytes);
    rewrite::write(&pruned, &mut sink)?;
    sink.finish()?;
    Ok(Some(bytes))
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

/// A live record's message and its sites.
struct Found<'t> {
    position: usize,
    index: usize,
    record: &'t Record<'t>,
    units: u64,
    sites: Vec<Site>,
}

/// A site measured: its size, what replaces it, and what that frees.
struct Sized {
    tokens: u64,
    json: Option<Vec<u8>>,
    pruned: bool,
    saved_units: u64,
    shrinks: bool,
}

/// Finds, measures and chooses. Finding and measuring are independent per record and run on
/// all cores; numbering the tool uses and thinking turns runs in context order.
fn plan(transcript: &Transcript, tokenizer: Tokenizer, options: &Options) -> Result<PrunePlan> {
    let format = transcript
        .format
        .context("an empty transcript has nothing to prune")?;
    let argument_chars =
        MIN_ARGUMENT_CHARS.max(usize::try_from(options.min_tokens * 4).unwrap_or(usize::MAX));

    let mut found: Vec<Found> = (0..transcript.context.len())
        .into_par_iter()
        .filter_map(|position| {
            let record = &transcript.context[position];
            let message = record.message().filter(|m| !m.sidechain)?;
            Some(Found {
                position,
                index: transcript.record_index(position),
                record,
                units: tokenizer.message_units(message),
                sites: sites(format.format(), record.raw),
            })
        })
        .collect();
    // A result names its tool through its call where the result line does not.
    let mut call_names: HashMap<String, String> = HashMap::new();
    for site in found.iter().flat_map(|f| &f.sites) {
        if let (Kind::Arguments, Some(id), Some(tool)) = (&site.kind, &site.call_id, &site.tool) {
            call_names.entry(id.clone()).or_insert_with(|| tool.clone());
        }
    }
    for site in found.iter_mut().flat_map(|f| &mut f.sites) {
        if site.kind == Kind::Result && site.tool.is_none() {
            site.tool = site
                .call_id
                .as_ref()
                .and_then(|id| call_names.get(id))
                .cloned();
        }
    }
    let sized: Vec<Vec<Option<Sized>>> = found
        .par_iter()
        .map(|f| {
            f.sites
                .iter()
                .map(|site| size(format, f, site, tokenizer, argument_chars))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<_>>()?;

    let mut measured = Vec::new();
    let mut candidates = Vec::new();
    let mut tool_units: HashMap<String, usize> = HashMap::new();
    let mut thinking_units: HashMap<u64, usize> = HashMap::new();
    // Results without a call id are each a tool use of their own.
    let mut anonymous = 0usize;
    let mut context_units = 0u64;
    let mut turns = Vec::new();
    for (f, sized) in found.into_iter().zip(sized) {
        context_units += f.units;
        if f.record.message().is_some_and(is_real_user_request) {
            turns.push(f.position);
        }
        for (site, sized) in f.sites.into_iter().zip(sized) {
            let target = match site.kind {
                Kind::Result => Target::Result,
                Kind::Arguments => Target::Arguments,
                Kind::Thinking => Target::Thinking,
            };
            // Every tool use is numbered, also those with nothing to prune: `--keep` counts
            // the most recent tool uses, whatever their size.
            let unit = match target {
                Target::Thinking => {
                    // One response is one thinking turn (Claude Code writes it as several
                    // lines sharing its message id).
                    let key = f.record.link.response.unwrap_or(u64::MAX - f.index as u64);
                    let next = thinking_units.len();
                    *thinking_units.entry(key).or_insert(next)
                }
                _ => {
                    let key = site.call_id.clone().unwrap_or_else(|| {
                        anonymous += 1;
                        format!("\0{anonymous}")
                    });
                    let next = tool_units.len();
                    *tool_units.entry(key).or_insert(next)
                }
            };
            let Some(sized) = sized else { continue };
            candidates.push(Candidate {
                target,
                position: f.position,
                unit,
                tool: site.tool.clone(),
                tokens: sized.tokens,
                saved_units: sized.saved_units,
                shrinks: sized.shrinks,
                pruned: sized.pruned,
            });
            measured.push(Measured {
                record: f.index,
                site,
                json: sized.json,
            });
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

/// Measures one site; `None` for arguments with nothing long enough to prune.
fn size(
    format: FormatId,
    found: &Found,
    site: &Site,
    tokenizer: Tokenizer,
    argument_chars: usize,
) -> Result<Option<Sized>> {
    let raw = found.record.raw;
    let tokens = tokenizer.tokens(tokenizer.text_units(&site.text));
    let (json, pruned) = match site.kind {
        Kind::Result => {
            let text = result_placeholder(site.tool.as_deref(), tokens, &site.text);
            (
                Some(replacement(site.shape, &text)),
                is_placeholder(&site.text),
            )
        }
        Kind::Arguments => {
            let Some(span) = value_at(raw, &site.path) else {
                return Ok(None);
            };
            let shrink = |text: &str| {
                (!is_placeholder(text)).then(|| {
                    argument_placeholder(tokenizer.tokens(tokenizer.text_units(text)), text)
                })
            };
            match shrunk_arguments(site.shape, &raw[span], argument_chars, &shrink) {
                Some(json) => (Some(json), false),
                // Nothing long left: already pruned, or short to begin with.
                None if site.text.contains(PLACEHOLDER) => (None, true),
                None => return Ok(None),
            }
        }
        Kind::Thinking => (None, false),
    };
    let saved_units = if pruned {
        0
    } else {
        saved_units(
            format,
            found.record,
            site,
            json.as_deref(),
            tokenizer,
            found.units,
        )?
    };
    let shrinks = match (&json, site.shape) {
        (Some(json), _) => value_at(raw, &site.path).is_some_and(|span| json.len() < span.len()),
        (None, Shape::Remove | Shape::DropLine) => true,
        (None, _) => false,
    };
    Ok(Some(Sized {
        tokens,
        json,
        pruned,
        saved_units,
        shrinks,
    }))
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
    let saved = units.saturating_sub(after);
    // Arguments are sent to the model whether or not the estimator counts them (chars/4, as
    // kimi-cli's, counts text only): what shrinking them frees comes off the provider's figure
    // all the same, so it is measured as text.
    if let (Kind::Arguments, Some(json)) = (&site.kind, json) {
        let new = serde_json::from_slice::<String>(json)
            .unwrap_or_else(|_| String::from_utf8_lossy(json).into_owned());
        let freed = tokenizer
            .text_units(&site.text)
            .saturating_sub(tokenizer.text_units(&new));
        return Ok(saved.max(freed));
    }
    Ok(saved)
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
    /// Each value pruned, oldest first.
    items: Vec<Item>,
}

/// One pruned value in the `--report` line.
#[derive(Serialize)]
struct Item {
    /// The line number of its record.
    line: usize,
    /// `result`, `arguments` or `thinking`.
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    /// Its size before.
    tokens: u64,
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
    /// The writer's input: the chosen sites by record.
    fn pruned<'p, 'a>(&'p self, transcript: &'p Transcript<'a>) -> Pruned<'p, 'a> {
        let mut edits: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
        for &i in &self.choice.chosen {
            let measured = &self.measured[i];
            edits
                .entry(measured.record)
                .or_default()
                .push((&measured.site, measured.json.as_deref()));
        }
        Pruned {
            transcript,
            edits,
            tokens_before: self.choice.tokens_before,
            tokens_after: self.choice.tokens_after,
        }
    }

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
            items: self
                .choice
                .chosen
                .iter()
                .map(|&i| {
                    let candidate = &self.candidates[i];
                    Item {
                        line: transcript.records[self.measured[i].record].line,
                        kind: match candidate.target {
                            Target::Result => "result",
                            Target::Arguments => "arguments",
                            Target::Thinking => "thinking",
                        },
                        tool: candidate.tool.clone(),
                        tokens: candidate.tokens,
                    }
                })
                .collect(),
        }
    }
}
