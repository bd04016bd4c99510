//! What `compact` writes once the ladder has chosen: the session to stdout or into the file
//! (through the safe paths `inject --in-place` and `prune --in-place` take), a handoff document,
//! a new session of another agent, and the `--format json` line.

use std::io::Write;

use anyhow::{bail, Result};
use serde::Serialize;

use super::Run;
use crate::cli::CompactFormat;
use crate::cmd::document::in_place_file;
use crate::cmd::handoff;
use crate::cmd::options;
use crate::compaction::ladder::{Choice, Made, Pruned, Rung, Unchanged};
use crate::compaction::writer::{document, write_session};
use crate::output::{write_json_line, Warnings};
use crate::settings::Settings;
use crate::Outcome;

impl Run<'_, '_> {
    /// Nothing to do: stdout gets the session as it is (a filter passes its input through).
    pub(super) fn unchanged(
        &self,
        why: Unchanged,
        out: &mut dyn Write,
        mut warnings: Warnings,
    ) -> Result<Outcome> {
        let name = &self.transcript.name;
        let why = why.why();
        if self.args.handoff.to.is_some() {
            bail!(
                "{name}: compact --to: no summary to hand over: {why}; `inject --to` hands over \
                 with a summary of your own (caveman's, for one)"
            );
        }
        warnings.note(format!("{name}: compact: unchanged: {why}"));
        if self.in_place.is_none() && self.args.format == CompactFormat::Jsonl {
            out.write_all(self.bytes)?;
        }
        let before = self.goal.before;
        self.report(out, Rung::Unchanged, before, before)?;
        warnings.print();
        Ok(Outcome::NothingToCompact)
    }

    /// The pruned rung: the pruned session, into the file (pruned again if the agent wrote
    /// meanwhile) or to stdout.
    pub(super) fn pruned(
        &self,
        pruned: &Pruned,
        settings: &Settings,
        out: &mut dyn Write,
        mut warnings: Warnings,
    ) -> Result<Outcome> {
        let name = &self.transcript.name;
        let (before, after) = (self.goal.before, pruned.after);
        warnings.note(format!(
            "{name}: compact: pruned ({before} -> {after} tokens of live context)"
        ));
        match &self.in_place {
            Some(path) => in_place_file(path, |path| {
                self.prune_in_place(path, pruned, settings, &mut warnings)
            })?,
            None if self.args.format == CompactFormat::Jsonl => {
                pruned.plan.write(self.transcript, out)?;
            }
            None => {}
        }
        self.report(out, Rung::Pruned, before, after)?;
        warnings.print();
        Ok(Outcome::Success)
    }

    /// A summary rung: the session it makes, where `--in-place`, `--to` and `--format` say.
    pub(super) fn chosen(
        &self,
        choice: &Choice,
        out: &mut dyn Write,
        mut warnings: Warnings,
    ) -> Result<Outcome> {
        let args = self.args;
        let transcript = self.transcript;
        warnings.note(format!(
            "{}: compact: {} ({} -> {} tokens of live context)",
            transcript.name,
            choice.rung.name(),
            self.goal.before,
            choice.after
        ));
        match (&self.in_place, args.format, &choice.made) {
            (Some(path), _, _) => in_place_file(path, |path| {
                self.write_in_place(path, choice, &mut warnings)
            })?,
            // The JSON line is the data; a placed handoff says where it went on stderr.
            (None, CompactFormat::Json, Made::Handover { written, target })
                if args.handoff.to_session_dir.is_some() =>
            {
                let mut resume = Vec::new();
                handoff::emit(written, *target, &args.handoff, &mut resume, &mut warnings)?;
                warnings.note(format!(
                    "resume with: {}",
                    String::from_utf8_lossy(&resume).trim()
                ));
            }
            (None, CompactFormat::Json, _) => {}
            (None, CompactFormat::Jsonl, Made::Handover { written, target }) => {
                handoff::emit(written, *target, &args.handoff, out, &mut warnings)?;
            }
            (None, CompactFormat::Jsonl, Made::Own) => {
                write_session(
                    transcript,
                    &choice.plan,
                    &choice.summary,
                    self.tokenizer,
                    out,
                )?;
            }
            (None, CompactFormat::Markdown, _) => {
                let budgets = options::document(&args.plan);
                let text = document(
                    transcript,
                    &choice.plan,
                    &choice.summary,
                    self.tokenizer,
                    budgets,
                );
                out.write_all(text.as_bytes())?;
            }
        }
        self.report(out, choice.rung, self.goal.before, choice.after)?;
        warnings.print();
        Ok(Outcome::Success)
    }

    /// The `--format json` line.
    fn report(&self, out: &mut dyn Write, rung: Rung, before: u64, after: u64) -> Result<()> {
        if self.args.format != CompactFormat::Json {
            return Ok(());
        }
        #[derive(Serialize)]
        struct Report<'a> {
            file: &'a str,
            rung: Rung,
            tokens_before: u64,
            tokens_after: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            budget: Option<u64>,
            in_place: bool,
        }
        write_json_line(
            out,
            &Report {
                file: &self.transcript.name,
                rung,
                tokens_before: before,
                tokens_after: after,
                budget: self.goal.budget,
                in_place: self.args.in_place.enabled,
            },
        )?;
        Ok(())
    }
}
