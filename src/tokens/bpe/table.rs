//! The rank tables: tokens in rank order, embedded at build time, loaded on first use.
//!
//! `build.rs` writes each vocabulary as a length byte and the token's bytes, rank 0 upwards.
//! Loading walks those bytes once and keys a hash map by slices of them, so no token is decoded
//! or copied: about 200,000 inserts for o200k, a few milliseconds, paid only by a call that
//! counts with that vocabulary, once per process.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::encoding::Encoding;

static O200K_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.ranks"));
static CL100K_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.ranks"));

/// A vocabulary: the rank of every ordinary token.
pub struct Vocabulary {
    ranks: FxHashMap<&'static [u8], u32>,
}

impl Vocabulary {
    /// The vocabulary of `encoding`, loaded on first use.
    pub fn get(encoding: Encoding) -> &'static Vocabulary {
        static O200K: OnceLock<Vocabulary> = OnceLock::new();
        static CL100K: OnceLock<Vocabulary> = OnceLock::new();
        match encoding {
            Encoding::O200k => O200K.get_or_init(|| Vocabulary::load(O200K_BYTES)),
            Encoding::Cl100k => CL100K.get_or_init(|| Vocabulary::load(CL100K_BYTES)),
        }
    }

    fn load(mut table: &'static [u8]) -> Vocabulary {
        // Both vocabularies average under 8 bytes a token; a little spare room is cheaper than
        // growing the map mid-load.
        let mut ranks = FxHashMap::with_capacity_and_hasher(table.len() / 6, Default::default());
        let mut rank = 0u32;
        // build.rs writes whole entries only, so a length byte is always followed by its bytes.
        while let Some((&len, rest)) = table.split_first() {
            let (token, rest) = rest.split_at(usize::from(len));
            ranks.insert(token, rank);
            rank += 1;
            table = rest;
        }
        Vocabulary { ranks }
    }

    /// The rank of `bytes`, when they are one token.
    #[inline]
    pub fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.ranks.get(bytes).copied()
    }

    /// How many tokens the vocabulary has.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.ranks.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_a_token_and_ranks_run_from_zero() {
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let vocabulary = Vocabulary::get(encoding);
            for byte in 0..=255u8 {
                assert!(
                    vocabulary.rank(&[byte]).is_some(),
                    "{encoding:?} byte {byte}"
                );
            }
            let highest = vocabulary.ranks.values().max().copied().unwrap();
            assert_eq!(highest as usize + 1, vocabulary.len(), "{encoding:?}");
        }
        assert_eq!(Vocabulary::get(Encoding::O200k).len(), 199_998);
        assert_eq!(Vocabulary::get(Encoding::Cl100k).len(), 100_256);
    }
}
