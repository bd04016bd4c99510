//! `condense estimate`: token counts, the context size and the compaction trigger.
//!
//! Files are measured in parallel and reported in argument order. Each file is streamed block
//! by block, the lines of a block are read and measured on all cores, and the measures are
//! folded in line order into the whole file's totals. Each record's measure is also kept (a
//! small, fixed-size node, never its text) so that, once the whole file has been read, the
//! live context can be found by the agent's own rule and folded in its order: that is what
//! `tokens`, `messages`, `by_role`, `by_part` and `context` describe, while `file` keeps the
//! totals of every line. Nothing is printed until every file has been measured, so a bad line
//! anywhere leaves stdout empty, unless `--keep-going` asks to report the other files.

use std::io::Write;

use anyhow::{bail, Result};
use rayon::prelude::*;
use serde::Serialize;

use crate::cli::{EstimateArgs, ReportFormat};
use crate::cmd::settings;
use crate::cmd::shared::sources;
use crate::input::{for_each_block, Block, Line, Source};
use crate::measure::{compaction_due, scaled_reserve, Measure, RecordMeasure};
use crate::output::{self, Warnings};
use crate::settings::{Flags, MaxContext, Settings};
use crate::tokens::Tokenizer;
use crate::transcript::live::{live, newest_void, Live};
use crate::transcript::read::{detect_format, no_message_error, read_each_record, BadLine};
use crate::transcript::trigger::Earlier;
use crate::transcript::{FormatId, PartKind, Role};
use crate::trigger::report::{check_compacts_at, Check, Explain};
use crate::{Outcome, UsageError};

/// Runs `estimate`.
pub fn run(args: &EstimateArgs, out: &mut dyn Write) -> Result<Outcome> {
    let tokenizer = args.tokens.tokenizer()?;
    let settings = settings::load(
        &args.settings,
        Flags {
            trigger_ratio: args.trigger_ratio,
            reserved: args.reserved,
            max_context: args.max_context,
            ..Flags::default()
        },
    )?;
    if args.check && settings.max_context.is_none() {
        let why = "--check needs a window: --max-context, a preset that has one (acf), or \
                   max_context in the config file";
        return Err(UsageError(why.to_owned()).into());
    }
    // --explain needs a window: --max-context's or the configured one, else the model's.
    let window = settings
        .max_context
        .or(args.explain.then_some(MaxContext::Auto));
    let inputs = sources(&args.input)?;
    let options = ReadOptions {
        from: args.input.read.from,
        skip_invalid: args.input.read.skip_invalid,
        tokenizer,
        per_message: args.per_message,
        whole_file: args.input.read.whole_file,
        model: window == Some(MaxContext::Auto) || args.explain,
        explain: args.explain,
    };
    let measured: Vec<Result<FileReport>> = inputs
        .par_iter()
        .map(|input| match input {
            Ok(source) => measure_source(source, &options),
            Err(error) => Err(anyhow::anyhow!("{error:#}")),
        })
        .collect();
    // Without --keep-going the first failure in argument order is the error, and nothing is
    // printed; with it, each failure is reported in order and the others are measured.
    let mut reports = Vec::with_capacity(measured.len());
    let mut failed = 0;
    for result in measured {
        match result {
            Ok(report) => reports.push(report),
            Err(error) if args.keep_going => {
                failed += 1;
                eprintln!(
                    "condense: error: {}",
                    output::sanitize(&format!("{error:#}"))
                );
            }
            Err(error) => return Err(error),
        }
    }

    let mut warnings = Warnings::default();
    for report in &reports {
        report.warn(&mut warnings);
    }
    let summaries: Vec<Summary> = reports
        .iter()
        .map(|r| r.summary(args, &settings, window))
        .collect::<Result<_>>()?;
    let due = summaries
        .iter()
        .any(|s| s.compaction.as_ref().is_some_and(|c| c.due));
    for summary in &summaries {
        match &summary.compaction {
            Some(trigger) if trigger.reserved != settings.reserved && !args.quiet => {
                warnings.note(format!(
                "{}: the preset's reserve of {} tokens is half the {}-token window or more, so \
                 {} ({:.0}% of it, what the trigger ratio leaves) is used instead",
                summary.file,
                settings.reserved,
                trigger.max_context,
                trigger.reserved,
                (1.0 - trigger.trigger_ratio) * 100.0
            ))
            }
            _ => {}
        }
    }

    if args.quiet {
        // --check --quiet: the exit status is the answer.
    } else if args.total {
        let total: u64 = summaries.iter().map(Summary::headline_tokens).sum();
        writeln!(out, "{total}")?;
    } else if args.per_message {
        write_per_message(out, args.format, &reports)?;
    } else {
        write_summaries(out, args.format, &summaries, !args.no_total)?;
    }
    warnings.print();
    if failed > 0 {
        // The report of the others is complete; flush it before the error ends the run.
        out.flush()?;
        bail!(
            "{failed} of {} inputs could not be read (reported above)",
            inputs.len()
        );
    }
    Ok(if args.check && due {
        Outcome::CompactionDue
    } else {
        Outcome::Success
    })
}

