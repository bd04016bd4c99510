//! caveman's decision lines: the user's rules and answers and the agent's choices, each at a
//! priority from its rank.

use super::line::*;
use super::terse::terse;
use crate::extract::model::Extract;
use crate::extract::text::cut;
use crate::extract::turn_figures::turn_with_figures;

/// Characters shown of a decision line.
pub(super) const DECISION_SHOWN: usize = 80;

/// Characters of a decision that budget left over may show.
pub(super) const DECISION_WHOLE: usize = 150;

/// Where the agent's third newest choice ranks: just before the user's older turns (60), after
/// the first lines of names (24, 32, …). An agent's choice is prose, about 30 re-used entities per
/// 1,000 tokens on the eval corpus against 130 for the names, and its newest two keep their
/// place. Measured on the eval corpus against 35 (with the names ranked by writer, see
/// `mention_weight`): caveman's probes 496 -> 498 (decision 59 -> 60, fact 93 -> 94), re-used
/// entities carried 1,443 -> 1,473, cuts at least native's on all entities 25 -> 27 of 60 and
/// on paths+commands+errors+numbers 40 -> 39 (one `git push` line crowded out; one re-used
/// constraint fewer); at 50, 497, 26 and 39; at 45, 496, 25 and 40. With the `dirs:` line and
/// the reports' `found:` line in (stop 47), 55 against 60: probes 497 either way, entities
/// 1,444 -> 1,446, cuts at least native's on all entities 31 -> 32 of 60 (before the `found:`
/// line, at 50: one probe fewer).
const THIRD_AGENT_CHOICE_PRIORITY: u32 = 55;

/// The decisions, in session order, each at a priority from its rank: the user's rules and
/// answers first, then their other turns, newest first; the agent's choices newest first. As
/// the checkpoint guidance ranks them, the newest of each come right after the goal and the
/// task, ahead of the first error and the test command: a decision without its reason gets
/// re-litigated.
pub(super) fn decision_lines(ex: &Extract, lines: &mut Vec<Line>) {
    let mut user: Vec<usize> = (0..ex.decisions.len())
        .filter(|&i| ex.decisions[i].user)
        .collect();
    user.sort_by_key(|&i| {
        (
            !ex.decisions[i].rule,
            std::cmp::Reverse(ex.decisions[i].index),
        )
    });
    // A choice the next step already states ("We should fall back … Let me fix this:") is
    // printed once, under next.
    let in_plan = |text: &str| ex.plan.as_ref().is_some_and(|p| p.text.contains(text));
    let mut agent: Vec<usize> = (0..ex.decisions.len())
        .filter(|&i| !ex.decisions[i].user && !in_plan(&ex.decisions[i].text))
        .collect();
    agent.sort_by_key(|&i| std::cmp::Reverse(ex.decisions[i].index));
    let mut priority = vec![0; ex.decisions.len()];
    for (rank, &i) in user.iter().enumerate() {
        priority[i] = match rank {
            0 => 4,
            1 => 9,
            2 => 14,
            3..=5 => 60,
            _ => 85,
        };
    }
    for (rank, &i) in agent.iter().enumerate() {
        priority[i] = match rank {
            0 => 4,
            1 => 9,
            2 => THIRD_AGENT_CHOICE_PRIORITY,
            3 => 60,
            _ => 85,
        };
    }
    // The best-ranked candidates, printed in session order.
    let mut chosen: Vec<usize> = (0..ex.decisions.len()).collect();
    chosen.sort_by_key(|&i| priority[i]);
    chosen.truncate(CANDIDATES);
    chosen.sort_unstable();
    chosen.retain(|&i| ex.decisions[i].user || !in_plan(&ex.decisions[i].text));
    for i in chosen {
        let (decision, priority) = (&ex.decisions[i], priority[i]);
        let who = if decision.user { "user" } else { "agent" };
        let head = format!("- {who}: ");
        // Cut, then terse: the same words as the untersed cut, in fewer tokens (`shown` ends
        // in `…`, where a cut of `text` to its length puts it).
        let text = format!("{head}{}", terse(&cut(&decision.text, DECISION_WHOLE)));
        let shown = terse(&cut(&decision.text, DECISION_SHOWN));
        // The figures the user's turn states past the cut stay beside it (see `turn_figures`).
        let text = turn_with_figures(text, &shown, &decision.figures);
        lines.push(Line {
            start: Some(head.chars().count() + shown.chars().count() + text.tail_chars()),
            ..Line::new(Section::Decisions, text, None, priority)
        });
    }
}
