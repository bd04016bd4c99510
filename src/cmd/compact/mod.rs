//! `condense compact`: the whole pipeline in one safe command, down the ACF ladder.
//!
//! With `--llm CMD` the request goes to any LLM CLI and its answer is injected (the plan is
//! checked as `inject --plan` checks it). With `--budget N` the richest form that fits N tokens
//! of live context is written: the session unchanged if it fits already (exit 4), pruned (old
//! tool outputs replaced by placeholders, as `prune` does) if that is enough, the LLM's summary
//! if `--llm` is given and the result fits, else caveman's summary, else bare's four lines; each summary rung first keeps the plan's tail, then, if that does not fit, keeps
//! nothing but the summary. Which rung was taken is said on standard error (and in `--format
//! json`). A failing command, an empty answer, or a summary over `--summary-tokens` leaves the
//! session untouched and exits 1.

pub mod llm;

use std::io::Write;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::compaction::{compaction, context_size};
use super::handoff;
use super::prune;
use super::settings;
use super::shared::{
    check_plan, live_extract, load_options, plan_for, plan_report, read_source, refuse_cut_off,
    single_source, transcript_warnings,
};
use crate::cli::{CompactArgs, CompactFormat};
use crate::cmd::verified::Verify;
use crate::extract::{bare, caveman};
use crate::handoff::Handoff;
use crate::input::Source;
use crate::output::{write_json_line, Warnings};
use crate::persist;
use crate::plan::{plan, Mode, Plan};
use crate::prompts;
use crate::request::budget::fit;
use crate::request::request_parts;
use crate::settings::{Flags, Settings};
use crate::summary;
use crate::tokens::Tokenizer;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::write::Sink;
use crate::transcript::FormatId;
use crate::{Outcome, UsageError};

/// A rung of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rung {
    /// The session fits (or compaction is off): nothing written.
    Unchanged,
    /// Old tool outputs replaced by placeholders (`prune`), no summary.
    Pruned,
    /// The LLM's summary.
    Llm,
    /// caveman's summary, no model.
    Caveman,
    /// bare's four lines.
    Bare,
}

/// The ladder's caveman rung: its summary in under this many tokens (the ACF notes: < 500).
const CAVEMAN_TOKENS: u64 = 500;

/// The ladder's bare rung: four lines in about this many tokens.
const BARE_TOKENS: u64 = 100;

/// What was chosen, and the session it makes.
struct Choice {
    rung: Rung,
    summary: String,
    plan: Plan,
    bytes: Vec<u8>,
    after: u64,
}