struct ReadOptions {
    from: Option<FormatId>,
    skip_invalid: bool,
    tokenizer: Tokenizer,
    per_message: bool,
    whole_file: bool,
    /// Note the model the session records, for `--max-context auto`.
    model: bool,
    /// Note the agent's earlier compactions, for `--explain`.
    explain: bool,
}

/// Everything measured in one input.
struct FileReport {
    name: String,
    format: Option<FormatId>,
    /// The live context (or, with --whole-file, every record).
    measure: Measure,
    /// Every record of the file.
    file: Measure,
    /// Each record's measure, in file order, until the live context is known.
    records: Vec<RecordMeasure>,
    /// Per-message rows of the live context, kept only for --per-message.
    rows: Vec<MessageRow>,
    /// Malformed lines skipped under --skip-invalid: how many, and the first one's message.
    skipped: u64,
    first_skipped: Option<String>,
    /// The number of a cut-off last line that was left out.
    incomplete_line: Option<usize>,
    /// The last model the session names (read only for `--max-context auto`).
    model: Option<String>,
    /// The context sizes before the agent's earlier compactions (read only for `--explain`).
    earlier: Vec<Earlier>,
}

struct MessageRow {
    index: usize,
    line: usize,
    role: Role,
    sidechain: bool,
    units: u64,
}

fn measure_source(source: &Source, options: &ReadOptions) -> Result<FileReport> {
    let name = source.name();
    let mut report = FileReport {
        name: name.clone(),
        format: options.from,
        measure: Measure::new(options.tokenizer),
        file: Measure::new(options.tokenizer),
        records: Vec::new(),
        rows: Vec::new(),
        skipped: 0,
        first_skipped: None,
        incomplete_line: None,
        model: None,
        earlier: Vec::new(),
    };
    let mut detected = options.from.is_some();
    // Each block's measures are folded while the next block is measured: folding runs in
    // line order on one thread, and would otherwise leave the other cores idle.
    let mut pending: Option<Measured> = None;
    for_each_block(&name, source.open()?, |block| {
        if !detected {
            report.format = detect_format(&name, block.lines())?;
            detected = report.format.is_some();
        }
        let Some(format) = report.format else {
            return Ok(()); // only blank lines so far
        };
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
            || measure_block(format, block, options.tokenizer),
        );
        folded?;
        pending = Some(measured);
        Ok(())
    })?;
    if let Some(measured) = pending {
        report.fold_block(measured, options)?;
    }
    if let Some(format) = options.from {
        let read_one = report.records.iter().any(|record| {
            record
                .message
                .as_ref()
                .is_some_and(|m| m.parts.iter().any(|kind| kind.count > 0))
        });
        if !read_one && !report.records.is_empty() {
            return Err(no_message_error(&name, format));
        }
    }
    report.fold_live(options);
    Ok(report)
}

/// Drops the records on a thread of their own when they are many (or here when no thread can
/// be started). Dropping them takes a pass of its own (each link is looked at for memory it
/// owns): some 20 ms on a million records, which the report need not wait for, and less than
/// starting a thread on the few of a session of ordinary size.
fn drop_aside(records: Vec<RecordMeasure>) {
    const MANY: usize = 1 << 16;
    if records.len() >= MANY {
        let _ = std::thread::Builder::new().spawn(move || drop(records));
    }
}

/// What measuring a block gives, in line order: the measure of each record, or the number of
/// a line that could not be read and what is wrong with it. One list per run of lines, each
/// measured as one job, rather than a list per line.
type Measured = Vec<Vec<std::result::Result<RecordMeasure, (usize, BadLine)>>>;

/// How many lines one job measures. Rayon hands a thread a run of jobs at a time and halves a
/// run only when an idle thread takes part of it, so small jobs cost little while every core
/// is busy, and near the end of a block no core waits long for the last one: with jobs of 256
/// lines, one core waited half a job for each 2 MiB block. Balanced this finely, `estimate`
/// took 0.95x the wall time on the 1 GiB pi bench file and 0.96x on Claude Code's (paired
/// `farm-bench` runs).
const LINES_A_JOB: usize = 16;

