//! The code names the agent's last words give, in the order it gives them.
//!
//! The agent's last message is often a question or an analysis the user answers next ("the
//! backend stores `wallet_address → email`; should linking happen in settings?"), and caveman
//! shows its first 200 characters as `said:`. The names further on are what the reply is
//! about, yet named once, at the end, they seldom rank among the frequent names. Its first
//! few are kept here; caveman prints the ones `said:` does not already show (see `render`).

use super::goal_names::GOAL_NAMES;
use super::names::first_names;

/// The first distinct code names of the agent's last words, as many as a goal keeps (one line
/// of names, see [`GOAL_NAMES`]). Measured on the eval corpus (stop 49): 4, 10 or 14
/// names carry the same 500 probes, 1,469 re-used entities and 37 cuts as 7.
pub(super) fn said_names(text: &str) -> Vec<String> {
    first_names(text, GOAL_NAMES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_words_names_are_kept_once_each_in_order() {
        let words = "Aggregate verifiers match on a common verifierId. Then:\n\
            1. login with loginWithJWT\n2. the backend stores `wallet_address → email`\n\
            3. loginWithJWT again, with verifierId from wallet_address.";
        assert_eq!(
            said_names(words),
            ["verifierId", "loginWithJWT", "wallet_address"]
        );
        assert!(said_names("Done, all green.").is_empty());
    }
}
