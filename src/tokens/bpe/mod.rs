//! Exact OpenAI BPE counts (o200k_base, cl100k_base) with tables compiled into the binary.
//!
//! Behind the `bpe` cargo feature (on by default). The vocabularies are tiktoken-rs's, taken at
//! build time (`build.rs`) into a form that loads in a few milliseconds (`table`), where
//! tiktoken-rs itself spends about 160 ms building its maps before the first count; a command
//! that never counts with BPE never loads them. The counting follows tiktoken's ordinary
//! encoding step for step: the vocabulary's pre-tokenizer pattern splits the text into pieces
//! (`pieces`), a piece that is a token counts one, and any other is merged pair by pair, lowest
//! rank first (`merge`). Text is encoded as ordinary text: special-token strings inside a
//! transcript count as the characters they are. The tests hold every count equal to
//! tiktoken-rs's own.

mod encoding;
#[cfg(feature = "bpe")]
mod merge;
#[cfg(feature = "bpe")]
mod pieces;
#[cfg(feature = "bpe")]
mod table;

pub use encoding::Encoding;

/// True when this binary carries the BPE tables.
pub const AVAILABLE: bool = cfg!(feature = "bpe");

/// Exact token count of `text`. Without the `bpe` feature the command line refuses these
/// estimators before any text is read, so this is never reached; it returns 0 rather than panic.
pub fn count(encoding: Encoding, text: &str) -> u64 {
    #[cfg(feature = "bpe")]
    {
        let vocabulary = prepared(encoding);
        let mut scratch = merge::Scratch::default();
        let mut tokens = 0u64;
        for piece in pieces::split(encoding, text) {
            tokens += match vocabulary.rank(piece) {
                Some(_) => 1,
                None => scratch.count(vocabulary, piece) as u64,
            };
        }
        tokens
    }
    #[cfg(not(feature = "bpe"))]
    {
        let _ = (encoding, text);
        0
    }
}

/// The vocabulary of `encoding`, its pattern compiled too. The first call does both at once,
/// the pattern on a thread of its own (about 11 ms of compiling beside 7 of loading the
/// table), so the first count waits for the longer of the two rather than for both.
#[cfg(feature = "bpe")]
fn prepared(encoding: Encoding) -> &'static table::Vocabulary {
    if pieces::compiled(encoding) {
        return table::Vocabulary::get(encoding);
    }
    std::thread::scope(|scope| {
        // Should no thread start, the pattern is compiled by the first split instead.
        let _ = std::thread::Builder::new().spawn_scoped(scope, || pieces::pattern(encoding));
        table::Vocabulary::get(encoding)
    })
}

#[cfg(all(test, feature = "bpe"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(encoding: Encoding, text: &str) -> u64 {
        let bpe = match encoding {
            Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len() as u64
    }

    fn same_as_tiktoken(text: &str) {
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            assert_eq!(
                count(encoding, text),
                reference(encoding, text),
                "{encoding:?} on {text:?}"
            );
        }
    }

    #[test]
    fn counts_match_the_tokenizer_crate() {
        same_as_tiktoken("fn parse_jsonl(line: &str) -> Result<Value> { todo!() }");
        assert_eq!(count(Encoding::Cl100k, "hello world"), 2);
        same_as_tiktoken("");
        same_as_tiktoken("  \n\n\t  trailing spaces   ");
        same_as_tiktoken("I'm sure they'LL say we've DONE it's <|endoftext|> 12345678");
        same_as_tiktoken("héllo wörld — 日本語のテキスト, emoji 🦀🦀 and Ελληνικά");
    }

    #[test]
    fn long_pieces_are_merged_as_tiktoken_merges_them() {
        // Pieces of 100 bytes and more take tiktoken's other merge path; one long run of
        // letters is one piece.
        let letters: String = (0..3000)
            .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
            .collect();
        same_as_tiktoken(&letters);
        same_as_tiktoken(&"ab".repeat(700));
        same_as_tiktoken(&"z".repeat(1000));
        same_as_tiktoken(&"ж".repeat(300));
    }

    #[test]
    fn every_real_session_counts_as_tiktoken_counts() {
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/corpus");
        let mut files = 0;
        for agent in std::fs::read_dir(corpus).unwrap() {
            let agent = agent.unwrap().path();
            if !agent.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(agent).unwrap() {
                let text = std::fs::read(file.unwrap().path()).unwrap();
                same_as_tiktoken(&String::from_utf8_lossy(&text));
                files += 1;
            }
        }
        assert!(files > 5, "only {files} corpus files found");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn any_text_counts_as_tiktoken_counts(text in "(?s).{0,400}") {
            same_as_tiktoken(&text);
        }

        #[test]
        fn code_like_text_counts_as_tiktoken_counts(
            text in "[a-zA-Z0-9_ .,;:'\"(){}\\[\\]<>/\\\\\n\t-]{0,2000}"
        ) {
            same_as_tiktoken(&text);
        }
    }
}