/// Measures the lines of a block on all cores.
fn measure_block(format: FormatId, block: &Block, tokenizer: Tokenizer) -> Measured {
    let lines: Vec<Line> = block.lines().filter(|l| !l.is_blank()).collect();
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
    /// Folds a block's measures into the file's totals, in line order; a bad line is an error
    /// naming it, unless invalid lines are skipped.
    fn fold_block(&mut self, measured: Measured, options: &ReadOptions) -> Result<()> {
        for result in measured.into_iter().flatten() {
            match result {
                Ok(record) => {
                    self.file.add(&record);
                    self.records.push(record);
                }
                Err((line, BadLine::Incomplete)) => self.incomplete_line = Some(line),
                Err((line, BadLine::Invalid(error))) if options.skip_invalid => {
                    self.skipped += 1;
                    let name = &self.name;
                    self.first_skipped
                        .get_or_insert_with(|| format!("{name}:{line}: {error:#}"));
                }
                Err((line, BadLine::Invalid(error))) => {
                    return Err(error.context(format!("{}:{line}", self.name)));
                }
            }
        }
        Ok(())
    }

    /// Folds the live context of the measured records into `measure` (and `rows`).
    fn fold_live(&mut self, options: &ReadOptions) {
        let records = std::mem::take(&mut self.records);
        let size_before = self.format.and_then(|f| f.format().size_before_marker());
        if let (true, Some(field)) = (options.explain, size_before) {
            self.earlier = usage_before_markers(&records, field);
        }
        let live = match self.format {
            Some(format) if !options.whole_file => {
                // This runs on one thread after the file is read, over a million records of a
                // large file: the cores share the pass.
                let nodes: Vec<_> = records.par_iter().map(RecordMeasure::node).collect();
                live(format.format(), &nodes)
            }
            _ => Live {
                marker: records.iter().rposition(|r| r.compaction),
                ..Live::whole(records.len())
            }
            .voiding_before(newest_void(records.iter().map(|r| &r.link))),
        };
        let fresh = live.fresh(|i| &records[i].link);
        for &index in &live.order {
            let record = &records[index];
            if let (true, Some(message)) = (options.per_message, &record.message) {
                self.rows.push(MessageRow {
                    index: self.rows.len(),
                    line: record.line,
                    role: message.role,
                    sidechain: message.sidechain,
                    units: message.units,
                });
            }
            match fresh {
                Some((marker, tokens)) if index <= marker => {
                    self.measure.add_covered(record, tokens)
                }
                _ => self.measure.add_live(record, live.usage_counts(index)),
            }
        }
        drop_aside(records);
    }

    fn warn(&self, warnings: &mut Warnings) {
        if let Some(line) = self.incomplete_line {
            let whose = if crate::persist::journal::left_beside(std::path::Path::new(&self.name)) {
                "condense's own records, left by a killed run; an --in-place run removes them"
            } else {
                "a session still being written?"
            };
            warnings.push(format!(
                "{}:{line}: the last line is cut off ({whose}); not counted",
                self.name
            ));
        }
        if let Some(first) = &self.first_skipped {
            warnings.push(format!(
                "{}: skipped {} malformed line(s); the first: {first}",
                self.name, self.skipped
            ));
        }
    }

    /// The reserve against this file's window: the preset's is scaled when it does not fit (see
    /// [`scaled_reserve`]); one the user gave that does not fit is refused, as it would make
    /// compaction due at every run.
    fn reserve_for(&self, window: u64, settings: &Settings) -> Result<u64> {
        match scaled_reserve(settings.reserved, window, settings.trigger_ratio) {
            None => Ok(settings.reserved),
            Some(_) if settings.reserved_given => Err(UsageError(format!(
                "{}: a reserve of {} tokens does not fit a window of {window}: compaction would \
                 be due after every compaction; give --reserved (or the config file's reserved) \
                 below {}",
                self.name,
                settings.reserved,
                window.div_ceil(2)
            ))
            .into()),
            Some(scaled) => Ok(scaled),
        }
    }

    fn summary(
        &self,
        args: &EstimateArgs,
        settings: &Settings,
        window: Option<MaxContext>,
    ) -> Result<Summary> {
        let measure = &self.measure;
        let tokenizer = measure.tokenizer;
        let tally = |t: &crate::measure::Tally| Counted {
            count: t.count,
            tokens: tokenizer.tokens(t.units),
        };
        let max_context = window
            .map(|max| settings::window(max, self.model.as_deref(), settings, &self.name))
            .transpose()?;
        let wants_context = args.context || max_context.is_some();
        let reserved = max_context
            .map(|window| self.reserve_for(window, settings))
            .transpose()?
            .unwrap_or(settings.reserved);
        let context = measure.context();
        let explain = match (args.explain, self.format, max_context) {
            (true, Some(format), Some(window)) => format
                .format()
                .native(window, self.model.as_deref())
                .map(|native| {
                    let check = Check {
                        compacts_at: check_compacts_at(window, settings.trigger_ratio, reserved),
                        trigger_ratio: settings.trigger_ratio,
                        reserved,
                        preset: settings.preset.name,
                    };
                    Explain::new(
                        native,
                        self.model.clone(),
                        context.tokens,
                        check,
                        &self.earlier,
                    )
                }),
            _ => None,
        };
        Ok(Summary {
            file: self.name.clone(),
            format: self.format.map(FormatId::as_str),
            tokenizer: tokenizer.name(),
            tokens: measure.tokens(),
            messages: measure.messages.count,
            whole_file: FileTotals {
                tokens: self.file.tokens(),
                messages: self.file.messages.count,
            },
            by_role: Role::ALL
                .iter()
                .zip(&measure.by_role)
                .map(|(role, t)| (role.as_str(), tally(t)))
                .collect(),
            by_part: PartKind::ALL
                .iter()
                .zip(&measure.by_part)
                .map(|(kind, t)| (kind.as_str(), tally(t)))
                .collect(),
            bookkeeping: self.file.bookkeeping,
            sidechain: tally(&self.file.sidechain),
            skipped_invalid: self.skipped,
            context: wants_context.then(|| ContextSummary {
                tokens: context.tokens,
                source: if context.usage.is_some() {
                    "usage"
                } else {
                    "estimate"
                },
                usage: context.usage,
                pending: context.pending,
            }),
            compaction: max_context.map(|max_context| Trigger {
                max_context,
                model: self.model.clone(),
                percent_used: (context.tokens as f64 * 1000.0 / max_context.max(1) as f64).round()
                    / 10.0,
                tokens_left: max_context.saturating_sub(context.tokens),
                trigger_ratio: settings.trigger_ratio,
                reserved,
                enabled: settings.enabled,
                due: settings.enabled
                    && compaction_due(
                        context.tokens,
                        max_context,
                        settings.trigger_ratio,
                        reserved,
                    ),
            }),
            explain,
        })
    }
}

