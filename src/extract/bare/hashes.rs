//! The commit hashes the agent's last words name, first among NOW's names. A findings summary
//! written before a compaction rests on the commits and checkpoints it traced (`commit 755d3e8,
//! shadow branch entire/51a7ff0 deleted`), and those are what the next turn searches the logs
//! and the history for; caveman shows them after its `said:` line, bare had none of them.

use super::super::hashes::is_hash;
use super::super::model::Extract;

/// The names NOW may show after the task: the commit hashes the agent's last text names
/// (those the goal shows are already left out of its figures), then the names the latest
/// edits wrote or replaced.
pub(super) fn hashes_then_touched(ex: &Extract) -> Vec<String> {
    ex.doing_figures
        .iter()
        .filter(|figure| is_hash(figure))
        .chain(&ex.touched)
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hashes_of_the_last_text_come_before_the_edited_names_and_figures_do_not() {
        let ex = Extract {
            doing_figures: vec!["39 seconds".into(), "755d3e8".into(), "51a7ff0".into()],
            touched: vec!["filterSessions".into()],
            ..Extract::default()
        };
        assert_eq!(
            hashes_then_touched(&ex),
            ["755d3e8", "51a7ff0", "filterSessions"]
        );
    }
}
