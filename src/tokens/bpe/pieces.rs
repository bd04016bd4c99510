//! The pre-tokenizer: each vocabulary's pattern splits text into the pieces BPE merges within.
//!
//! The patterns are the vocabularies' own (o200k's as tiktoken-rs exports it, cl100k's as
//! tiktoken-rs builds it); they need look-ahead (`\s+(?!\S)`), so fancy-regex runs them, as in
//! tiktoken-rs. Each is compiled on first use, about 6 ms.

use std::sync::OnceLock;

use fancy_regex::Regex;

use super::encoding::Encoding;

/// cl100k_base's pattern, as tiktoken-rs's `cl100k_base()` passes it.
const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+",
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// The compiled pattern of each vocabulary, once compiled.
static O200K: OnceLock<Regex> = OnceLock::new();
static CL100K: OnceLock<Regex> = OnceLock::new();

/// The compiled pattern of `encoding`, compiled on first use.
pub fn pattern(encoding: Encoding) -> &'static Regex {
    let (cell, source) = match encoding {
        Encoding::O200k => (&O200K, O200K_PATTERN),
        Encoding::Cl100k => (&CL100K, CL100K_PATTERN),
    };
    // A fixed pattern that the tests compile: it cannot fail at run time.
    cell.get_or_init(|| Regex::new(source).expect("the vocabulary's pattern compiles"))
}

/// Whether `encoding`'s pattern is compiled already.
pub fn compiled(encoding: Encoding) -> bool {
    match encoding {
        Encoding::O200k => O200K.get().is_some(),
        Encoding::Cl100k => CL100K.get().is_some(),
    }
}

/// o200k_base's pattern, tiktoken-rs's `O200K_BASE_PAT_STR` (tiktoken-rs is a build dependency
/// only). The tests compare counts with tiktoken-rs's tokenizer, which uses its own copy.
const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"\p{N}{1,3}",
    "|",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    "|",
    r"\s*[\r\n]+",
    "|",
    r"\s+(?!\S)",
    "|",
    r"\s+"
);

/// The pieces of `text`, in order; together they are the whole text (every character is a
/// space, a letter, a digit or other, and each has an alternative of its own).
pub fn split<'t>(encoding: Encoding, text: &'t str) -> impl Iterator<Item = &'t [u8]> + 't {
    let mut matches = pattern(encoding).find_iter(text);
    let mut end = 0;
    let mut stopped = false;
    std::iter::from_fn(move || {
        if stopped {
            return None;
        }
        match matches.next()? {
            Ok(found) => {
                end = found.end();
                Some(found.as_str().as_bytes())
            }
            // Only fancy-regex's backtracking limit can fail a match, and these patterns
            // backtrack one step at most (the look-ahead); were it ever hit, the rest of the text
            // is one piece rather than dropped (tiktoken-rs would panic).
            Err(_) => {
                stopped = true;
                Some(&text.as_bytes()[end..])
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pieces_make_up_the_text() {
        let text = "Hello, world!  It's 2026:\n\n  fn main() {}\t\n";
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let joined: Vec<u8> = split(encoding, text).flatten().copied().collect();
            assert_eq!(joined, text.as_bytes(), "{encoding:?}");
        }
        let words: Vec<&[u8]> = split(Encoding::O200k, "hello world").collect();
        assert_eq!(words, [&b"hello"[..], b" world"]);
    }

    #[test]
    fn the_o200k_pattern_is_tiktoken_rs_s() {
        assert_eq!(O200K_PATTERN, tiktoken_rs::O200K_BASE_PAT_STR);
    }
}
