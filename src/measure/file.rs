//! A whole file measured, streamed: each block's lines read and measured on all cores, the
//! measures folded in line order into the file's totals, then the live context found by the
//! agent's own rule and folded in its order (by [`Measure::add_context`]). Each record's measure
//! is kept until then, in few bytes and never with its text (the `kept` module). `estimate`
//! reports it.

use std::io::Read;

use anyhow::Result;
use rayon::prelude::*;

use super::kept::{Expected, Kept};
use super::{Measure, RecordMeasure};
use crate::input::{for_each_block, Block, Line};
use crate::tokens::{Estimator, Tokenizer};
use crate::transcript::format::session_tokenizer;
use crate::transcript::live::{live, newest_void, Live};
use crate::transcript::read::{detect_format, no_message_error, read_each_record, BadLine};
use crate::transcript::trigger::Earlier;
use crate::transcript::{FormatId, Role};

/// How a file is read and what is noted of it.
pub struct FileOptions {
    /// The format, instead of detecting it.
    pub from: Option<FormatId>,
    /// Skip malformed lines instead of failing.
    pub skip_invalid: bool,
    /// How tokens are counted: the estimator named, or the session's own, picked from the
    /// first block (see [`crate::transcript::format::Format::default_tokenizer`]).
    pub estimator: Estimator,
    /// Keep a row per message of the live context.
    pub per_message: bool,
    /// Every record is the context, in file order.
    pub whole_file: bool,
    /// Note the model the session last names (for `--max-context auto`, `--explain` and the
    /// table); it costs a look at every line.
    pub model: bool,
    /// Note the agent's earlier compactions, for `--explain`.
    pub explain: bool,
}

/// Everything measured in one file.
pub struct FileReport {
    /// Its name.
    pub name: String,
    /// Its format, when it has a message.
    pub format: Option<FormatId>,
    /// The live context (or, with --whole-file, every record).
    pub measure: Measure,
    /// Every record of the file.
    pub file: Measure,
    /// Each record's measure, in file order, until the live context is known.
    records: Kept,
    /// Per-message rows of the live context, kept only for --per-message.
    pub rows: Vec<MessageRow>,
    /// Malformed lines skipped under --skip-invalid: how many.
    pub skipped: u64,
    /// ... and the first one's message.
    pub first_skipped: Option<String>,
    /// The number of a cut-off last line that was left out.
    pub incomplete_line: Option<usize>,
    /// The last model the session names (read only when [`FileOptions::model`] asks).
    pub model: Option<String>,
    /// The context sizes before the agent's earlier compactions (read only for `--explain`).
    pub earlier: Vec<Earlier>,
}

/// One message of the live context (`--per-message`).
pub struct MessageRow {
    /// Its position among the rows.
    pub index: usize,
    /// Its line number.
    pub line: usize,
    /// Its role.
    pub role: Role,
    /// True for a sub-agent message.
    pub sidechain: bool,
    /// Its estimator units.
    pub units: u64,
}

