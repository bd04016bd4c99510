//! Writes the BPE rank tables of o200k_base and cl100k_base into `OUT_DIR` (feature `bpe`).
//!
//! tiktoken-rs carries the vocabularies as base64 text and builds hash maps, a decoder and a
//! sorted copy of every token when a tokenizer is first made: about 650 million instructions,
//! 160 ms, before the first byte is counted. Here that work is done once, at build time, from
//! tiktoken-rs's own tables (nothing is downloaded): each file lists the tokens in rank order as
//! a length byte followed by the token's bytes, so `tokens::bpe` loads a table by walking it once
//! and keying a hash map by slices of the embedded bytes, with no decoding and no allocation per
//! token.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "bpe")]
    bpe::write_tables();
}

#[cfg(feature = "bpe")]
mod bpe {
    use std::path::PathBuf;

    /// Writes `o200k.ranks` and `cl100k.ranks` into `OUT_DIR`.
    pub fn write_tables() {
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let o200k = tiktoken_rs::o200k_base().expect("tiktoken-rs builds o200k_base");
        std::fs::write(out.join("o200k.ranks"), serialise(&o200k)).expect("OUT_DIR is writable");
        let cl100k = tiktoken_rs::cl100k_base().expect("tiktoken-rs builds cl100k_base");
        std::fs::write(out.join("cl100k.ranks"), serialise(&cl100k)).expect("OUT_DIR is writable");
    }

    /// The ordinary tokens of `bpe`, rank 0 upwards, each as a length byte and its bytes. The
    /// ordinary ranks of both vocabularies run without a gap from 0; the first rank that does not
    /// decode ends them (the special tokens sit after a gap, and ordinary counting never makes
    /// them).
    fn serialise(bpe: &tiktoken_rs::CoreBPE) -> Vec<u8> {
        let mut table = Vec::new();
        let mut rank = 0;
        while let Ok(bytes) = bpe.decode_bytes(&[rank]) {
            let len = u8::try_from(bytes.len()).expect("every BPE token is under 256 bytes");
            assert!(len > 0, "rank {rank} decodes to no bytes");
            table.push(len);
            table.extend_from_slice(&bytes);
            rank += 1;
        }
        // A vocabulary cut short (a special token inside the ordinary range) would make counts
        // silently wrong; both are known to hold over 100,000 ordinary tokens.
        assert!(rank > 100_000, "only {rank} ordinary ranks decoded");
        table
    }
}
