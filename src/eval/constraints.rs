//! The user's constraints (pure): the sentences of a person's requests that say don't, do not,
//! never, must or only, and the key words each is recognised by later.
//!
//! A sentence gives an order when the trigger opens it or follows a word such as please, but,
//! also, should (see `LEADS`), or is must / never after you or we: "don't fix anything" and
//! "you must keep X" order; "I don't need the token", "you don't understand" and "we only
//! commit if …" describe. A question sets nothing.
//! A constraint is rarely quoted back word for word, so it is compared by its key words: the
//! words of the sentence of three letters or more that are not common English (nor the trigger
//! word itself), the first six of them. A text holds the constraint when it holds at least half
//! of its key words (rounded up, and never fewer than two), each as a whole word, ignoring case.
//! A sentence with fewer than two key words is too vague to grade and is left out.

use super::words::is_common;

/// The words that make a sentence a constraint.
const TRIGGERS: [&str; 5] = ["don't", "dont", "never", "must", "only"];

/// The most key words kept of a sentence.
const KEYS: usize = 6;

/// Sentences longer than this are pasted text (logs, code), not a request.
const LONGEST: usize = 400;

/// One constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constraint {
    /// The sentence, trimmed.
    pub sentence: String,
    /// Its key words, lowercase.
    pub keys: Vec<String>,
}

impl Constraint {
    /// How many key words a text must hold.
    pub fn needed(&self) -> usize {
        self.keys.len().div_ceil(2).max(2).min(self.keys.len())
    }

    /// Whether `words` (a text's lowercase words, see [`words_of`]) holds the constraint.
    pub fn held_by(&self, words: &[String]) -> bool {
        let held = self
            .keys
            .iter()
            .filter(|key| words.iter().any(|w| w == *key))
            .count();
        held >= self.needed()
    }
}

/// The lowercase words of a text, punctuation around them dropped.
pub fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "`\"()[]{},;:!?*".contains(c))
        .map(|w| {
            w.trim_matches(|c: char| ".'‘’“”".contains(c))
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The constraints in a person's text, fenced code left out.
pub fn constraints(text: &str) -> Vec<Constraint> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut out = Vec::new();
    for (sentence, question) in sentences(&prose) {
        let sentence = sentence.trim();
        // A question asks; it sets nothing.
        if question || sentence.len() > LONGEST {
            continue;
        }
        let words = words_of(sentence);
        if !directive(&words) {
            continue;
        }
        let mut keys: Vec<String> = Vec::new();
        for word in words {
            let plain = word
                .chars()
                .all(|c| c.is_alphanumeric() || "_-./".contains(c));
            if word.chars().count() >= 3
                && plain
                && !is_common(&word)
                && !TRIGGERS.contains(&word.as_str())
                && !keys.contains(&word)
            {
                keys.push(word);
            }
            if keys.len() == KEYS {
                break;
            }
        }
        if keys.len() >= 2 {
            out.push(Constraint {
                sentence: sentence.to_owned(),
                keys,
            });
        }
    }
    out
}

/// Words a trigger may follow and still give an order (`please don't`, `you must`, `we
/// should never`); after any other word it describes (`I don't need`, `it can only go`).
const LEADS: [&str; 9] = [
    "please", "but", "and", "so", "also", "just", "should", "always", "use",
];

/// Subjects after which only `must` and `never` order (`you must`, `we never`): `you don't`,
/// `we only` state facts.
const SUBJECTS: [&str; 2] = ["you", "we"];

/// Whether a sentence's words give an order with a trigger: the trigger (or `do not`) opens
/// the sentence or follows one of [`LEADS`], or is `must` / `never` after [`SUBJECTS`].
fn directive(words: &[String]) -> bool {
    (0..words.len()).any(|i| {
        let word = words[i].as_str();
        let trigger = TRIGGERS.contains(&word)
            || (word == "do" && words.get(i + 1).is_some_and(|w| w == "not"));
        let before = i.checked_sub(1).map(|j| words[j].as_str());
        trigger
            && match before {
                None => true,
                Some(lead) if LEADS.contains(&lead) => true,
                Some(subject) => SUBJECTS.contains(&subject) && matches!(word, "must" | "never"),
            }
    })
}

/// The sentences of a text, split at line ends, `!`, `?`, and a `.` before a space, each with
/// whether it ends in `?` (or in `, right`, a question too).
fn sentences(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end = match b {
            b'\n' | b'!' | b'?' => true,
            b'.' => bytes.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()),
            _ => false,
        };
        if end {
            let sentence = &text[start..i];
            let question = b == b'?' || sentence.trim_end().ends_with(", right");
            out.push((sentence, question));
            start = i + 1;
        }
    }
    out.push((&text[start..], false));
    out.retain(|(s, _)| !s.trim().is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constraint_is_a_triggered_sentence_with_its_key_words() {
        let found = constraints(
            "Fix the parser. Don't touch the lexer tests, they are generated! Thanks.\n\
             ```\nnever in code\n```",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].sentence,
            "Don't touch the lexer tests, they are generated"
        );
        assert_eq!(found[0].keys, ["touch", "lexer", "tests", "generated"]);
        assert_eq!(found[0].needed(), 2);
        assert!(found[0].held_by(&words_of("left the Lexer alone; tests are generated")));
        assert!(!found[0].held_by(&words_of("the lexer")));
    }

    #[test]
    fn a_vague_constraint_or_a_description_is_left_out() {
        assert!(constraints("You must do it now.").is_empty());
        assert!(constraints("ok looks like i dont need the token for the endpoint").is_empty());
        assert!(constraints("Like it can only go back the active branch").is_empty());
        assert!(constraints("I feel the check is weak, it only validates the branch").is_empty());
        assert!(constraints("You don't fully understand the issue").is_empty());
        assert!(constraints("do we only summarise the related lines?").is_empty());
        assert!(constraints("but we only commit to the shadow branch, right").is_empty());
        assert_eq!(constraints("Please never push tags upstream").len(), 1);
        assert_eq!(constraints("You must keep the lockfile pinned").len(), 1);
    }
}
