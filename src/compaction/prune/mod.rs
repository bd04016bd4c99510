//! Prune's measurement: the prunable values of the live context (the format's [`sites`]), each
//! measured (its tokens, and the estimator units the context loses when it is replaced, see
//! [`measure`]), numbered into tool uses and thinking turns, and handed to the pure choice
//! ([`choose`]); then what the choice writes ([`PrunePlan::pruned`], for
//! [`rewrite::write`]) and what `prune --report` says ([`report`]).

pub mod measure;
pub mod report;

use std::collections::{BTreeMap, HashMap};

use anyhow::{Context as _, Result};
use rayon::prelude::*;

use self::measure::{size, Found, Spot, MIN_ARGUMENT_CHARS};
use super::context::live_context;
use crate::prune::{choose, Candidate, Choice, Context, Options, Target};
use crate::tokens::Tokenizer;
use crate::transcript::classify::is_real_user_request;
use crate::transcript::load::Transcript;
use crate::transcript::prune::rewrite::{self, Edit, Pruned};
use crate::transcript::prune::{sites, Kind, Site};
use crate::transcript::write::Sink;
use crate::transcript::{FormatId, Record};

/// A measured value: where it is, and what replacing it writes.
pub struct Measured {
    /// The record (index into the transcript's records).
    pub record: usize,
    /// Where the value is in the record (its `text` taken out when it was found).
    pub site: Site,
    /// The edit: the JSON that replaces the value, or `None` for a removal.
    pub json: Option<Vec<u8>>,
}

/// What prune found and chose.
pub struct PrunePlan {
    /// The transcript's format.
    pub format: FormatId,
    /// Every candidate's value, in the order of `candidates`.
    pub measured: Vec<Measured>,
    /// Every value that may be pruned, in context order.
    pub candidates: Vec<Candidate>,
    /// What is pruned.
    pub choice: Choice,
}

/// Finds, measures and chooses what to prune of `transcript` by `options`. Naming the calls'
/// tools, then finding and measuring, are independent per record and run on all cores;
/// numbering the tool uses and thinking turns runs in context order.
pub fn plan(transcript: &Transcript, tokenizer: Tokenizer, options: &Options) -> Result<PrunePlan> {
    let format = transcript
        .format
        .context("an empty transcript has nothing to prune")?;
    let argument_chars =
        MIN_ARGUMENT_CHARS.max(usize::try_from(options.min_tokens * 4).unwrap_or(usize::MAX));
    let names = call_names(transcript, format);
    let found = find(transcript, format, tokenizer, &names, argument_chars)?;
    drop(names);
    let numbered = number(found);
    let view = live_context(transcript, tokenizer);
    let context = Context {
        tokenizer,
        units: numbered.context_units,
        tokens: view.tokens,
        usage: view.usage.is_some(),
        turns: numbered.turns,
    };
    let choice = choose(&numbered.candidates, &context, options);
    Ok(PrunePlan {
        format,
        measured: numbered.measured,
        candidates: numbered.candidates,
        choice,
    })
}

/// The record at `position` of the live context, when it is a main-chain message (what prune
/// reads).
fn main_chain<'t>(transcript: &'t Transcript, position: usize) -> Option<&'t Record<'t>> {
    let record = &transcript.context()[position];
    record.message().filter(|m| !m.sidechain)?;
    Some(record)
}

/// The tool of each call of the main-chain messages, by call id (the first call of an id
/// names it), to name the results whose line does not. Gathered before anything is measured,
/// from the calls' sites alone, so that each record can be measured as it is found (see
/// [`measure`]'s module docs).
fn call_names(transcript: &Transcript, format: FormatId) -> HashMap<String, String> {
    let calls: Vec<Vec<(String, String)>> = (0..transcript.context().len())
        .into_par_iter()
        .filter_map(|position| {
            let record = main_chain(transcript, position)?;
            let calls: Vec<(String, String)> = sites(format.format(), record.raw)
                .into_iter()
                .filter(|site| site.kind == Kind::Arguments)
                .filter_map(|site| Some((site.call_id?, site.tool?)))
                .collect();
            (!calls.is_empty()).then_some(calls)
        })
        .collect();
    let mut names = HashMap::new();
    for (id, tool) in calls.into_iter().flatten() {
        names.entry(id).or_insert(tool);
    }
    names
}

