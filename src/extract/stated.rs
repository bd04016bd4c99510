//! The figures the agent's texts stated over the session, newest first: what it found and
//! reported (`465 checkpoint commits in 8 minutes`, `1305 lines` against `989 lines`, `100%`).
//!
//! A finding the agent reported several turns back is what the next turns reason from ("the
//! 1305 lines", "those 8 minutes"), yet only its last words reach `said:`. The figures of its
//! texts (not its thinking, not tool output) are few and dense, so the latest of them go on one
//! line (`figures: 8 minutes; 1305 lines`), leaving out the ones `said:` shows.

use super::figures::stated_figures;

/// The most figures remembered, and shown on the line.
pub(super) const STATED_FIGURES: usize = 6;

/// The figures stated so far, oldest first, each once (its latest statement counts).
#[derive(Debug, Default)]
pub(super) struct Stated {
    figures: Vec<String>,
}

impl Stated {
    /// Takes the figures of one text of the agent's.
    pub(super) fn text(&mut self, text: &str) {
        for figure in stated_figures(text) {
            self.figures.retain(|f| *f != figure);
            self.figures.push(figure);
            if self.figures.len() > STATED_FIGURES * 2 {
                self.figures.remove(0);
            }
        }
    }

    /// The latest figures, newest first, without those in `shown`, at most [`STATED_FIGURES`].
    pub(super) fn latest(&self, shown: &[String]) -> Vec<String> {
        self.figures
            .iter()
            .rev()
            .filter(|f| !shown.contains(f))
            .take(STATED_FIGURES)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_figures_come_first_each_once_without_the_shown() {
        let mut stated = Stated::default();
        stated.text("There it is: 465 commits in 8 minutes on Feb 5.");
        stated.text("Current transcript: **1305 lines** against 989 lines; 8 minutes again");
        assert_eq!(
            stated.latest(&["989 lines".to_owned()]),
            ["8 minutes", "1305 lines", "465 commits"]
        );
    }
}
