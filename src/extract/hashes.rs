//! The commit hashes the agent's last words name (`755d3e8`, `entire/51a7ff0`), kept past the
//! cut of its `said:` line beside the figures (see `figures`).
//!
//! A findings summary an agent writes before a compaction ("commit 755d3e8, shadow branch
//! entire/51a7ff0 deleted; 39 seconds later …") rests on the commits and checkpoints it traced,
//! and those are what the next turn searches the logs and the history for. They are most often
//! past the first 200 characters `said:` shows. A hash the goal already shows is left out: the
//! summary prints the goal whole near the top.

/// The most hashes kept of one text.
const MOST_STATED: usize = 4;

/// Hex digits a short commit hash has at least (git's default abbreviation) and a full one at
/// most.
const HASH_DIGITS: std::ops::RangeInclusive<usize> = 7..=40;

/// The commit hashes `text` names, in order, each once, at most [`MOST_STATED`], without those
/// `shown` (the goal) already holds. Lines of code (indented) are skipped.
pub(super) fn stated_hashes(text: &str, shown: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let lines = text
        .lines()
        .filter(|line| !line.starts_with("    ") && !line.starts_with('\t'));
    for word in lines.flat_map(str::split_whitespace) {
        // A branch or ref names its commit after a slash (`entire/755d3e8`).
        for part in word.split('/') {
            let part = part.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if is_hash(part) && !shown.contains(part) && !out.iter().any(|h| h == part) {
                out.push(part.to_owned());
                if out.len() == MOST_STATED {
                    return out;
                }
            }
        }
    }
    out
}

/// True for a word of [`HASH_DIGITS`] lowercase hex digits with a letter and a digit among
/// them: a number (`20260121`) or a word (`deadbeef`, `facade`) is no hash.
pub(super) fn is_hash(word: &str) -> bool {
    HASH_DIGITS.contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hashes_a_findings_summary_names_are_kept_unless_the_goal_shows_them() {
        let text = "Commit `09ea3c1` has checkpoint e6d2bbd73e25.\n\
                    17:59:39 - commit 755d3e8, shadow branch entire/51a7ff0 deleted\n\
                    Session `2026-01-19-c2b51eb0-d0e9` on 20260121, see deadbeef.\n    \
                    let pinned = \"abc1234def\";\n\
                    commit 755d3e8 again";
        let goal = "commit 09ea3c1e2b76a240 references e6d2bbd73e25";
        assert_eq!(stated_hashes(text, goal), ["755d3e8", "51a7ff0"]);
        assert_eq!(
            stated_hashes(text, ""),
            ["09ea3c1", "e6d2bbd73e25", "755d3e8", "51a7ff0"]
        );
        assert!(stated_hashes("no hash: 1234567 or ABCDEF1 or cafe", "").is_empty());
    }
}
