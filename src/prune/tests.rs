//! The choice on small sets of candidates: recent, protected and small uses kept, the last
//! user turns, a target, a trigger and `clear_at_least`, thinking turns, and the size after a
//! provider's figure.

use super::*;
use crate::tokens::Tokenizer;

fn options() -> Options {
    Options {
        keep_turns: 0,
        keep: 0,
        protect: vec!["TodoWrite".to_owned()],
        min_tokens: 0,
        target: None,
        trigger: None,
        clear_at_least: 0,
        clear_inputs: false,
        keep_thinking: None,
    }
}

/// Tool uses 0..n, each a call at 2i and a result of `tokens[i]` at 2i+1.
fn uses(tokens: &[u64]) -> Vec<Candidate> {
    tokens
        .iter()
        .enumerate()
        .flat_map(|(unit, &tokens)| {
            [
                Candidate {
                    target: Target::Arguments,
                    position: 2 * unit,
                    unit,
                    tool: Some(if unit == 1 { "TodoWrite" } else { "Bash" }.to_owned()),
                    tokens: 50,
                    saved_units: 160,
                    shrinks: true,
                    pruned: false,
                },
                Candidate {
                    target: Target::Result,
                    position: 2 * unit + 1,
                    unit,
                    tool: None,
                    tokens,
                    saved_units: tokens * 4,
                    shrinks: true,
                    pruned: false,
                },
            ]
        })
        .collect()
}

fn context(tokens: u64, turns: Vec<usize>) -> Context {
    Context {
        tokenizer: Tokenizer::Chars4,
        units: tokens * 4,
        tokens,
        usage: false,
        turns,
    }
}

#[test]
fn after_a_usage_figure_what_is_freed_comes_off_the_figure() {
    let context = Context {
        usage: true,
        tokens: 30_000,
        ..context(10_000, vec![0])
    };
    assert_eq!(context.after(4000), 29_000);
    assert_eq!(
        Context {
            usage: false,
            ..context.clone()
        }
        .after(4000),
        9000
    );
    let small = Context {
        tokens: 500,
        ..context
    };
    assert_eq!(small.after(4000), 500, "never above what it was");
    let text = Context {
        tokens: 9500,
        ..small
    };
    assert_eq!(text.after(4000), 9000, "never below what is left");
}

fn results(choice: &Choice, candidates: &[Candidate]) -> Vec<usize> {
    choice
        .chosen
        .iter()
        .map(|&i| &candidates[i])
        .filter(|c| c.target == Target::Result)
        .map(|c| c.unit)
        .collect()
}

#[test]
fn keeps_recent_protected_and_small_uses() {
    let candidates = uses(&[1000, 1000, 10, 1000, 1000]);
    let choice = choose(
        &candidates,
        &context(10_000, vec![0]),
        &Options {
            keep: 1,
            min_tokens: 100,
            ..options()
        },
    );
    // 1 is protected, 2 too small, 4 the most recent.
    assert_eq!(results(&choice, &candidates), [0, 3]);
    assert_eq!(choice.tokens_after, 10_000 - 2000);
    // Arguments only with clear_inputs.
    assert_eq!(choice.chosen.len(), 2);
    let inputs = choose(
        &candidates,
        &context(10_000, vec![0]),
        &Options {
            keep: 1,
            min_tokens: 40,
            clear_inputs: true,
            ..options()
        },
    );
    assert_eq!(inputs.chosen.len(), 5, "{inputs:?}");
}

#[test]
fn the_last_user_turns_keep_their_outputs() {
    let candidates = uses(&[1000, 1000, 1000, 1000]);
    // Turns start at positions 0 and 5: use 2 (positions 4, 5) is in the last turn.
    let choice = choose(
        &candidates,
        &context(10_000, vec![0, 5]),
        &Options {
            keep_turns: 1,
            ..options()
        },
    );
    assert_eq!(results(&choice, &candidates), [0]);
}

#[test]
fn a_target_stops_pruning_oldest_first() {
    let candidates = uses(&[1000, 500, 1000, 1000, 1000]);
    let choice = choose(
        &candidates,
        &context(5000, vec![0]),
        &Options {
            target: Some(3500),
            protect: Vec::new(),
            ..options()
        },
    );
    assert_eq!(results(&choice, &candidates), [0, 1]);
    assert_eq!(choice.tokens_after, 3500);
    let fits = choose(
        &candidates,
        &context(3000, vec![0]),
        &Options {
            target: Some(3500),
            ..options()
        },
    );
    assert_eq!(fits.nothing, Some(Nothing::FitsTarget));
}

#[test]
fn trigger_clear_at_least_and_pruned_values() {
    let mut candidates = uses(&[1000, 1000, 1000]);
    let below = choose(
        &candidates,
        &context(5000, vec![0]),
        &Options {
            trigger: Some(5000),
            ..options()
        },
    );
    assert_eq!(below.nothing, Some(Nothing::BelowTrigger));
    let little = choose(
        &candidates,
        &context(5000, vec![0]),
        &Options {
            clear_at_least: 2001,
            ..options()
        },
    );
    assert_eq!(little.nothing, Some(Nothing::TooLittle));
    for candidate in &mut candidates {
        candidate.pruned = true;
    }
    let again = choose(&candidates, &context(5000, vec![0]), &options());
    assert_eq!(again.nothing, Some(Nothing::NoCandidate));
}

#[test]
fn thinking_keeps_the_last_turns_and_always_the_newest() {
    let candidates: Vec<Candidate> = (0..4)
        .map(|unit| Candidate {
            target: Target::Thinking,
            position: unit,
            unit,
            tool: None,
            tokens: 100,
            saved_units: 400,
            shrinks: true,
            pruned: false,
        })
        .collect();
    let kept = |keep: Option<usize>| {
        let choice = choose(
            &candidates,
            &context(1000, vec![0]),
            &Options {
                keep_thinking: keep,
                ..options()
            },
        );
        choice.chosen
    };
    assert_eq!(kept(None), Vec::<usize>::new());
    assert_eq!(kept(Some(2)), [0, 1]);
    assert_eq!(kept(Some(0)), [0, 1, 2]);
}
