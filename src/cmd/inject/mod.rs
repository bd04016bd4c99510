//! `condense inject`: the compacted transcript (or ACF handoff document), to stdout or, with
//! `--in-place`, into the input file through [`persist`] (appended or safely replaced).

mod input;

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use self::input::{in_place_target, read_summary, Planner};
use super::document::in_place_file;
use super::handoff;
use super::options;
use super::shared::{refuse_cut_off, transcript_warnings};
use super::source::{read_source, refuse_compressed_in_place, single_source};
use super::verified::{write_compaction, Verify};
use crate::cli::{InjectArgs, InjectFormat};
use crate::compaction::handover;
use crate::compaction::writer::{compaction, document};
use crate::input::Source;
use crate::output::Warnings;
use crate::persist;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::FormatId;
use crate::verify::Planned;
use crate::Outcome;

/// Runs `inject`.
pub fn run(args: &InjectArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    refuse_compressed_in_place(&args.input, &source, args.in_place.enabled)?;
    let in_place = in_place_target(args, &source)?;
    let summary = read_summary(&args.summary, &source)?;
    let mut inject = Inject {
        args,
        summary: &summary,
        load: options::load(&args.input.read),
        planner: Planner::new(args),
    };
    if let Some(target) = args.handoff.to {
        return inject.hand_over(target, &source, out);
    }
    if let Some(path) = in_place {
        return in_place_file(&path, |path| inject.in_place(path));
    }
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, inject.load)?;
    let (outcome, warnings, _) = inject.compact(&transcript, &bytes, out, true)?;
    warnings.print();
    Ok(outcome)
}

/// One run: its arguments, the summary, and the plan's source, each read once.
struct Inject<'a> {
    args: &'a InjectArgs,
    summary: &'a str,
    load: LoadOptions,
    planner: Planner<'a>,
}

impl Inject<'_> {
    /// `--to FORMAT`: a new session of another agent, from the plan's tail and the summary;
    /// the source is only read.
    fn hand_over(
        &mut self,
        target: FormatId,
        source: &Source,
        out: &mut dyn Write,
    ) -> Result<Outcome> {
        if self.args.format != InjectFormat::Jsonl {
            let why = "--to writes a session of another agent; --format markdown writes a document";
            return Err(crate::UsageError(why.to_owned()).into());
        }
        let bytes = read_source(source)?;
        let transcript = Transcript::parse(&source.name(), &bytes, self.load)?;
        let mut warnings = Warnings::default();
        transcript_warnings(&transcript, &mut warnings);
        if let Some(index) = transcript.incomplete {
            // Only read, never rewritten: the cut-off line is left out of the handoff, not lost.
            warnings.push(format!(
                "{}:{}: the last line is cut off and left out of the handoff",
                transcript.name, transcript.lines[index].number
            ));
        }
        let (plan, _) = self.planner.plan(&transcript)?;
        let options = handoff::options(&self.args.handoff);
        let written = handover::render(
            &transcript,
            &plan,
            self.summary,
            target,
            &options,
            handoff::now_ms(),
        )?;
        handoff::emit(&written, target, &self.args.handoff, out, &mut warnings)?;
        warnings.print();
        Ok(Outcome::Success)
    }

    /// `--in-place`: the build of [`persist::in_place`] is the compaction of what the file
    /// holds at that moment (it may run again if the agent wrote meanwhile).
    fn in_place(&mut self, path: &Path) -> Result<Outcome> {
        let args = self.args;
        let mut inputs = vec![args.summary.as_path()];
        inputs.extend(args.plan_file.as_deref());
        let options = options::persist(&args.in_place, &inputs);
        let name = path.display().to_string();
        let done = persist::in_place(path, &options, |bytes, out| {
            let transcript = Transcript::parse(&name, bytes, self.load)?;
            let verify = Verify {
                enabled: !args.in_place.no_verify,
                name: &name,
                from: args.input.read.from,
                before: bytes,
                read: (!self.load.whole_file).then_some(&transcript),
                summary: self.summary,
            };
            verify.build(
                out,
                |built| self.compact(&transcript, bytes, built, false),
                |(_, _, planned)| planned.as_ref(),
            )
        })?;
        let (outcome, mut warnings, _) = done.value;
        for warning in done.warnings {
            warnings.push(warning);
        }
        warnings.print();
        Ok(outcome)
    }

    /// Writes the compacted `transcript` to `out` (or its `bytes` unchanged, for a no-op plan);
    /// with `dry_run`, once to nowhere first, so that nothing reaches `out` if writing fails.
    /// What the plan did, for `--verify`, unless it compacted nothing.
    fn compact(
        &mut self,
        transcript: &Transcript,
        bytes: &[u8],
        out: &mut dyn Write,
        dry_run: bool,
    ) -> Result<(Outcome, Warnings, Option<Planned>)> {
        refuse_cut_off(transcript, "injecting")?;
        let mut warnings = Warnings::default();
        transcript_warnings(transcript, &mut warnings);
        let (plan, tokenizer) = self.planner.plan(transcript)?;
        if let Some(noop) = plan.noop {
            warnings.note(format!(
                "{}: nothing to compact ({}); the transcript is written unchanged",
                transcript.name,
                noop.reason()
            ));
            out.write_all(bytes)?;
            return Ok((Outcome::NothingToCompact, warnings, None));
        }
        let compacted = compaction(transcript, &plan, self.summary, tokenizer);
        let budgets = options::document(&self.args.plan);
        let write = |out: &mut dyn Write| -> Result<()> {
            match self.args.format {
                InjectFormat::Jsonl => write_compaction(transcript.format, &compacted, out),
                InjectFormat::Markdown => Ok(out.write_all(
                    document(transcript, &plan, self.summary, tokenizer, budgets).as_bytes(),
                )?),
            }
        };
        // A dry run first: a writer that finds the input unusable fails before any byte
        // reaches the real output, and the result is streamed rather than held in memory a
        // second time. (In place, the output is a temporary file or an in-memory extension
        // until it is whole.)
        if dry_run {
            write(&mut std::io::sink())?;
        }
        write(out)?;
        Ok((Outcome::Success, warnings, Some(Planned::of(&compacted))))
    }
}
