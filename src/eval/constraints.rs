//! The user's constraints (pure): the sentences of a person's requests that say don't, do not,
//! never, must or only, and the key words each is recognised by later.
//!
//! A sentence gives an order when the trigger opens it or follows a word such as please, you,
//! we, but, should (see `LEADS`): "I don't need the token" describes, "don't fix anything" orders.
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
    for sentence in sentences(&prose) {
        let sentence = sentence.trim();
        if sentence.len() > LONGEST {
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
const LEADS: [&str; 11] = [
    "please", "you", "we", "but", "and", "so", "also", "just", "should", "always", "use",
];

/// Whether a sentence's words give an order with a trigger: the trigger (or `do not`) opens
/// the sentence or follows one of [`LEADS`].
fn directive(words: &[String]) -> bool {
    (0..words.len()).any(|i| {
        let trigger = TRIGGERS.contains(&words[i].as_str())
            || (words[i] == "do" && words.get(i + 1).is_some_and(|w| w == "not"));
        trigger && (i == 0 || LEADS.contains(&words[i - 1].as_str()))
    })
}

/// The sentences of a text: split at line ends, `!`, `?`, and a `.` before a space.
fn sentences(text: &str) -> Vec<&str> {
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
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out.retain(|s| !s.trim().is_empty());
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
        assert_eq!(constraints("Please never push tags upstream").len(), 1);
    }
}
