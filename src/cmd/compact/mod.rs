//! `condense compact`: the whole pipeline in one safe command, down the ACF ladder.
//!
//! With `--llm CMD` the request goes to any LLM CLI and its answer is injected (the plan is
//! checked as `inject --plan` checks it). With `--budget N` the richest form that fits N tokens
//! of live context is written: the session unchanged if it fits already (exit 4), pruned (old
//! tool outputs replaced by placeholders, as `prune` does) if that is enough, the LLM's summary
//! if `--llm` is given and the result fits, else caveman's summary, else bare's four lines; each
//! summary rung first keeps the plan's tail, then, if that does not fit, keeps nothing but the
//! summary. Which rung was taken is said on standard error (and in `--format json`). A failing
//! command, an empty answer, or a summary over `--summary-tokens` leaves the session untouched
//! and exits 1. The ladder is [`crate::compaction::ladder`]; this file and `write` wire it.

mod in_place;
mod write;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::handoff;
use super::options;
use super::settings;
use super::shared::{refuse_cut_off, transcript_warnings};
use super::source::{instructions, read_source, refuse_compressed_in_place, single_source};
use crate::cli::{CompactArgs, CompactFormat};
use crate::compaction::context_size;
use crate::compaction::ladder::{unchanged, Goal, Ladder, Llm, Output, Unchanged};
use crate::compaction::request::{request, RequestOptions};
use crate::input::Source;
use crate::llm::{self, Limits};
use crate::output::Warnings;
use crate::plan::Plan;
use crate::settings::{Flags, Settings};
use crate::summary;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;
use crate::{Outcome, UsageError};

/// Runs `compact`.
pub fn run(args: &CompactArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let instructions = instructions(&args.input, args.instructions.as_deref());
    refuse_compressed_in_place(&args.input, &source, args.in_place.enabled)?;
    let in_place = in_place_target(args, &source)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    refuse_cut_off(&transcript, "compacting")?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let settings = settings::load(&args.plan.settings, Flags::default())?;
    let tokenizer = options::tokenizer(&args.plan, &settings, &transcript)?;
    let budget = args.budget.or(settings.budget);
    if args.llm.is_none() && budget.is_none() {
        let why = "compact needs --llm CMD (summarise with a model), --budget N (walk the \
                   ladder), or both";
        return Err(UsageError(why.to_owned()).into());
    }
    let goal = Goal {
        budget,
        before: context_size(&transcript, tokenizer),
    };
    let run = Run {
        args,
        transcript: &transcript,
        bytes: &bytes,
        in_place,
        tokenizer,
        goal,
        instructions: instructions.as_deref(),
    };
    if let Some(why) = unchanged(settings.enabled, goal) {
        return run.unchanged(why, out, warnings);
    }
    let output = match args.handoff.to {
        Some(target) => Output::Handover {
            target,
            options: handoff::options(&args.handoff),
            now_ms: handoff::now_ms(),
        },
        None => Output::Own,
    };
    let ladder = Ladder {
        transcript: &transcript,
        tokenizer,
        output,
        goal,
        instructions: run.instructions,
    };
    // The pruned rung: the conversation kept whole, only old tool outputs go. (A handoff
    // document needs a summary, and a new session for another agent opens with one, so
    // --format markdown and --to start at the next rung.)
    let summary_needed = args.format == CompactFormat::Markdown || args.handoff.to.is_some();
    if !summary_needed {
        if let Some(pruned) = ladder.pruned(&options::prune(None, &settings.prune))? {
            return run.pruned(&pruned, &settings, out, warnings);
        }
    }
    let plan = options::plan(&args.plan, &settings, &transcript)?.plan(&transcript)?;
    let mut summarise = |plan: &Plan| summarise(&run, &settings, plan);
    let llm = args.llm.as_ref().map(|_| Llm {
        summarise: &mut summarise,
        summary_tokens: args.summary_tokens,
    });
    let climb = ladder.climb(plan, llm)?;
    if let Some((tokens, after)) = climb.passed_over {
        warnings.note(format!(
            "{}: compact: the LLM's summary ({tokens} tokens) leaves {after} tokens of live \
             context, over --budget {}; going down the ladder",
            transcript.name,
            budget.unwrap_or_default()
        ));
    }
    let Some(choice) = climb.choice else {
        return run.unchanged(Unchanged::NothingToCompact, out, warnings);
    };
    run.chosen(&choice, out, warnings)
}

/// One run's inputs, each read once.
struct Run<'r, 'a> {
    args: &'r CompactArgs,
    transcript: &'r Transcript<'a>,
    /// The bytes `transcript` was read from.
    bytes: &'r [u8],
    /// The file `--in-place` writes.
    in_place: Option<PathBuf>,
    tokenizer: Tokenizer,
    goal: Goal,
    /// `--instructions`, or the hook's `custom_instructions` (see `source::instructions`).
    instructions: Option<&'r str>,
}

/// The file `--in-place` writes, and the flags that cannot go with what is written.
fn in_place_target(args: &CompactArgs, source: &Source) -> Result<Option<PathBuf>> {
    let in_place = match (source, args.in_place.enabled) {
        (Source::File(path), true) => Some(path.clone()),
        (Source::Stdin, true) => {
            bail!("--in-place needs the session as a FILE, not standard input")
        }
        (_, false) => None,
    };
    if args.handoff.to.is_some() && args.format == CompactFormat::Markdown {
        let why = "--to writes a session of another agent; --format markdown writes a document";
        return Err(UsageError(why.to_owned()).into());
    }
    if in_place.is_some() && args.format == CompactFormat::Markdown {
        let why = "--in-place writes the session itself; --format markdown writes a document";
        return Err(UsageError(why.to_owned()).into());
    }
    Ok(in_place)
}

/// The `--llm` command's summary of `plan`: the request (the body as `prompt` chooses it) on
/// its standard input, its answer cleaned.
fn summarise(run: &Run, settings: &Settings, plan: &Plan) -> Result<String> {
    let args = run.args;
    let command = args.llm.as_deref().context("--llm")?;
    let asked = RequestOptions {
        body: options::body(None, args.style.explicit(), settings)?,
        instructions: run.instructions.map(str::to_owned),
        max_tokens: args.request_tokens,
    };
    let request = request(run.transcript, plan, &asked, run.tokenizer)?;
    let limits = Limits::new(
        Duration::from_secs(args.llm_timeout),
        args.summary_tokens.or(run.goal.budget),
    );
    let model = settings.compaction_model.as_deref();
    let answer = llm::summarise(command, &request.text(), model, limits)?;
    summary::clean(&answer).context("--llm: the command's answer is no summary")
}