/// Runs `compact`.
pub fn run(args: &CompactArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let in_place = match (&source, args.in_place.enabled) {
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
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    refuse_cut_off(&transcript, "compacting")?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let settings = settings::load(&args.plan.settings, Flags::default())?;
    let tokenizer = args.plan.tokens.tokenizer()?;
    let budget = args.budget.or(settings.budget);
    if args.llm.is_none() && budget.is_none() {
        let why = "compact needs --llm CMD (summarise with a model), --budget N (walk the \
                   ladder), or both";
        return Err(UsageError(why.to_owned()).into());
    }
    let before = context_size(&transcript, tokenizer);
    // Nothing to do: stdout gets the session as it is (a filter passes its input through).
    let unchanged =
        |why: String, out: &mut dyn Write, warnings: &mut Warnings| -> Result<Outcome> {
            if args.handoff.to.is_some() {
                bail!(
                    "{}: compact --to: no summary to hand over: {why}; `inject --to` hands \
                     over with a summary of your own (caveman's, for one)",
                    transcript.name
                );
            }
            warnings.note(format!("{}: compact: unchanged: {why}", transcript.name));
            if in_place.is_none() && args.format == CompactFormat::Jsonl {
                out.write_all(&bytes)?;
            }
            report(
                args,
                out,
                &transcript.name,
                Rung::Unchanged,
                before,
                before,
                budget,
            )?;
            warnings.print();
            Ok(Outcome::NothingToCompact)
        };
    if !settings.enabled {
        let why = "compaction is turned off (enabled = false in the config file)".to_owned();
        return unchanged(why, out, &mut warnings);
    }
    if let Some(budget) = budget.filter(|&b| before <= b) {
        let why = format!("the live context ({before} tokens) fits --budget {budget}");
        return unchanged(why, out, &mut warnings);
    }

    // The pruned rung: the conversation kept whole, only old tool outputs go. (A handoff
    // document needs a summary, and a new session for another agent opens with one, so
    // --format markdown and --to start at the next rung.)
    let summary_needed = args.format == CompactFormat::Markdown || args.handoff.to.is_some();
    if let (Some(budget), false) = (budget, summary_needed) {
        let config = args.plan.settings.config.clone();
        if let Some(bytes) = prune::pruned_toward(&transcript, tokenizer, budget, config.clone())? {
            let after = size_of(&transcript.name, transcript.format, &bytes, tokenizer)?;
            if after <= budget {
                warnings.note(format!(
                    "{}: compact: pruned ({before} -> {after} tokens of live context)",
                    transcript.name
                ));
                match &in_place {
                    Some(path) => {
                        let options = persist::Options {
                            backup_suffix: &args.in_place.backup_suffix,
                            // A pruned file is rewritten, as `prune --in-place` does.
                            strategy: persist::Strategy::Replace,
                            inputs: &[],
                        };
                        let name = path.display().to_string();
                        let load = load_options(&args.input);
                        let done = persist::in_place(path, &options, |bytes, out| {
                            let now = Transcript::parse(&name, bytes, load)?;
                            let pruned =
                                prune::pruned_toward(&now, tokenizer, budget, config.clone())?;
                            Ok(out.write_all(pruned.as_deref().unwrap_or(bytes))?)
                        })?;
                        for warning in done.warnings {
                            warnings.push(warning);
                        }
                    }
                    None if args.format == CompactFormat::Jsonl => out.write_all(&bytes)?,
                    None => {}
                }
                let name = &transcript.name;
                report(args, out, name, Rung::Pruned, before, after, Some(budget))?;
                warnings.print();
                return Ok(Outcome::Success);
            }
        }
    }

    let (plan, _) = plan_for(&args.plan, &transcript)?;
    let goal = Goal { budget, before };
    let Some(choice) = climb(
        args,
        &transcript,
        &settings,
        plan,
        tokenizer,
        goal,
        &mut warnings,
    )?
    else {
        let why = "there is nothing to compact (every message is in the preserved tail)";
        return unchanged(why.to_owned(), out, &mut warnings);
    };
    warnings.note(format!(
        "{}: compact: {} ({before} -> {} tokens of live context)",
        transcript.name,
        serde_json::to_value(choice.rung)?
            .as_str()
            .unwrap_or_default(),
        choice.after
    ));

    match &in_place {
        Some(path) => write_in_place(args, path, &transcript, &choice, tokenizer, &mut warnings)?,
        None => match args.format {
            CompactFormat::Jsonl if args.handoff.to.is_some() => {
                let target = args.handoff.to.context("--to")?;
                let written = handoff::render(
                    &transcript,
                    &choice.plan,
                    &choice.summary,
                    target,
                    &args.handoff,
                )?;
                handoff::emit(&written, target, &args.handoff, out, &mut warnings)?;
            }
            CompactFormat::Jsonl => out.write_all(&choice.bytes)?,
            CompactFormat::Markdown => out.write_all(
                crate::handoff::render(&Handoff {
                    records: &transcript.context,
                    tail: choice.plan.kept_after().collect(),
                    compacted_tokens: tokenizer.messages_tokens(
                        choice
                            .plan
                            .summarised()
                            .filter_map(|p| transcript.context[p].message()),
                    ),
                    summary: &choice.summary,
                    head_tokens: args.plan.head_tokens.unwrap_or(500),
                    tail_tokens: args.plan.tail_tokens.unwrap_or(1000),
                    tokenizer,
                })
                .as_bytes(),
            )?,
            // The JSON line is the data; a placed handoff says where it went on stderr.
            CompactFormat::Json if args.handoff.to_session_dir.is_some() => {
                let target = args.handoff.to.context("--to-session-dir needs --to")?;
                let written = handoff::render(
                    &transcript,
                    &choice.plan,
                    &choice.summary,
                    target,
                    &args.handoff,
                )?;
                let mut resume = Vec::new();
                handoff::emit(&written, target, &args.handoff, &mut resume, &mut warnings)?;
                warnings.note(format!(
                    "resume with: {}",
                    String::from_utf8_lossy(&resume).trim()
                ));
            }
            CompactFormat::Json => {}
        },
    }
    if args.format == CompactFormat::Json {
        report(
            args,
            out,
            &transcript.name,
            choice.rung,
            before,
            choice.after,
            budget,
        )?;
    }
    warnings.print();
    Ok(Outcome::Success)
}

/// What the ladder aims at: the live context's size afterwards, at most `budget` (when given),
/// and smaller than it is `before`.
#[derive(Debug, Clone, Copy)]
struct Goal {
    budget: Option<u64>,
    before: u64,
}

/// The most an --llm command may answer: 64 bytes per token of the summary's budget (16 times
/// the 4 bytes of an average token), and never under 1 MiB; 16 MiB when no budget is given.
fn answer_cap(tokens: Option<u64>) -> u64 {
    tokens.map_or(16 << 20, |t| t.saturating_mul(64).max(1 << 20))
}

/// Walks the ladder: the LLM's summary (when `--llm` is given), then caveman, then bare; the
/// first whose session fits the budget (any that makes the context smaller, without one), and
/// says why a summary was passed over. `None` when the plan compacts nothing and no budget
/// asks for more.
fn climb(
    args: &CompactArgs,
    transcript: &Transcript,
    settings: &Settings,
    plan: Plan,
    tokenizer: Tokenizer,
    goal: Goal,
    warnings: &mut Warnings,
) -> Result<Option<Choice>> {
    let Goal { budget, before } = goal;
    let fits = |after: u64| budget.is_none_or(|b| after <= b);
    if let Some(command) = &args.llm {
        if plan.noop.is_none() {
            let request = request_text(args, transcript, settings, &plan, tokenizer)?;
            let limits = llm::Limits {
                timeout: std::time::Duration::from_secs(args.llm_timeout),
                max_bytes: answer_cap(args.summary_tokens.or(budget)),
            };
            let model = settings.compaction_model.as_deref();
            let answer = llm::summarise(command, &request, model, limits)?;
            let summary =
                summary::clean(&answer).context("--llm: the command's answer is no summary")?;
            if let Some(max) = args.summary_tokens {
                let tokens = tokenizer.text_tokens(&summary);
                if tokens > max {
                    bail!(
                        "--llm: the summary has {tokens} tokens, over --summary-tokens {max}; \
                         the session is left as it is"
                    );
                }
            }
            let choice = build(
                args,
                Rung::Llm,
                summary,
                plan.clone(),
                transcript,
                tokenizer,
            )?;
            if budget.is_none() && choice.after >= before {
                bail!(
                    "{}: --llm: the summary ({} tokens) leaves {} tokens of live context, no \
                     fewer than the {before} before; the session is left as it is",
                    transcript.name,
                    tokenizer.text_tokens(&choice.summary),
                    choice.after
                );
            }
            if fits(choice.after) {
                return Ok(Some(choice));
            }
            warnings.note(format!(
                "{}: compact: the LLM's summary ({} tokens) leaves {} tokens of live context, \
                 over --budget {}; going down the ladder",
                transcript.name,
                tokenizer.text_tokens(&choice.summary),
                choice.after,
                budget.unwrap_or_default()
            ));
        }
    }
    let Some(budget) = budget else {
        return Ok(None);
    };
    // Without a model: the summaries of caveman and bare, each with the plan's tail first,
    // then with nothing kept but the summary.
    let everything = plan_everything(transcript, tokenizer)?;
    let extract = live_extract(transcript);
    let rungs = [
        (Rung::Caveman, caveman(&extract, CAVEMAN_TOKENS, tokenizer)),
        (Rung::Bare, bare(&extract, BARE_TOKENS, tokenizer).lines()),
    ];
    let mut smallest = u64::MAX;
    for (rung, summary) in rungs {
        for candidate in [&plan, &everything] {
            if candidate.noop.is_some() {
                continue;
            }
            let choice = build(
                args,
                rung,
                summary.clone(),
                candidate.clone(),
                transcript,
                tokenizer,
            )?;
            smallest = smallest.min(choice.after);
            if choice.after <= budget {
                return Ok(Some(choice));
            }
        }
    }
    bail!(
        "{}: the session does not fit --budget {budget}: even bare's four lines leave {smallest} \
         tokens of live context; the session is left as it is",
        transcript.name
    )
}

/// A plan that summarises the whole live context and keeps nothing beside the summary.
fn plan_everything(transcript: &Transcript, tokenizer: Tokenizer) -> Result<Plan> {
    let mode = Mode::User {
        keep_user_tokens: 0,
        user_head_tokens: 0,
    };
    plan(&transcript.context, mode, tokenizer, transcript.dialect())
        .with_context(|| transcript.name.clone())
}

/// The compaction request, as `prompt` would print it.
fn request_text(
    args: &CompactArgs,
    transcript: &Transcript,
    settings: &Settings,
    plan: &Plan,
    tokenizer: Tokenizer,
) -> Result<String> {
    let body = match crate::cmd::settings::config_prompt(settings)? {
        Some(body) => body,
        None => prompts::body(args.style).to_owned(),
    };
    let records = plan.sent_records(&transcript.context);
    let instructions = args.instructions.as_deref();
    let parts = match args.max_tokens {
        Some(max) => {
            fit(&records, &body, instructions, max, tokenizer)
                .with_context(|| transcript.name.clone())?
                .parts
        }
        None => {
            let messages: Vec<_> = records.iter().filter_map(|r| r.message()).collect();
            request_parts(&messages, &body, instructions)
        }
    };
    Ok(parts.concat())
}

/// The session `plan` and `summary` make, and the size of its live context.
fn build(
    args: &CompactArgs,
    rung: Rung,
    summary: String,
    plan: Plan,
    transcript: &Transcript,
    tokenizer: Tokenizer,
) -> Result<Choice> {
    // With --to, the session measured is the new one, in the target's format.
    let (bytes, from) = match args.handoff.to {
        Some(target) => (
            handoff::render(transcript, &plan, &summary, target, &args.handoff)?.bytes,
            Some(target),
        ),
        None => (
            render(transcript, &plan, &summary, tokenizer)?,
            transcript.format,
        ),
    };
    let after = size_of(&transcript.name, from, &bytes, tokenizer)?;
    Ok(Choice {
        rung,
        summary,
        plan,
        bytes,
        after,
    })
}

/// The live context's size of `bytes`, a session in format `from` (named `name`).
fn size_of(name: &str, from: Option<FormatId>, bytes: &[u8], tokenizer: Tokenizer) -> Result<u64> {
    let options = LoadOptions {
        from,
        // A malformed line in what was written is one the input had, let through by
        // --skip-invalid (the read fails on it otherwise) and kept as it was.
        skip_invalid: true,
        ..LoadOptions::default()
    };
    let written = Transcript::parse(name, bytes, options)?;
    Ok(context_size(&written, tokenizer))
}

/// The compacted session, in the transcript's own format.
fn render(
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    tokenizer: Tokenizer,
) -> Result<Vec<u8>> {
    let format = transcript
        .format
        .context("an empty transcript has no format")?;
    let mut bytes = Vec::new();
    let mut sink = Sink::new(&mut bytes);
    let compacted = compaction(transcript, plan, summary, tokenizer);
    format.format().write_compacted(&compacted, &mut sink)?;
    sink.finish()?;
    Ok(bytes)
}

/// Writes the chosen compaction into the session file, through the safe paths `inject
/// --in-place` takes; the plan (made on `planned`) is checked against what the file holds then,
/// and records the agent appended meanwhile join the tail.
fn write_in_place(
    args: &CompactArgs,
    path: &std::path::Path,
    planned: &Transcript,
    choice: &Choice,
    tokenizer: Tokenizer,
    warnings: &mut Warnings,
) -> Result<()> {
    let report = plan_report(&choice.plan, planned, tokenizer);
    let options = persist::Options {
        backup_suffix: &args.in_place.backup_suffix,
        strategy: if args.in_place.rewrite {
            persist::Strategy::Replace
        } else {
            persist::Strategy::Extend
        },
        inputs: &[],
    };
    let name = path.display().to_string();
    let load = load_options(&args.input);
    let mut built = Vec::new();
    let done = persist::in_place(path, &options, |bytes, out| {
        let now = Transcript::parse(&name, bytes, load)?;
        let (plan, tokenizer) = check_plan(
            &report,
            &now,
            "nothing was written; run compact again, which plans anew",
        )?;
        let compacted = compaction(&now, &plan, &choice.summary, tokenizer);
        let format = now.format.context("an empty transcript has no format")?;
        let write = |out: &mut dyn Write| -> Result<()> {
            let mut sink = Sink::new(out);
            format.format().write_compacted(&compacted, &mut sink)?;
            Ok(sink.finish()?)
        };
        let verify = Verify {
            enabled: !args.in_place.no_verify,
            name: &name,
            from: Some(format),
            before: bytes,
            summary: &choice.summary,
        };
        verify.build(&mut built, out, write, |_| true)
    })?;
    for warning in done.warnings {
        warnings.push(warning);
    }
    Ok(())
}

/// The `--format json` line.
fn report(
    args: &CompactArgs,
    out: &mut dyn Write,
    file: &str,
    rung: Rung,
    before: u64,
    after: u64,
    budget: Option<u64>,
) -> Result<()> {
    if args.format != CompactFormat::Json {
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
            file,
            rung,
            tokens_before: before,
            tokens_after: after,
            budget,
            in_place: args.in_place.enabled,
        },
    )?;
    Ok(())
}
