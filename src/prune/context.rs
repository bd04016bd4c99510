//! Where the live context stands: its size, its user turns, and its size once values are
//! replaced.

use crate::tokens::Tokenizer;

/// Where the live context stands, for the rules that look at turns and sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The estimator.
    pub tokenizer: Tokenizer,
    /// Estimator units of every main-chain message of the live context.
    pub units: u64,
    /// Its size as the agent sees it (`estimate --context`): a provider's usage figure plus
    /// the estimate of what came after it, or, with `usage` false, the estimate of `units`.
    pub tokens: u64,
    /// Whether `tokens` starts from a provider's figure. The size after pruning is then that
    /// size less what is freed (the figure holds what the file does not: system prompt, tool
    /// definitions); otherwise it is the estimate of what is left.
    pub usage: bool,
    /// The positions of the user turns (real user requests), in order.
    pub turns: Vec<usize>,
}

impl Context {
    /// The size after freeing `saved` estimator units: never below the estimate of what is
    /// left, nor above the size before (a figure smaller than the file's own text, as a test
    /// double reports, is no floor).
    pub fn after(&self, saved: u64) -> u64 {
        let left = self.tokenizer.tokens(self.units.saturating_sub(saved));
        if self.usage {
            self.tokens
                .saturating_sub(self.tokenizer.tokens(saved))
                .max(left)
                .min(self.tokens)
        } else {
            left
        }
    }
}
