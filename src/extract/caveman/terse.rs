//! Prose in caveman's own words: the articles, the forms of "to be" and the filler adverbs of a
//! goal, a request, a decision or the agent's last words left out, so that the same facts take
//! fewer tokens and a line cut to its share of the budget keeps more of them.
//!
//! Only plain prose loses words: what sits in backticks or double quotes (code, a UI string
//! the user quoted) and everything from the first word that starts an error as a tool prints
//! it (`error: …`, `TypeError: …`, the same rule as `outcome`'s; an error message is matched
//! by its words in order) stay as written, and so does every word that carries a
//! fact on its own (negations, `must`, `only`, names, numbers, paths).

use crate::extract::outcome::starts_error;

/// The words left out: they carry no fact a next reader acts on. Lowercase only, and `The`:
/// a capital `A` or `Is` may be a label ("option A") or a question's first word.
const FILLERS: [&str; 18] = [
    "a",
    "an",
    "the",
    "The",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "just",
    "really",
    "actually",
    "basically",
    "simply",
    "very",
    "quite",
];

/// `text` without the filler words of its prose, the words kept one space apart.
pub(super) fn terse(text: &str) -> String {
    // The verbatim part starts with the first word that starts an error as a tool prints it.
    let verbatim = word_starts(text)
        .find(|&at| starts_error(text[at..].trim_start_matches(['(', '`', '"', '\''])))
        .unwrap_or(text.len());
    let (prose, rest) = text.split_at(verbatim);
    let mut kept: Vec<&str> = Vec::new();
    let (mut in_code, mut in_quote) = (false, false);
    for word in prose.split(' ').filter(|word| !word.is_empty()) {
        // A word is plain prose when it starts and ends outside code and quotes.
        let plain = !in_code && !in_quote;
        for c in word.chars() {
            match c {
                '`' => in_code = !in_code,
                '"' if !in_code => in_quote = !in_quote,
                _ => {}
            }
        }
        let filler = plain && !in_code && !in_quote && FILLERS.contains(&word);
        if !filler {
            kept.push(word);
        }
    }
    if !rest.is_empty() {
        kept.push(rest);
    }
    kept.join(" ")
}

/// The byte offsets at which the words of `text` start.
fn word_starts(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.char_indices()
        .filter(move |&(at, c)| c != ' ' && (at == 0 || text.as_bytes()[at - 1] == b' '))
        .map(|(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_loses_its_fillers() {
        assert_eq!(
            terse("The fix is just a guard in the parser, which was really slow"),
            "fix guard in parser, which slow"
        );
    }

    #[test]
    fn negations_names_and_numbers_stay() {
        assert_eq!(
            terse("do not touch the config.toml, it must be only 3 files"),
            "do not touch config.toml, it must only 3 files"
        );
    }

    #[test]
    fn code_quotes_and_error_messages_stay_whole() {
        assert_eq!(
            terse("rename `is a` to the \"Save the file\" button"),
            "rename `is a` to \"Save the file\" button"
        );
        assert_eq!(
            terse("the build says error: the file is not found"),
            "build says error: the file is not found"
        );
        // Any error as outcome reads one, also behind an opening bracket or quote.
        assert_eq!(
            terse("the run is red (--- FAIL: TestA the case)"),
            "run red (--- FAIL: TestA the case)"
        );
        // A capital A is a label, not an article.
        assert_eq!(terse("take option A of the two"), "take option A of two");
    }

    #[test]
    fn spacing_and_empty_texts() {
        assert_eq!(terse(""), "");
        assert_eq!(terse("the"), "");
        assert_eq!(terse("a  b"), "b");
        assert_eq!(terse("the run: TypeError: the x"), "run: TypeError: the x");
    }
}