/// For an agent whose compaction markers record no size (Codex's `compacted` item): the
/// context size before each one is the last usage figure recorded before it, named `field`.
fn usage_before_markers(records: &[RecordMeasure], field: &'static str) -> Vec<Earlier> {
    let mut last = None;
    let mut earlier = Vec::new();
    for record in records {
        if record.compaction {
            if let Some(tokens) = last.take() {
                earlier.push(Earlier {
                    line: record.line,
                    tokens,
                    field,
                });
            }
        }
        if let Some(usage) = &record.usage {
            last = Some(usage.context_tokens);
        }
    }
    earlier
}

/// The JSON report of one file.
#[derive(Serialize)]
struct Summary {
    file: String,
    format: Option<&'static str>,
    tokenizer: &'static str,
    tokens: u64,
    messages: u64,
    whole_file: FileTotals,
    by_role: output::OrderedMap<Counted>,
    by_part: output::OrderedMap<Counted>,
    bookkeeping: u64,
    sidechain: Counted,
    skipped_invalid: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<ContextSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    compaction: Option<Trigger>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<Explain>,
}

impl Summary {
    /// The figure `--total` adds up: the context size when it was asked for.
    fn headline_tokens(&self) -> u64 {
        self.context.as_ref().map_or(self.tokens, |c| c.tokens)
    }
}

/// The totals of every line of the file, the history outside the live context included.
#[derive(Serialize)]
struct FileTotals {
    tokens: u64,
    messages: u64,
}

#[derive(Serialize)]
struct Counted {
    count: u64,
    tokens: u64,
}

#[derive(Serialize)]
struct ContextSummary {
    tokens: u64,
    /// `usage` when a provider figure was found, `estimate` when the transcript records none.
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<u64>,
    pending: u64,
}

#[derive(Serialize)]
struct Trigger {
    max_context: u64,
    /// The model whose window `--max-context auto` took.
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// The share of the window the context fills, in percent (one decimal).
    percent_used: f64,
    tokens_left: u64,
    trigger_ratio: f64,
    reserved: u64,
    /// False when the config file turns compaction off: then it is never due.
    enabled: bool,
    due: bool,
}

