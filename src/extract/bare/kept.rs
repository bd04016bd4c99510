//! The names a cut of NOW drops, kept after it: NOW is cut from the end, and the agent's
//! findings or the pasted request it quotes often name the function or the commit they are
//! about past the first hundred characters ("…That's the commit that added
//! sessionHasNewContentFromLiveTranscript which calls getStagedFiles…"). The first few of those
//! names follow the cut as `+name`, in room the cut's head gives up, so the next turn has the
//! word it searches the code for.
//!
//! Measured on the eval corpus against cutting alone: two names, not one or three (one kept
//! the now probes level; three cost next probes to the shorter heads).

use super::subject::SubjectOrHash;
use crate::extract::hashes::is_hash;
use crate::extract::names::is_code_name;

/// Names of the dropped part kept after a cut NOW.
const KEPT_NAMES: usize = 2;

/// NOW in at most `max` characters: its cut, then ` +name` for each of the first
/// [`KEPT_NAMES`] names (`marked` words, code names, commit hashes) of the whole line that the
/// cut no longer shows.
/// The head is cut shorter to make their room, unless that would break the work state (the
/// commit NOW starts with) or still not fit; then NOW is the plain cut.
pub(super) fn cut_keeping_names(now: &SubjectOrHash, max: usize, marked: &[String]) -> String {
    let shown = now.at(max);
    if shown == now.with_subject.full {
        return shown;
    }
    let names = dropped_names(now, &shown, marked);
    if names.is_empty() {
        return shown;
    }
    // The shorter head may drop another name, and the first ones in the line are kept: the
    // room is measured again for those, once, and a line that still runs over stays as cut.
    let mut names = names;
    for _ in 0..2 {
        let room: usize = names.iter().map(|n| n.chars().count() + 2).sum();
        let shorter = now.at(max.saturating_sub(room));
        if !shorter.contains(&now.state) {
            return shown;
        }
        let kept = dropped_names(now, &shorter, marked);
        let line = format!("{shorter}{}", plus(&kept));
        if line.chars().count() <= max {
            return line;
        }
        names = kept;
    }
    shown
}

/// ` +name` for each name.
fn plus(names: &[String]) -> String {
    names.iter().map(|n| format!(" +{n}")).collect()
}

/// The first [`KEPT_NAMES`] names of NOW's whole text that `shown` lacks: the `marked` words
/// (a code span, a lint rule) whatever their shape, and code names and commit hashes outside
/// the work state, outside double quotes (a quoted value, `"lineA"`, is data, not a name the
/// code has) and without a slash.
fn dropped_names(now: &SubjectOrHash, shown: &str, marked: &[String]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for word in now.with_subject.full.split_whitespace() {
        // A word marked as a name is one whatever its shape: a code span, a lint rule.
        let unpunctuated = word.trim_matches(|c: char| "()[]{},.;:!?'\"".contains(c));
        if marked.iter().any(|m| m == unpunctuated) {
            let new = !shown.contains(unpunctuated) && !now.state.contains(unpunctuated);
            if new && !names.iter().any(|n| n == unpunctuated) {
                names.push(unpunctuated.to_owned());
            }
            if names.len() == KEPT_NAMES {
                break;
            }
            continue;
        }
        // A quoted value is data; a word with a slash is a path or two words (`Steps/Code`),
        // which NOW's place and the other lines name by their file.
        if word.starts_with('"') || word.contains('/') {
            continue;
        }
        let name = word
            .trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .trim_end_matches("()");
        let is_name = is_code_name(name) || is_hash(name);
        if !is_name || shown.contains(name) || now.state.contains(name) {
            continue;
        }
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        if names.len() == KEPT_NAMES {
            break;
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::shorten::Shortening;

    fn now(state: &str, text: &str) -> SubjectOrHash {
        SubjectOrHash {
            with_subject: Shortening::plain(text.to_owned()),
            state: state.to_owned(),
            with_hash: Shortening::plain(text.to_owned()),
        }
    }

    #[test]
    fn a_cut_keeps_the_first_names_it_drops() {
        let text = "Found the commit that broke it. It added sessionHasNew, which calls \
                    getStagedFiles and \"lineA\" from PostCommit";
        let line = cut_keeping_names(&now("", text), 60, &[]);
        assert!(
            line.starts_with("Found the commit")
                && line.ends_with(" +sessionHasNew +getStagedFiles"),
            "{line}"
        );
        assert!(line.chars().count() <= 60, "{line}");
        // No room for a name beside a word of the head: the plain cut.
        assert!(!cut_keeping_names(&now("", text), 8, &[]).contains('+'));
        // A line that fits is whole; a quoted value is no name.
        assert_eq!(cut_keeping_names(&now("", text), 500, &[]), text);
        let quoted = "Check the scenario first: \"lineA\" and \"lineB\" are both gone now";
        assert!(!cut_keeping_names(&now("", quoted), 30, &[]).contains('+'));
        let slashed = "Read the issue first. Steps/Code to Reproduce follow in the text below";
        assert!(!cut_keeping_names(&now("", slashed), 30, &[]).contains('+'));
    }

    #[test]
    fn a_marked_word_is_kept_whatever_its_shape() {
        let text = "The tests expect the legacy name but the new code creates entire/<hash>-1. \
                    Error: a_test.go:12:16: 1 issues: * goconst: 1";
        let marked = ["entire/<hash>-1".to_owned(), "goconst".to_owned()];
        let line = cut_keeping_names(&now("", text), 60, &marked);
        assert!(line.ends_with(" +entire/<hash>-1 +goconst"), "{line}");
        assert!(line.chars().count() <= 60, "{line}");
        // Unmarked, the slashed word and the plain word are no names.
        assert!(!cut_keeping_names(&now("", text), 60, &[]).contains('+'));
    }

    #[test]
    fn names_never_break_the_work_state() {
        let text = "committed b5cf65b, 1 uncommitted | That returns the CheckpointSummary";
        let line = cut_keeping_names(&now("committed b5cf65b, 1 uncommitted", text), 40, &[]);
        assert!(
            line.starts_with("committed b5cf65b, 1 uncommitted"),
            "{line}"
        );
        assert!(!line.contains("+b5cf65b"), "{line}");
    }
}
