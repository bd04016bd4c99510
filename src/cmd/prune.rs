//! `condense prune`: old tool outputs (and, on request, long tool-call arguments and old
//! thinking) of the live context replaced by short placeholders, with no model, and the session
//! written back in its own format, to stdout or, with `--in-place`, over the file through
//! [`persist`]'s safe replace. What is pruned is decided in [`crate::compaction::prune`].

use std::io::Write;

use anyhow::{bail, Result};

use super::document::in_place_file;
use super::options;
use super::settings;
use super::shared::{refuse_cut_off, transcript_warnings};
use super::source::{read_source, refuse_compressed_in_place, single_source};
use super::verified::{verify_pruned, Held};
use crate::cli::{PruneArgs, SettingsArgs};
use crate::compaction::prune::plan;
use crate::input::Source;
use crate::output::{self, Warnings};
use crate::persist;
use crate::prune::Options;
use crate::settings::Flags;
use crate::tokens::Estimator;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::{Outcome, UsageError};

/// Runs `prune`.
pub fn run(args: &PruneArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    refuse_compressed_in_place(&args.input, &source, args.in_place)?;
    if args.in_place && args.reports() {
        let why = "--format json prints what would be pruned; it does not go with --in-place";
        return Err(UsageError(why.to_owned()).into());
    }
    let estimator = args.tokens.estimator(None)?;
    let config = SettingsArgs {
        preset: None,
        config: args.config.clone(),
    };
    let settings = settings::load(&config, Flags::default())?;
    let knobs = options::prune(Some(args), &settings.prune);
    let run = Run {
        args,
        options: &knobs,
        estimator,
        load: options::load(&args.input.read),
    };
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
        let done = in_place_file(path, |path| {
            let name = path.display().to_string();
            persist::in_place(path, &options, |bytes, out| {
                run.prune(&name, bytes, out, true)
            })
        })?;
        let (outcome, mut warnings) = done.value;
        for warning in done.warnings {
            warnings.push(warning);
        }
        warnings.print();
        return Ok(outcome);
    }
    let bytes = read_source(&source)?;
    let (outcome, warnings) = run.prune(&source.name(), &bytes, out, false)?;
    warnings.print();
    Ok(outcome)
}

/// One run's options.
struct Run<'r> {
    args: &'r PruneArgs,
    options: &'r Options,
    estimator: Estimator,
    load: LoadOptions,
}

impl Run<'_> {
    /// Writes the pruned transcript of `bytes` to `out` (or them unchanged when nothing is
    /// pruned, or the `--report` line). `in_place`, `out` holds nothing the file does not
    /// until it is whole, and the result is verified first (unless `--no-verify`); else it is
    /// written once to nowhere first, so that nothing reaches `out` if writing fails.
    fn prune(
        &self,
        name: &str,
        bytes: &[u8],
        out: &mut dyn Write,
        in_place: bool,
    ) -> Result<(Outcome, Warnings)> {
        let transcript = Transcript::parse(name, bytes, self.load)?;
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
        let plan = plan(
            &transcript,
            transcript.tokenizer(self.estimator),
            self.options,
        )?;
        if self.args.reports() {
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
        if let Some(target) = self
            .options
            .target
            .filter(|&t| plan.choice.tokens_after > t)
        {
            warnings.push(format!(
                "{}: pruning every output the rules allow leaves {} tokens of live context, \
                 above --target {target}; `compact --budget {target}` summarises the rest",
                transcript.name, plan.choice.tokens_after
            ));
        }
        if in_place {
            let mut built = Held::over(bytes);
            plan.write(&transcript, &mut built)?;
            let pruned = plan.pruned(&transcript);
            let verify = !self.args.no_verify;
            verify_pruned(verify, &pruned, bytes, self.load, built)?.write_to(out)?;
        } else {
            plan.write(&transcript, &mut std::io::sink())?;
            plan.write(&transcript, out)?;
        }
        Ok((Outcome::Success, warnings))
    }
}