/// Measures the file `name`, read from `reader` block by block (the measuring of each block
/// on all cores, folded in line order), then folds its live context.
pub fn measure_file(
    name: &str,
    reader: impl Read + Send,
    options: &FileOptions,
) -> Result<FileReport> {
    let name = name.to_owned();
    // Until a first line tells the format, the plain message list's (which an input with no
    // line keeps, as `Transcript::dialect` does).
    let mut tokenizer = session_tokenizer(FormatId::Openai.format(), options.estimator, None);
    let mut report = FileReport::new(&name, options.from, tokenizer);
    let mut detected = options.from.is_some();
    let mut resolved = matches!(options.estimator, Estimator::Given(_));
    // Each block's measures are folded while the next block is measured: folding runs in
    // line order on one thread, and would otherwise leave the other cores idle.
    let mut pending: Option<Measured> = None;
    for_each_block(&name, reader, |block| {
        if !detected {
            report.format = detect_format(&name, block.lines())?;
            detected = report.format.is_some();
        }
        let Some(format) = report.format else {
            return Ok(()); // only blank lines so far
        };
        if !resolved {
            resolved = true;
            // The first block with a line: the session's own estimator, for the first model
            // the block names.
            let agent = format.format();
            let model = block.lines().find_map(|l| agent.model(l.text));
            tokenizer = session_tokenizer(agent, options.estimator, model.as_deref());
            report.measure = Measure::new(tokenizer);
            report.file = Measure::new(tokenizer);
        }
        if options.model {
            let lines: Vec<Line> = block.lines().collect();
            if let Some(model) = lines
                .iter()
                .rev()
                .find_map(|l| format.format().model(l.text))
            {
                report.model = Some(model);
            }
        }
        if options.explain {
            report.earlier.extend(
                block
                    .lines()
                    .filter_map(|l| format.format().recorded(l.number, l.text)),
            );
        }
        let previous = pending.take();
        let (folded, measured) = rayon::join(
            || previous.map_or(Ok(()), |measured| report.fold_block(measured, options)),
            || measure_block(format, block, tokenizer),
        );
        folded?;
        pending = Some(measured);
        Ok(())
    })?;
    if let Some(measured) = pending {
        report.fold_block(measured, options)?;
    }
    report.finish(options)?;
    Ok(report)
}

/// Drops the records on a thread of their own when they are many (or here when no thread can
/// be started). Dropping them takes a pass of its own (each link is looked at for memory it
/// owns): some 20 ms on a million records, which the report need not wait for, and less than
/// starting a thread on the few of a session of ordinary size.
fn drop_aside(records: Kept) {
    const MANY: usize = 1 << 16;
    if records.len() >= MANY {
        let _ = std::thread::Builder::new().spawn(move || drop(records));
    }
}

/// What measuring a block gives, in line order: the measure of each record, or the number of
/// a line that could not be read and what is wrong with it. One list per run of lines, each
/// measured as one job, rather than a list per line.
pub(super) type Measured = Vec<Vec<std::result::Result<RecordMeasure, (usize, BadLine)>>>;

/// How many lines one job measures. Rayon hands a thread a run of jobs at a time and halves a
/// run only when an idle thread takes part of it, so small jobs cost little while every core
/// is busy, and near the end of a block no core waits long for the last one: with jobs of 256
/// lines, one core waited half a job for each 2 MiB block. Balanced this finely, `estimate`
/// took 0.95x the wall time on the 1 GiB pi bench file and 0.96x on Claude Code's (paired
/// `farm-bench` runs).
const LINES_A_JOB: usize = 16;

/// Measures the lines of a block on all cores.
fn measure_block(format: FormatId, block: &Block, tokenizer: Tokenizer) -> Measured {
    measure_lines(format, block.lines(), tokenizer)
}

/// Measures `lines` on all cores.
pub(super) fn measure_lines<'l>(
    format: FormatId,
    lines: impl Iterator<Item = Line<'l>>,
    tokenizer: Tokenizer,
) -> Measured {
    let lines: Vec<Line> = lines.filter(|l| !l.is_blank()).collect();
    lines
        .par_chunks(LINES_A_JOB)
        .map(|lines| {
            let mut measures = Vec::with_capacity(lines.len());
            for line in lines {
                let read = read_each_record(format, line, &mut |record| {
                    measures.push(Ok(RecordMeasure::of(tokenizer, &record)));
                });
                if let Err(bad) = read {
                    measures.push(Err((line.number, bad)));
                }
            }
            measures
        })
        .collect()
}

impl FileReport {
    /// The report of a file named `name` before any line of it is measured.
    pub(super) fn new(name: &str, format: Option<FormatId>, tokenizer: Tokenizer) -> Self {
        FileReport {
            name: name.to_owned(),
            format,
            measure: Measure::new(tokenizer),
            file: Measure::new(tokenizer),
            records: Kept::default(),
            rows: Vec::new(),
            skipped: 0,
            first_skipped: None,
            incomplete_line: None,
            model: None,
            earlier: Vec::new(),
        }
    }

