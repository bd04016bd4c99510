//! Which vocabulary a count uses ([`Encoding`]): named by the counting in [`super`], and by the
//! tables (`table`) and pre-tokenizer patterns (`pieces`) kept per vocabulary.

/// The BPE vocabularies condense can count with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    O200k,
    /// GPT-4 and GPT-3.5.
    Cl100k,
}
