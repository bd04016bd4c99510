//! One thing shown once.
//!
//! A request: the goal, the request the current one leans on and the current one
//! are often the same text: the first request is still the one being worked on, or the user
//! sent it again (a plan re-sent on approval, a message retyped after an interruption), so the
//! extract holds it at two record indices. At 500 tokens a second copy of a long request costs
//! the room of every file and name it crowds out, so a request already shown is not repeated.
//!
//! A name: the names section lists the code names the next turn will search for, and about a
//! fifth of them were already printed above it, in the goal, the ask, the agent's last words or
//! a file's path. The renderer leaves those out, checking each name against the text it has
//! actually printed above (a goal cut to fit no longer holds its tail), so the room goes to
//! other names.

use super::model::Said;

/// Leading words compared: two requests that open with this many of the same words are one
/// (a copy cut at another length is still a copy), and two different requests part well
/// before it.
const SAME_WORDS: usize = 24;

/// Opening words two texts of different lengths must share to be one request: "fix the
/// build" is not "fix the build on windows".
const LEAST_SHARED: usize = 8;

/// True when `a` and `b` are one request: the same record, the same words, or the same opening
/// words (up to [`SAME_WORDS`], at least [`LEAST_SHARED`]: one is the other cut shorter),
/// compared lowercase and without punctuation.
pub(super) fn same_request(a: &Said, b: &Said) -> bool {
    if a.index == b.index {
        return true;
    }
    let (a, b) = (words(&a.text), words(&b.text));
    let n = a.len().min(b.len());
    // A request of a word or two ("yes", "go on") repeats by nature and is not one request.
    (n >= 3 && a == b) || (n >= LEAST_SHARED && a[..n] == b[..n])
}

/// The words of `text`, lowercase, punctuation dropped.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(SAME_WORDS)
        .map(str::to_lowercase)
        .collect()
}

/// True when `name` occurs in one of `texts` with no letter, digit or `_` glued to it on either
/// side (`parse_line` is in "fix parse_line.", not in "parse_lines").
pub(super) fn printed_in(name: &str, texts: &[&str]) -> bool {
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    texts.iter().any(|text| {
        text.match_indices(name).any(|(at, _)| {
            !glued(text[..at].chars().next_back()) && !glued(text[at + name.len()..].chars().next())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str, index: usize) -> Said {
        Said {
            text: text.into(),
            index,
        }
    }

    #[test]
    fn a_request_sent_twice_or_cut_at_another_length_is_one() {
        let plan =
            "Implement the following plan: # Fix `clean` logging. Two bugs: logs leak to the \
                    terminal, and packed refs are not deleted.";
        assert!(same_request(&said(plan, 3), &said(plan, 3)));
        assert!(same_request(&said(plan, 3), &said(plan, 40)));
        let cut = "Implement the following plan: # Fix clean logging… Two bugs";
        assert!(same_request(&said(plan, 3), &said(cut, 40)));
        let other = "Implement the following plan: # Add telemetry to enable.";
        assert!(!same_request(&said(plan, 3), &said(other, 40)));
        // Short answers repeat without being one request; a short request is not a longer one
        // that starts like it.
        assert!(!same_request(&said("yes", 3), &said("yes", 9)));
        assert!(same_request(
            &said("fix the build", 3),
            &said("Fix the build!", 9)
        ));
        let longer = said("fix the build on windows", 9);
        assert!(!same_request(&said("fix the build", 3), &longer));
    }

    #[test]
    fn a_name_is_printed_when_it_stands_alone_in_a_text() {
        let texts = ["fix parse_line in src/reader.rs", "said: done."];
        assert!(printed_in("parse_line", &texts));
        assert!(printed_in("reader.rs", &texts));
        assert!(!printed_in("parse_lines", &texts));
        assert!(!printed_in("line", &texts));
        assert!(!printed_in("QuoteState", &texts));
    }
}
