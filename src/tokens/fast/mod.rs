//! Fast, vocabulary-free token estimate: the "local" heuristic of `shared/spec/tokens.md`.
//!
//! The spec fitted a linear model with 11 features against three tokenizers (o200k, a
//! reconstruction of Claude 3…4.6 "ctok v3", and of Opus 4.7 "ctok v4.7") by weighted least
//! squares. Its held-out p90 per-text error is 8–16 %, against 30 % and worse for chars/4.
//! Each feature depends only on a char and the one or two chars before it, so the whole text
//! is classified in a single pass with no allocation and no tokenizer tables.
//!
//! The features mirror the cl100k/o200k pre-tokenizer: words (letter runs, split at a
//! lower→Upper camelCase boundary), digit runs, punctuation runs, newline runs and runs of
//! spaces, plus CJK and other non-ASCII characters that BPE vocabularies cover poorly.
//!
//! Speed: transcript text is mostly ASCII, so it is read 64 bytes at a time, each class of
//! char a bit mask and each feature a population count of a few of them (`chunk`, with the
//! compares of [`crate::simd`]: 32 bytes at a time on a CPU with AVX2). An escaped JSON string
//! is read as it stands, escapes and all (`walk`). Non-ASCII chars and `\u` escapes are decoded
//! and counted one at a time (`scalar`), where the rules are also stated char by char.
//!
//! Blind spots, inherent to the spec's features (checked against o200k on the fixtures):
//! box-drawing trees are overestimated (o200k merges `──` into one token, the model charges
//! every such char as "other"), base64 blobs are underestimated by ~25 %, and combining marks
//! count as "other" rather than continuing a letter run.

mod chunk;
mod features;
mod scalar;
#[cfg(test)]
mod tests;
mod walk;

pub use features::Features;

use crate::transcript::text::Text;

/// Tokenizer family whose fitted weights turn [`Features`] into a token estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenAI o200k_base (GPT-4o and later).
    Openai,
    /// Claude 3 up to 4.6 (the spec's "ctok v3" reconstruction).
    Claude,
    /// Claude Opus 4.7 (the spec's "ctok v4.7" reconstruction), a much denser tokenizer.
    Claude47,
}

// Weights in thousandths of a token, in the field order of `Features::as_array`. They are the
// spec's 3-decimal figures exactly (shared/spec/tokens.md, "The cheap heuristics", table
// "local"), so integer milli-tokens are exact and callers can sum them without drift.

/// o200k column of the spec's "local" table (shared/spec/tokens.md), in milli-tokens.
const OPENAI_MILLI: [u64; 11] = [758, 65, 1519, 156, 1449, 142, 551, 530, 787, 731, 1607];
/// "Claude 3…4.6 (ctok v3)" column of the spec's "local" table, in milli-tokens.
const CLAUDE_MILLI: [u64; 11] = [694, 89, 3280, 122, 1359, 202, 876, 705, 1271, 1120, 488];
/// "Opus 4.7 (ctok v4.7)" column of the spec's "local" table, in milli-tokens.
const CLAUDE47_MILLI: [u64; 11] = [431, 249, 4154, 253, 1341, 549, 584, 607, 1510, 1128, 530];

impl Family {
    /// The family whose tokenizer a model uses, by its name as sessions record it: Claude Opus
    /// 4.7 (`claude-opus-4-7…`, `claude-opus-4.7`) has its own, denser tokenizer; every other
    /// Claude model (`claude-…`, `anthropic/claude-…`, `us.anthropic.claude-…`) the older one;
    /// any other model is counted as OpenAI's o200k, which the spec finds within ~10% for Kimi
    /// and the GPT models (shared/spec/tokens.md, "Ground truth from the providers").
    pub fn of_model(model: &str) -> Family {
        let model = model.to_ascii_lowercase();
        if !model.contains("claude") {
            Family::Openai
        } else if model.contains("opus-4-7") || model.contains("opus-4.7") {
            Family::Claude47
        } else {
            Family::Claude
        }
    }

    /// The family's weights in milli-tokens per feature, in [`Features::as_array`] order.
    fn milli_weights(self) -> &'static [u64; 11] {
        match self {
            Family::Openai => &OPENAI_MILLI,
            Family::Claude => &CLAUDE_MILLI,
            Family::Claude47 => &CLAUDE47_MILLI,
        }
    }
}

impl Features {
    /// Computes all features of `text` in one pass, without allocating.
    pub fn of(text: &str) -> Features {
        let mut f = Features::default();
        walk::read::<false>(&mut f, text, &mut 0);
        f
    }

    /// The features of a part's text, the same as of the text it decodes to: an escaped text
    /// is read as it stands, without being decoded.
    pub fn of_text(text: &Text) -> Features {
        let mut f = Features::default();
        // The history starts as no char, which continues no run.
        let mut hist = 0;
        match text.escaped_body() {
            Some(body) => walk::read::<true>(&mut f, body, &mut hist),
            None => walk::read::<false>(&mut f, text.as_str(), &mut hist),
        }
        f
    }

    /// The estimate in thousandths of a token. Exact integer arithmetic (the spec's weights
    /// have three decimals), so sums over many texts need rounding only once at the end.
    pub fn milli_tokens(&self, family: Family) -> u64 {
        self.as_array()
            .iter()
            .zip(family.milli_weights())
            .fold(0u64, |acc, (&n, &w)| {
                acc.saturating_add(n.saturating_mul(w))
            })
    }
}

/// Estimated tokens of `text` for `family`, times 1000 (exact, see [`Features::milli_tokens`]).
/// Add these up and divide by 1000, rounding once, to get a total.
pub fn milli_tokens(text: &str, family: Family) -> u64 {
    Features::of(text).milli_tokens(family)
}

/// [`milli_tokens`] of a part's text, read so that an escaped text is never decoded into a
/// string of its own (see [`Features::of_text`]).
pub fn text_milli_tokens(text: &Text, family: Family) -> u64 {
    Features::of_text(text).milli_tokens(family)
}

/// The weighted feature sum for `family`: the estimated token count as a float.
pub fn weighted(features: &Features, family: Family) -> f64 {
    features.milli_tokens(family) as f64 / 1000.0
}
