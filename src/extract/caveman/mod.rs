//! caveman: the Markdown summary of an extract within a token budget, lines admitted by
//! priority and cut to fit.
//!
//! This file admits lines against the budget; `lines` and `decisions` propose them, each with
//! its priority, `line` holds the line and section types they share (so that no part imports
//! this file back), and `render` prints the ones admitted.

use super::model::Extract;
use crate::tokens::Tokenizer;

/// The caveman summary of an extract: under the title, the self-labelled lines of now and of
/// the files by what was done to them, with no heading (see `line::Section`); then Markdown
/// sections (goal, decisions, unresolved errors, commands with outcomes, next, CI, names), in
/// paths, labels and exact commands, within `budget` tokens of `tokenizer` over the whole text.
///
/// Lines are admitted by priority — the header, the goal and the task first, then the newest
/// decisions, the first error, the latest test command, the agent's last words and next step,
/// the first line of files, sub-agents in flight and commands, the names the latest edits touched, then
/// the rest section by section — and each is kept only if the whole summary
/// still fits; a long goal or task is cut to fit instead of dropped. The budget left then goes
/// first to the list lines (files, names) that did not fit whole, as many of their first items
/// as fit, and then lengthens the texts that were cut. When the whole does not
/// fit after all (token counts do not add up), lines go again from the lowest priority, down
/// to an empty summary: the budget is never exceeded.
pub fn caveman(ex: &Extract, budget: u64, tokenizer: Tokenizer) -> String {
    let lines = caveman_lines(ex);
    let fits = |text: &str| tokenizer.text_tokens(text) <= budget;
    let mut shown: Vec<Option<String>> = vec![None; lines.len()];
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by_key(|&i| (lines[i].priority, lines[i].tie));
    for &i in &order {
        let line = &lines[i];
        shown[i] = Some(match line.start {
            Some(chars) => line.text.at(chars),
            None => line.text.full.clone(),
        });
        let within_share = line
            .share
            .is_none_or(|share| tokenizer.text_tokens(&line.text.full) * 100 <= share * budget);
        if within_share && fits(&render(&lines, &shown)) {
            continue;
        }
        shown[i] = None;
        if let Some(share) = line.share {
            // A long text first gets its share of the budget, so that one long goal cannot
            // crowd out the task and the files; what is left over goes back to it below.
            let longest = line.text.longest_cut(0, |text| {
                tokenizer.text_tokens(text) * 100 <= share * budget && {
                    shown[i] = Some(text.to_owned());
                    let whole = fits(&render(&lines, &shown));
                    shown[i] = None;
                    whole
                }
            });
            let cut = line.text.at(longest);
            shown[i] = says_something(&cut).then_some(cut);
        }
    }
    // What is left goes first to the list lines that did not fit whole, then to prose.
    partial_lists(&lines, &order, &mut shown, &fits);
    // Budget left over lengthens the texts that were cut, in priority order.
    for &i in &order {
        let line = &lines[i];
        let Some(current) = shown[i].clone() else {
            continue;
        };
        if (line.share.is_none() && line.start.is_none()) || current == line.text.full {
            continue;
        }
        let from = current.chars().count();
        let longest = line.text.longest_cut(from, |text| {
            shown[i] = Some(text.to_owned());
            let whole = fits(&render(&lines, &shown));
            shown[i] = Some(current.clone());
            whole
        });
        shown[i] = Some(line.text.at(longest.max(from)));
    }
    // Token counts are not additive, so check the whole once more and give back lines from the
    // lowest priority until it fits.
    let mut text = render(&lines, &shown);
    for &i in order.iter().rev() {
        if fits(&text) {
            return text;
        }
        if shown[i].take().is_some() {
            text = render(&lines, &shown);
        }
    }
    if fits(&text) {
        text
    } else {
        String::new()
    }
}

/// The list lines (files, names) left out, in priority order, each with as many of its first
/// items as still fit (see `partial`).
fn partial_lists(
    lines: &[line::Line],
    order: &[usize],
    shown: &mut [Option<String>],
    fits: &impl Fn(&str) -> bool,
) {
    for &i in order {
        let line = &lines[i];
        if shown[i].is_some() || !line.section.is_list() {
            continue;
        }
        let count = partial::item_count(&line.text.full);
        let (mut low, mut high) = (0, count);
        while low < high {
            let mid = (low + high).div_ceil(2);
            shown[i] = partial::first_items(&line.text.full, mid);
            if fits(&render(lines, shown)) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        shown[i] = partial::first_items(&line.text.full, low);
    }
}

/// Characters below which a cut text says nothing and is dropped instead.
const MIN_CUT: usize = 16;

/// Whether a cut line still says something: at least [`MIN_CUT`] characters after its label.
/// A line cut down to its label and a word (`last: agent…`) takes a line of the summary and
/// tells the next reader nothing.
fn says_something(cut: &str) -> bool {
    unlabelled(cut).chars().count() >= MIN_CUT
}

mod decisions;
mod line;
mod lines;
mod partial;
mod render;
mod terse;
mod touched;
mod written;

use line::unlabelled;
use lines::caveman_lines;
use render::render;

#[cfg(test)]
mod tests;
