//! Exact OpenAI BPE counts (o200k_base, cl100k_base) with tables compiled into the binary.
//!
//! Built on tiktoken-rs behind the `bpe` cargo feature (on by default). Among the offline
//! tokenizers measured for this project it adds the least to the binary (7.5 MB against
//! 33–49 MB for bpe-openai) and builds in half the time; bpe-openai tokenizes about 1.5× faster,
//! which matters less than size for an opt-in exact mode. Text is encoded as ordinary text:
//! special-token strings inside a transcript count as the characters they are.

/// The BPE vocabularies condense can count with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    O200k,
    /// GPT-4 and GPT-3.5.
    Cl100k,
}

/// True when this binary carries the BPE tables.
pub const AVAILABLE: bool = cfg!(feature = "bpe");

/// Exact token count of `text`. Without the `bpe` feature the command line refuses these
/// estimators before any text is read, so this is never reached; it returns 0 rather than panic.
pub fn count(encoding: Encoding, text: &str) -> u64 {
    #[cfg(feature = "bpe")]
    {
        let bpe = match encoding {
            Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.count_ordinary(text) as u64
    }
    #[cfg(not(feature = "bpe"))]
    {
        let _ = (encoding, text);
        0
    }
}

#[cfg(all(test, feature = "bpe"))]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_tokenizer_crate() {
        let text = "fn parse_jsonl(line: &str) -> Result<Value> { todo!() }";
        let direct = tiktoken_rs::o200k_base()
            .unwrap()
            .encode_ordinary(text)
            .len() as u64;
        assert_eq!(count(Encoding::O200k, text), direct);
        assert!(count(Encoding::Cl100k, "hello world") == 2);
    }
}
