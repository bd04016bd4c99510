//! `condense estimate`: token counts, the context size and the compaction trigger.
//!
//! Files are measured in parallel and reported in argument order, each streamed block by block
//! ([`crate::measure::file`]): `tokens`, `messages`, `by_role`, `by_part` and `context`
//! describe the live context, found by the agent's own rule, while `whole_file` keeps the
//! totals of every line. Nothing is printed until every file has been measured, so a bad line
//! anywhere leaves stdout empty, unless `--keep-going` asks to report the other files.

mod write;

use std::io::Write;

use anyhow::{bail, Result};
use rayon::prelude::*;

use self::write::{write_per_message, write_summaries};
use crate::cli::{EstimateArgs, ReportFormat};
use crate::cmd::settings;
use crate::cmd::source::{open_source, sources};
use crate::measure::file::{measure_file, FileOptions, FileReport};
use crate::measure::summary::{Summary, SummaryOptions};
use crate::output::{self, Warnings};
use crate::settings::{Flags, MaxContext};
use crate::{Outcome, UsageError};

/// Runs `estimate`.
pub fn run(args: &EstimateArgs, out: &mut dyn Write) -> Result<Outcome> {
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
    let estimator = args.tokens.estimator(settings.preset_tokenizer())?;
    let format = ReportFormat::chosen(args.format);
    let inputs = sources(&args.input)?;
    let options = FileOptions {
        from: args.input.read.from,
        skip_invalid: args.input.read.skip_invalid,
        estimator,
        per_message: args.per_message,
        whole_file: args.input.read.whole_file,
        // The model costs a look at every line: read for the window, --explain, and the table.
        model: window == Some(MaxContext::Auto) || args.explain || format == ReportFormat::Text,
        explain: args.explain,
    };
    let measured: Vec<Result<FileReport>> = inputs
        .par_iter()
        .map(|input| match input {
            Ok(source) => open_source(source)
                .and_then(|reader| measure_file(&source.name(), reader, &options)),
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

    let summary = SummaryOptions {
        explain: args.explain,
    };
    let mut warnings = Warnings::default();
    for report in &reports {
        warn(report, &mut warnings);
    }
    let summaries: Vec<Summary> = reports
        .iter()
        .map(|r| r.summary(summary, &settings, window))
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
        write_per_message(out, format, &reports)?;
    } else {
        write_summaries(out, format, &summaries, !args.no_total_line)?;
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

/// Warnings about the lines of `report` that were not counted.
fn warn(report: &FileReport, warnings: &mut Warnings) {
    if let Some(line) = report.incomplete_line {
        let whose = if crate::persist::journal::left_beside(std::path::Path::new(&report.name)) {
            "condense's own records, left by a killed run; an --in-place run removes them"
        } else {
            "a session still being written?"
        };
        warnings.push(format!(
            "{}:{line}: the last line is cut off ({whose}); not counted",
            report.name
        ));
    }
    if let Some(first) = &report.first_skipped {
        warnings.push(format!(
            "{}: skipped {} malformed line(s); the first: {first}",
            report.name, report.skipped
        ));
    }
}
