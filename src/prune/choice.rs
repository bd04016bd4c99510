//! [`choose`]: the eligible candidates, whole units oldest first until the context fits, or
//! why nothing is pruned.

use std::collections::HashMap;

use super::candidate::{Candidate, Target};
use super::context::Context;
use super::eligible::Eligible;
use super::options::Options;

/// Why nothing is pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nothing {
    /// The context is not larger than the trigger.
    BelowTrigger,
    /// The context already fits the target.
    FitsTarget,
    /// No value may be pruned by the rules (or every one already is).
    NoCandidate,
    /// Less than `clear_at_least` would be freed.
    TooLittle,
}

impl Nothing {
    /// The reason, for messages.
    pub fn reason(self) -> &'static str {
        match self {
            Nothing::BelowTrigger => "the context is not larger than --trigger",
            Nothing::FitsTarget => "the context already fits --target",
            Nothing::NoCandidate => "no tool output, argument or thinking block may be pruned",
            Nothing::TooLittle => "less than --clear-at-least tokens would be freed",
        }
    }
}

/// What to prune.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Indexes into the candidates, in order.
    pub chosen: Vec<usize>,
    /// Why nothing is, when `chosen` is empty.
    pub nothing: Option<Nothing>,
    /// The context's tokens before.
    pub tokens_before: u64,
    /// Its tokens after.
    pub tokens_after: u64,
}

/// Chooses what to prune.
pub fn choose(candidates: &[Candidate], context: &Context, options: &Options) -> Choice {
    let before = context.tokens;
    let nothing = |why| Choice {
        chosen: Vec::new(),
        nothing: Some(why),
        tokens_before: before,
        tokens_after: before,
    };
    if options.trigger.is_some_and(|trigger| before <= trigger) {
        return nothing(Nothing::BelowTrigger);
    }
    if options.target.is_some_and(|target| before <= target) {
        return nothing(Nothing::FitsTarget);
    }
    let eligible = Eligible::new(candidates, context, options);
    let order = oldest_first(candidates, |candidate| eligible.is(candidate));
    let (mut chosen, saved) = take_units(candidates, &order, context, options);
    if chosen.is_empty() {
        return nothing(Nothing::NoCandidate);
    }
    let after = context.after(saved);
    if before.saturating_sub(after) < options.clear_at_least {
        return nothing(Nothing::TooLittle);
    }
    chosen.sort_unstable();
    Choice {
        chosen,
        nothing: None,
        tokens_before: before,
        tokens_after: after,
    }
}

/// The candidates `eligible` lets be pruned, their units oldest first (by the first position
/// of a value in them).
fn oldest_first(candidates: &[Candidate], eligible: impl Fn(&Candidate) -> bool) -> Vec<usize> {
    let mut starts: HashMap<(bool, usize), usize> = HashMap::new();
    for candidate in candidates {
        let key = (candidate.target == Target::Thinking, candidate.unit);
        let start = starts.entry(key).or_insert(candidate.position);
        *start = (*start).min(candidate.position);
    }
    let mut order: Vec<usize> = (0..candidates.len())
        .filter(|&i| eligible(&candidates[i]))
        .collect();
    order.sort_by_key(|&i| {
        let candidate = &candidates[i];
        let key = (candidate.target == Target::Thinking, candidate.unit);
        (starts[&key], candidate.position, i)
    });
    order
}

/// Takes whole units in `order` until the context fits the target (all of them without
/// one): the candidates taken, and the estimator units they free.
fn take_units(
    candidates: &[Candidate],
    order: &[usize],
    context: &Context,
    options: &Options,
) -> (Vec<usize>, u64) {
    let mut chosen = Vec::new();
    let mut saved = 0u64;
    let mut index = 0;
    while index < order.len() {
        if options
            .target
            .is_some_and(|target| context.after(saved) <= target)
        {
            break;
        }
        // Take the whole unit.
        let first = &candidates[order[index]];
        let is_thinking = first.target == Target::Thinking;
        let unit = first.unit;
        while index < order.len() {
            let candidate = &candidates[order[index]];
            if (candidate.target == Target::Thinking) != is_thinking || candidate.unit != unit {
                break;
            }
            saved += candidate.saved_units;
            chosen.push(order[index]);
            index += 1;
        }
    }
    (chosen, saved)
}
