//! When Gemini CLI compacts by itself (its chat compression), and the windows its own code
//! gives the Gemini models. Its session file records no compaction.

use super::Gemini;
use crate::transcript::trigger::{at_least, Native, Trigger, Window};

/// Gemini CLI's `DEFAULT_COMPRESSION_TOKEN_THRESHOLD`.
const RATIO: f64 = 0.5;

impl Trigger for Gemini {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        Some(Native {
            agent: "gemini",
            window,
            compacts_at: at_least(window, RATIO),
            rule: format!(
                "lastPromptTokenCount >= {RATIO} * tokenLimit(model) = {RATIO} * {window}; \
                 model.compressionThreshold in settings.json replaces {RATIO}"
            ),
            source: "google-gemini/gemini-cli packages/core/src/services/\
                     chatCompressionService.ts ChatCompressionService.compress \
                     (DEFAULT_COMPRESSION_TOKEN_THRESHOLD 0.5), packages/core/src/core/\
                     tokenLimits.ts tokenLimit (gemini-cli 0.61.0)",
        })
    }

    fn windows(&self) -> &'static [Window] {
        &[
            Window {
                prefix: "gemini-2.5",
                tokens: 1_048_576,
                source: "Gemini CLI tokenLimits.ts: 1,048,576 for Gemini 2.5",
            },
            Window {
                prefix: "gemini-3",
                tokens: 1_048_576,
                source: "Gemini CLI tokenLimits.ts: 1,048,576 for Gemini 3",
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_at_half_the_limit() {
        let native = Gemini.native(1_048_577, None).unwrap();
        assert_eq!(native.compacts_at, 524_289);
        // Gemini CLI returns early when `tokens < threshold * limit`: due is the negation.
        edge(&native, |t| t as f64 >= 0.5 * 1_048_577.0);
    }
}
