//! `condense inject`: the compacted transcript (or ACF handoff document), to stdout or, with
//! `--in-place`, into the input file through [`persist`] (appended or safely replaced).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::compaction::compaction;
use super::handoff;
use super::shared::{
    check_plan, load_options, plan_for, read_source, refuse_cut_off, single_source,
    transcript_warnings, PlanReport,
};
use super::verified::Verify;
use crate::cli::{InjectArgs, InjectFormat};
use crate::handoff::Handoff;
use crate::input::Source;
use crate::output::Warnings;
use crate::persist::{self, guard};
use crate::plan::Plan;
use crate::summary;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;
use crate::transcript::write::Sink;
use crate::Outcome;

/// Runs `inject`.
pub fn run(args: &InjectArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let in_place = in_place_target(args, &source)?;
    let summary = read_summary(&args.summary, &source)?;
    if let Some(target) = args.handoff.to {
        return hand_over(args, target, &summary, &source, out);
    }
    if let Some(path) = in_place {
        return inject_in_place(args, &path, &summary);
    }
    let bytes = read_source(&source)?;
    let (outcome, warnings) = compact(args, &summary, &source.name(), &bytes, out, true)?;
    warnings.print();
    Ok(outcome)
}

/// `--to FORMAT`: a new session of another agent, from the plan's tail and the summary; the
/// source is only read.
fn hand_over(
    args: &InjectArgs,
    target: crate::transcript::FormatId,
    summary: &str,
    source: &Source,
    out: &mut dyn Write,
) -> Result<Outcome> {
    if args.format != InjectFormat::Jsonl {
        let why = "--to writes a session of another agent; --format markdown writes a document";
        return Err(crate::UsageError(why.to_owned()).into());
    }
    let bytes = read_source(source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    if let Some(index) = transcript.incomplete {
        // Only read, never rewritten: the cut-off line is left out of the handoff, not lost.
        warnings.push(format!(
            "{}:{}: the last line is cut off and left out of the handoff",
            transcript.name, transcript.lines[index].number
        ));
    }
    let (plan, _) = match &args.plan_file {
        Some(path) => checked_plan(path, &transcript)?,
        None => plan_for(&args.plan, &transcript)?,
    };
    let written = handoff::render(&transcript, &plan, summary, target, &args.handoff)?;
    handoff::emit(&written, target, &args.handoff, out, &mut warnings)?;
    warnings.print();
    Ok(Outcome::Success)
}

/// `--in-place`: the build of [`persist::in_place`] is the compaction of what the file holds
/// at that moment (it may run again if the agent wrote meanwhile).
fn inject_in_place(args: &InjectArgs, path: &Path, summary: &str) -> Result<Outcome> {
    let mut inputs = vec![args.summary.as_path()];
    inputs.extend(args.plan_file.as_deref());
    let options = persist::Options {
        backup_suffix: &args.in_place.backup_suffix,
        strategy: if args.in_place.rewrite {
            persist::Strategy::Replace
        } else {
            persist::Strategy::Extend
        },
        inputs: &inputs,
    };
    let name = path.display().to_string();
    let mut built = Vec::new();
    let done = persist::in_place(path, &options, |bytes, out| {
        let verify = Verify {
            enabled: !args.in_place.no_verify,
            name: &name,
            from: args.input.read.from,
            before: bytes,
            summary,
        };
        verify.build(
            &mut built,
            out,
            |built| compact(args, summary, &name, bytes, built, false),
            |(outcome, _)| *outcome == Outcome::Success,
        )
    })?;
    let (outcome, mut warnings) = done.value;
    for warning in done.warnings {
        warnings.push(warning);
    }
    warnings.print();
    Ok(outcome)
}

/// Writes the compacted transcript of `bytes` to `out` (or them unchanged, for a no-op plan);
/// with `dry_run`, once to nowhere first, so that nothing reaches `out` if writing fails.
fn compact(
    args: &InjectArgs,
    summary: &str,
    name: &str,
    bytes: &[u8],
    out: &mut dyn Write,
    dry_run: bool,
) -> Result<(Outcome, Warnings)> {
    let transcript = Transcript::parse(name, bytes, load_options(&args.input))?;
    refuse_cut_off(&transcript, "injecting")?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let (plan, tokenizer) = match &args.plan_file {
        Some(path) => checked_plan(path, &transcript)?,
        None => plan_for(&args.plan, &transcript)?,
    };

    if let Some(noop) = plan.noop {
        warnings.note(format!(
            "{}: nothing to compact ({}); the transcript is written unchanged",
            transcript.name,
            noop.reason()
        ));
        out.write_all(bytes)?;
        return Ok((Outcome::NothingToCompact, warnings));
    }

    let compacted = compaction(&transcript, &plan, summary, tokenizer);
    let write = |out: &mut dyn Write| -> Result<()> {
        match args.format {
            InjectFormat::Jsonl => {
                let format = transcript
                    .format
                    .context("an empty transcript has no format")?;
                let mut sink = Sink::new(out);
                format.format().write_compacted(&compacted, &mut sink)?;
                Ok(sink.finish()?)
            }
            InjectFormat::Markdown => Ok(out.write_all(
                handoff_document(args, &transcript, &plan, summary, tokenizer).as_bytes(),
            )?),
        }
    };
    // A dry run first: a writer that finds the input unusable fails before any byte reaches
    // the real output, and the result is streamed rather than held in memory a second time.
    // (In place, the output is a temporary file or an in-memory extension until it is whole.)
    if dry_run {
        write(&mut std::io::sink())?;
    }
    write(out)?;
    Ok((Outcome::Success, warnings))
}

/// The file `--in-place` rewrites: the one FILE argument, which must be a file.
fn in_place_target(args: &InjectArgs, source: &Source) -> Result<Option<PathBuf>> {
    if !args.in_place.enabled {
        return Ok(None);
    }
    if args.format != InjectFormat::Jsonl {
        let why = "--in-place writes the session itself; --format markdown writes a document to \
                   standard output";
        return Err(crate::UsageError(why.to_owned()).into());
    }
    match source {
        Source::File(path) => Ok(Some(path.clone())),
        Source::Stdin => bail!("--in-place needs the transcript as a FILE, not standard input"),
    }
}

fn read_summary(path: &Path, transcript: &Source) -> Result<String> {
    let raw = if path.as_os_str() == "-" {
        if *transcript == Source::Stdin {
            bail!("--summary - reads standard input, so the transcript must be given as a FILE");
        }
        let mut raw = Vec::new();
        std::io::stdin()
            .read_to_end(&mut raw)
            .context("<stdin>: cannot read the summary")?;
        raw
    } else {
        // By inode, so a hard link, a symlink or `/dev/stdin` is seen through.
        let same = match transcript {
            Source::File(transcript) => guard::same_file(path, transcript),
            Source::Stdin => guard::is_stdin(path),
        };
        if same {
            bail!(
                "{}: the summary and the transcript are {}; --summary takes the file the LLM wrote",
                path.display(),
                match transcript {
                    Source::File(_) => "the same file",
                    Source::Stdin => "both standard input",
                }
            );
        }
        fs::read(path).with_context(|| format!("{}: cannot read the summary", path.display()))?
    };
    let name = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    summary::clean(&raw).with_context(|| name)
}

/// The plan a `prompt --plan` file describes, checked against the transcript as it is now.
fn checked_plan(path: &Path, transcript: &Transcript) -> Result<(Plan, Tokenizer)> {
    let text =
        fs::read(path).with_context(|| format!("{}: cannot read the plan", path.display()))?;
    let report: PlanReport = serde_json::from_slice(&text).with_context(|| {
        format!(
            "{}: not a plan written by condense prompt --plan",
            path.display()
        )
    })?;
    check_plan(&report, transcript, "run prompt --plan again")
        .with_context(|| path.display().to_string())
}

fn handoff_document(
    args: &InjectArgs,
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    tokenizer: Tokenizer,
) -> String {
    let records = &transcript.context;
    let compacted_tokens = tokenizer.messages_tokens(
        plan.summarised()
            .filter_map(|position| records[position].message()),
    );
    crate::handoff::render(&Handoff {
        records,
        tail: plan.kept_after().collect(),
        compacted_tokens,
        summary,
        head_tokens: args.plan.head_tokens.unwrap_or(500),
        tail_tokens: args.plan.tail_tokens.unwrap_or(1000),
        tokenizer,
    })
}