#[derive(Serialize)]
struct TotalLine {
    total: bool,
    files: usize,
    tokens: u64,
    messages: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_tokens: Option<u64>,
}

fn write_summaries(
    out: &mut dyn Write,
    format: ReportFormat,
    summaries: &[Summary],
    with_total: bool,
) -> Result<()> {
    match format {
        ReportFormat::Json => {
            for summary in summaries {
                output::write_json_line(out, summary)?;
            }
            if with_total && summaries.len() > 1 {
                let has_context = summaries.iter().any(|s| s.context.is_some());
                output::write_json_line(
                    out,
                    &TotalLine {
                        total: true,
                        files: summaries.len(),
                        tokens: summaries.iter().map(|s| s.tokens).sum(),
                        messages: summaries.iter().map(|s| s.messages).sum(),
                        context_tokens: has_context
                            .then(|| summaries.iter().map(Summary::headline_tokens).sum()),
                    },
                )?;
            }
        }
        ReportFormat::Markdown => {
            let mut table = output::Table::new(&[
                "file",
                "format",
                "messages",
                "tokens",
                "context",
                "compaction",
            ]);
            for s in summaries {
                table.row(vec![
                    s.file.clone(),
                    s.format.unwrap_or("-").to_owned(),
                    s.messages.to_string(),
                    s.tokens.to_string(),
                    s.context
                        .as_ref()
                        .map_or("-".to_owned(), |c| format!("{} ({})", c.tokens, c.source)),
                    s.compaction.as_ref().map_or("-".to_owned(), |c| {
                        if c.due { "due" } else { "not due" }.to_owned()
                    }),
                ]);
            }
            if with_total && summaries.len() > 1 {
                table.row(vec![
                    "**total**".to_owned(),
                    String::new(),
                    summaries
                        .iter()
                        .map(|s| s.messages)
                        .sum::<u64>()
                        .to_string(),
                    summaries.iter().map(|s| s.tokens).sum::<u64>().to_string(),
                    String::new(),
                    String::new(),
                ]);
            }
            table.write(out)?;
            for s in summaries {
                if let Some(explain) = &s.explain {
                    write_explain(out, &s.file, explain)?;
                }
            }
        }
    }
    Ok(())
}

/// The `explain` object as prose, under the Markdown table.
fn write_explain(out: &mut dyn Write, file: &str, e: &Explain) -> Result<()> {
    let model = e.model.as_deref().map(output::sanitize).unwrap_or_default();
    writeln!(out)?;
    writeln!(
        out,
        "**{file}**: {} {model} compacts by itself at {} tokens of {} ({} now, {} left{})",
        e.agent,
        e.compacts_at,
        e.window,
        e.tokens,
        e.tokens_left,
        if e.due { ", due" } else { "" }
    )?;
    writeln!(out, "- rule: {}", e.rule)?;
    writeln!(out, "- source: {}", e.source)?;
    writeln!(
        out,
        "- condense --check: due at {}; {}",
        e.check.compacts_at, e.why
    )?;
    for c in &e.earlier {
        writeln!(
            out,
            "- earlier compaction at line {}: {} tokens ({}% of the window, {:+} from the rule; {})",
            c.line, c.tokens, c.percent_of_window, c.from_rule, c.field
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct MessageLine<'a> {
    file: &'a str,
    index: usize,
    line: usize,
    role: &'static str,
    tokens: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    sidechain: bool,
}

fn write_per_message(
    out: &mut dyn Write,
    format: ReportFormat,
    reports: &[FileReport],
) -> Result<()> {
    let mut table = output::Table::new(&["file", "#", "line", "role", "tokens"]);
    for report in reports {
        let tokenizer = report.measure.tokenizer;
        for row in &report.rows {
            let line = MessageLine {
                file: &report.name,
                index: row.index,
                line: row.line,
                role: row.role.as_str(),
                tokens: tokenizer.tokens(row.units),
                sidechain: row.sidechain,
            };
            match format {
                ReportFormat::Json => output::write_json_line(out, &line)?,
                ReportFormat::Markdown => table.row(vec![
                    line.file.to_owned(),
                    line.index.to_string(),
                    line.line.to_string(),
                    format!(
                        "{}{}",
                        line.role,
                        if line.sidechain { " (sidechain)" } else { "" }
                    ),
                    line.tokens.to_string(),
                ]),
            }
        }
    }
    if format == ReportFormat::Markdown {
        table.write(out)?;
    }
    Ok(())
}
