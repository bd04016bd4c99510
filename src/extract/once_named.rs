//! The names a short session mentions once. The frequent names are the ones mentioned twice or
//! more (see `names`): in a long session those are what it keeps coming back to, and the names
//! mentioned once are the hundreds a file read happened to hold. A session of a few messages
//! (a segment that opens on a sub-agent's report, a prefix cut early) mentions almost nothing
//! twice, and then the names it mentions once are all it has: the report's `ReadCommittedResult`
//! and `formatCheckpointOutput` are the work, and a summary with room left says them (caveman
//! ranks them after every other line: `caveman::line::ONCE_NAMES_PRIORITY`).
//!
//! Measured on the eval corpus (stop 48), with the tests the agent wrote in: caveman's probes
//! 497 either way, re-used entities carried 1,451 -> 1,458, cuts at least native's on all
//! entities 33 -> 34 of 60 and on paths+commands+errors+numbers 50 -> 51 (the 5-line segment
//! that opens on a sub-agent's report: 5 -> 9 of native's 9). Only two cuts move: a longer
//! session names more than [`SHORT_LIST`] things twice.

/// Below this many frequent names, the names mentioned once fill the list up to it: caveman
/// offers this many names (see `caveman::line::FREQUENT_NAMES_OFFERED`), so a longer session's
/// once-mentioned names would never print.
pub(super) const SHORT_LIST: usize = 120;

/// The names mentioned once (`once`, weightiest first) that fill a list of `frequent` names up
/// to [`SHORT_LIST`]; none when it is that long already.
pub(super) fn once_named(frequent: usize, once: impl Iterator<Item = String>) -> Vec<String> {
    once.take(SHORT_LIST.saturating_sub(frequent)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_named_names_fill_a_short_list_and_no_long_one() {
        let once =
            || ["formatCheckpointOutput", "ReadCommittedResult", "util.go"].map(String::from);
        assert_eq!(once_named(3, once().into_iter()), once());
        assert_eq!(
            once_named(SHORT_LIST - 1, once().into_iter()),
            ["formatCheckpointOutput"]
        );
        assert!(once_named(SHORT_LIST, once().into_iter()).is_empty());
        assert!(once_named(SHORT_LIST + 50, once().into_iter()).is_empty());
    }
}