/// The main-chain messages of the live context, with their prunable values measured (a
/// result's tool named by `names` where its line does not name it).
fn find<'t>(
    transcript: &'t Transcript,
    format: FormatId,
    tokenizer: Tokenizer,
    names: &HashMap<String, String>,
    argument_chars: usize,
) -> Result<Vec<Found<'t>>> {
    (0..transcript.context().len())
        .into_par_iter()
        .filter_map(|position| {
            let record = main_chain(transcript, position)?;
            let message = record.message()?;
            let units = tokenizer.message_units(message);
            let sites = sites(format.format(), record.raw);
            // Sized exactly, as a collect through `Result` would not: most messages hold one
            // value, and room for four in each of them took 23 MB more at compact's peak.
            let mut values = Vec::with_capacity(sites.len());
            for mut site in sites {
                if site.kind == Kind::Result && site.tool.is_none() {
                    site.tool = site.call_id.as_ref().and_then(|id| names.get(id)).cloned();
                }
                let spot = Spot::new(site, tokenizer);
                match size(format, record, units, &spot, tokenizer, argument_chars) {
                    Ok(sized) => values.push((spot.site, sized)),
                    Err(error) => return Some(Err(error)),
                }
            }
            Some(Ok(Found {
                position,
                index: transcript.record_index(position),
                record,
                units,
                values,
            }))
        })
        .collect()
}

/// The values measured, numbered into units, and what the choice needs of the context.
struct Numbered {
    measured: Vec<Measured>,
    candidates: Vec<Candidate>,
    context_units: u64,
    turns: Vec<usize>,
}

/// Numbers every value's unit in context order (a tool use for results and arguments, a
/// thinking turn for thinking) and makes the candidates of those that can be pruned.
fn number(found: Vec<Found>) -> Numbered {
    // Sized exactly: grown by doubling, the two lists (a few hundred thousand values in a
    // 100 MiB session) held up to twice their size at compact's peak, and left the buffers
    // they outgrew to the allocator.
    let count = found
        .iter()
        .flat_map(|f| &f.values)
        .filter(|(_, sized)| sized.is_some())
        .count();
    let mut numbered = Numbered {
        measured: Vec::with_capacity(count),
        candidates: Vec::with_capacity(count),
        context_units: 0,
        turns: Vec::new(),
    };
    let mut tool_units: HashMap<String, usize> = HashMap::new();
    let mut thinking_units: HashMap<u64, usize> = HashMap::new();
    // Results without a call id are each a tool use of their own.
    let mut anonymous = 0usize;
    for f in found {
        numbered.context_units += f.units;
        if f.record.message().is_some_and(is_real_user_request) {
            numbered.turns.push(f.position);
        }
        for (site, sized) in f.values {
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
            numbered.candidates.push(Candidate {
                target,
                position: f.position,
                unit,
                tool: site.tool.clone(),
                tokens: sized.tokens,
                saved_units: sized.saved_units,
                shrinks: sized.shrinks,
                pruned: sized.pruned,
            });
            numbered.measured.push(Measured {
                record: f.index,
                site,
                json: sized.json,
            });
        }
    }
    numbered
}

impl PrunePlan {
    /// The writer's input: the chosen values by record.
    pub fn pruned<'p, 'a>(&'p self, transcript: &'p Transcript<'a>) -> Pruned<'p, 'a> {
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

    /// The pruned session, written to `out` in the transcript's own format.
    pub fn write(&self, transcript: &Transcript, out: &mut dyn std::io::Write) -> Result<()> {
        let mut sink = Sink::new(out);
        rewrite::write(&self.pruned(transcript), &mut sink)?;
        Ok(sink.finish()?)
    }
}

/// `transcript` pruned by `options` (the config file's knobs and the defaults), oldest first,
/// toward a live context of `target` tokens (`compact`'s pruned rung): what was chosen (which
/// [`PrunePlan::write`] writes); `None` when nothing can be pruned.
pub fn pruned_toward(
    transcript: &Transcript,
    tokenizer: Tokenizer,
    target: u64,
    options: &Options,
) -> Result<Option<PrunePlan>> {
    let options = Options {
        target: Some(target),
        ..options.clone()
    };
    let plan = plan(transcript, tokenizer, &options)?;
    Ok(plan.choice.nothing.is_none().then_some(plan))
}

#[cfg(test)]
mod tests;