    /// Room in the kept measures for the records `expected` (see [`Kept::reserve`]).
    pub(super) fn reserve(&mut self, expected: Expected) {
        self.records.reserve(expected);
    }

    /// Once every line is folded: a file of the format named (`--from`) that holds records but
    /// no message is an error; else its live context is folded.
    pub(super) fn finish(&mut self, options: &FileOptions) -> Result<()> {
        if let Some(format) = options.from {
            let read_one = self
                .records
                .messages()
                .iter()
                .any(|m| m.parts.iter().any(|kind| kind.count > 0));
            if !read_one && !self.records.is_empty() {
                return Err(no_message_error(&self.name, format));
            }
        }
        self.fold_live(options);
        Ok(())
    }

    /// Folds a block's measures into the file's totals, in line order; a bad line is an error
    /// naming it, unless invalid lines are skipped.
    ///
    /// The measures are read where they lie: moved out of the list one by one, each was copied
    /// twice more on the thread every block waits for.
    pub(super) fn fold_block(
        &mut self,
        mut measured: Measured,
        options: &FileOptions,
    ) -> Result<()> {
        for result in measured.iter_mut().flatten() {
            let (line, bad) = match result {
                Ok(record) => {
                    self.file.add(record);
                    self.records.push(record);
                    continue;
                }
                // Taken out of the list, which is dropped next.
                Err((line, bad)) => (*line, std::mem::replace(bad, BadLine::Incomplete)),
            };
            match bad {
                BadLine::Incomplete => self.incomplete_line = Some(line),
                BadLine::Invalid(error) if options.skip_invalid => {
                    self.skipped += 1;
                    let name = &self.name;
                    self.first_skipped
                        .get_or_insert_with(|| format!("{name}:{line}: {error:#}"));
                }
                BadLine::Invalid(error) => {
                    return Err(error.context(format!("{}:{line}", self.name)));
                }
            }
        }
        Ok(())
    }

    /// Folds the live context of the measured records into `measure` (and `rows`).
    fn fold_live(&mut self, options: &FileOptions) {
        let records = std::mem::take(&mut self.records);
        let size_before = self.format.and_then(|f| f.format().size_before_marker());
        if let (true, Some(field)) = (options.explain, size_before) {
            self.earlier = usage_before_markers(&records, field);
        }
        let live = match self.format {
            Some(format) if !options.whole_file => {
                // This runs on one thread after the file is read, over a million records of a
                // large file: the cores share the pass.
                let nodes: Vec<_> = (0..records.len())
                    .into_par_iter()
                    .map(|index| records.node(index))
                    .collect();
                live(format.format(), &nodes)
            }
            _ => Live {
                marker: (0..records.len()).rposition(|index| records.compaction(index)),
                ..Live::whole(records.len())
            }
            .voiding_before(newest_void(
                (0..records.len()).map(|index| records.link(index)),
            )),
        };
        if options.per_message {
            for &index in &live.order {
                if let Some(message) = records.message(index) {
                    self.rows.push(MessageRow {
                        index: self.rows.len(),
                        line: records.line(index),
                        role: message.role,
                        sidechain: message.sidechain,
                        units: message.units,
                    });
                }
            }
        }
        let in_order = live
            .order
            .iter()
            .map(|&index| (index, (records.message(index), records.usage(index))));
        self.measure
            .add_context(&live, |i| records.link(i), records.len(), in_order);
        drop_aside(records);
    }
}

/// For an agent whose compaction markers record no size (Codex's `compacted` item): the
/// context size before each one is the last usage figure recorded before it, named `field`.
fn usage_before_markers(records: &Kept, field: &'static str) -> Vec<Earlier> {
    let mut last = None;
    let mut earlier = Vec::new();
    for index in 0..records.len() {
        if records.compaction(index) {
            if let Some(tokens) = last.take() {
                earlier.push(Earlier {
                    line: records.line(index),
                    tokens,
                    field,
                });
            }
        }
        if let Some(usage) = records.usage(index) {
            last = Some(usage.context_tokens);
        }
    }
    earlier
}
