//! The figures of a user's turn kept past the cut of its decision line (`user: why is it
//! showing such a high number… [175 files]`).
//!
//! A turn that reports a symptom or sets a scenario states its figures in what it quotes (a
//! pasted listing, the expected counts), most often past the 80 characters a decision line
//! shows first; the next turns check their work against them. So the figures the shown words
//! lose go along as the line's protected tail, as the agent's last words keep theirs on `said:`
//! (see `figures`).

use super::figures::with_figures;
use super::shorten::Shortening;

/// `text` (the turn as its line shows it whole) with the `figures` of the whole turn that
/// `shown` (what the line shows first) does not hold, as its protected tail.
pub(super) fn turn_with_figures(text: String, shown: &str, figures: &[String]) -> Shortening {
    let missing: Vec<String> = figures
        .iter()
        .filter(|f| !shown.contains(f.as_str()))
        .cloned()
        .collect();
    with_figures(text, &missing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::figures::stated_figures;

    #[test]
    fn a_turn_keeps_the_figures_its_first_words_lose() {
        let turn = "why is it showing such a high number: the list shows 4 checkpoints, \
                    [+51894 (175 files)]";
        let figures = stated_figures(turn);
        assert_eq!(figures, ["4 checkpoints", "+51894", "175 files"]);
        // Shown first and whole: the words up to the checkpoints, not the pasted stat.
        let shown = &turn[..66];
        let line = turn_with_figures(format!("- user: {shown}"), shown, &figures);
        assert_eq!(line.full, format!("- user: {shown} [+51894; 175 files]"));
        assert_eq!(line.tail_chars(), " [+51894; 175 files]".chars().count());
        assert!(line.at(60).ends_with("… [+51894; 175 files]"));
    }

    #[test]
    fn a_turn_shown_with_its_figures_has_no_tail() {
        let figures = stated_figures("add 2 tests");
        let line = turn_with_figures("- user: add 2 tests".into(), "add 2 tests", &figures);
        assert_eq!(line.tail_chars(), 0);
        assert_eq!(line.full, "- user: add 2 tests");
    }
}
