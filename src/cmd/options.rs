//! The typed options of a run, built once from the flags, the config file and the preset: the
//! one place where clap's arguments become what the core takes. Each option comes from the
//! flag, else the config file, else the preset (or the built-in default).

use std::path::Path;

use super::settings;
use crate::cli::{InPlaceArgs, PlanArgs, PruneArgs, ReadArgs};
use crate::compaction::planning::{Keeping, PlanOptions};
use crate::compaction::writer::DocumentBudgets;
use crate::persist;
use crate::prompts::{self, Style};
use crate::prune;
use crate::settings::{config, Keep, Settings};
use crate::tokens::Tokenizer;
use crate::transcript::load::{LoadOptions, Transcript};

/// How the transcript is read.
pub fn load(read: &ReadArgs) -> LoadOptions {
    LoadOptions {
        from: read.from,
        skip_invalid: read.skip_invalid,
        whole_file: read.whole_file,
    }
}

/// How `transcript` is planned: the plan flags, else what `settings` keep.
pub fn plan(
    args: &PlanArgs,
    settings: &Settings,
    transcript: &Transcript,
) -> anyhow::Result<PlanOptions> {
    Ok(PlanOptions {
        keeping: keeping(args).unwrap_or(Keeping::Rule(settings.keep)),
        tokenizer: tokenizer(args, settings, transcript)?,
    })
}

/// What `transcript` is counted with: the estimator the flags name, else a named preset's,
/// else the session's own.
pub fn tokenizer(
    args: &PlanArgs,
    settings: &Settings,
    transcript: &Transcript,
) -> anyhow::Result<Tokenizer> {
    let estimator = args.tokens.estimator(settings.preset_tokenizer())?;
    Ok(transcript.tokenizer(estimator))
}

/// What the plan flags keep, if they say (clap lets at most one mode through).
fn keeping(args: &PlanArgs) -> Option<Keeping> {
    if let Some(upto) = &args.upto {
        return Some(Keeping::Upto(upto.clone()));
    }
    if let Some(keep_user_tokens) = args.keep_user_tokens {
        return Some(Keeping::Rule(Keep::User {
            keep_user_tokens,
            user_head_tokens: args.user_head_tokens.unwrap_or(2000),
        }));
    }
    if args.head_tokens.is_some() || args.tail_tokens.is_some() {
        return Some(Keeping::Rule(Keep::Budgets {
            head_tokens: args.head_tokens.unwrap_or(500),
            tail_tokens: args.tail_tokens.unwrap_or(1000),
        }));
    }
    args.preserve
        .map(|preserve| Keeping::Rule(Keep::Tail { preserve }))
}

/// The prompt body: `--prompt-file`'s text, else the `--style` given, else the config file's
/// prompt, else the structured style's. The flag wins, then the config file, then the default,
/// in `prompt` and `compact` alike; the files are read only when they are the ones used.
pub fn body(
    prompt_file: Option<&Path>,
    style: Option<Style>,
    settings: &Settings,
) -> anyhow::Result<String> {
    if let Some(path) = prompt_file {
        return settings::read_prompt_file(path);
    }
    if let Some(style) = style {
        return Ok(prompts::body(style).to_owned());
    }
    Ok(match settings::config_prompt(settings)? {
        Some(body) => body,
        None => prompts::body(Style::Structured).to_owned(),
    })
}

/// The budgets of the handoff document's verbatim parts: `--head-tokens` and `--tail-tokens`
/// (500 and 1000 when not given; the config file's budgets are the plan's, not the document's).
pub fn document(args: &PlanArgs) -> DocumentBudgets {
    DocumentBudgets {
        head_tokens: args.head_tokens.unwrap_or(500),
        tail_tokens: args.tail_tokens.unwrap_or(1000),
    }
}

/// How `--in-place` writes: appended where the format allows (replaced with `--rewrite`),
/// the backups' suffix, and the files the run reads (which a backup must not be named as).
pub fn persist<'a>(args: &'a InPlaceArgs, inputs: &'a [&'a Path]) -> persist::Options<'a> {
    persist::Options {
        backup_suffix: &args.backup_suffix,
        strategy: if args.rewrite {
            persist::Strategy::Replace
        } else {
            persist::Strategy::Extend
        },
        inputs,
    }
}

/// `prune`'s knobs: the flags of `args` (none: `compact`'s pruned rung), else the config
/// file's `[prune]` block, else the defaults.
pub fn prune(args: Option<&PruneArgs>, file: &config::Prune) -> prune::Options {
    let defaults = prune::Options::default();
    let flag = |get: fn(&PruneArgs) -> Option<usize>| args.and_then(get);
    let protect = args
        .and_then(|a| a.protect.clone())
        .or_else(|| file.protect.clone())
        .unwrap_or(defaults.protect);
    prune::Options {
        keep_turns: flag(|a| a.keep_turns)
            .or(file.keep_turns)
            .unwrap_or(defaults.keep_turns),
        keep: flag(|a| a.keep).or(file.keep).unwrap_or(defaults.keep),
        protect: protect
            .into_iter()
            .filter(|tool| !tool.is_empty())
            .collect(),
        min_tokens: args
            .and_then(|a| a.min_tokens)
            .or(file.min_tokens)
            .unwrap_or(defaults.min_tokens),
        target: args.and_then(|a| a.budget).or(file.budget),
        trigger: args.and_then(|a| a.trigger).or(file.trigger),
        clear_at_least: args
            .and_then(|a| a.clear_at_least)
            .or(file.clear_at_least)
            .unwrap_or(defaults.clear_at_least),
        clear_inputs: args.is_some_and(|a| a.clear_inputs)
            || file.clear_inputs.unwrap_or(defaults.clear_inputs),
        keep_thinking: flag(|a| a.keep_thinking).or(file.keep_thinking),
    }
}
