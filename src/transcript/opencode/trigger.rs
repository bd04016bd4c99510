//! When opencode compacts by itself (`packages/opencode/src/session/overflow.ts`: `isOverflow`,
//! and `usable` beside it, asked by `SessionPrompt.run` after each step): when the step's
//! count (`tokens.total`, else input + output + cache read + cache write) reaches the usable
//! window: the model's input limit less `compaction.reserved` (else min(20,000, its output
//! limit)), or, with no input limit, its context less its output limit
//! (`ProviderTransform.maxOutputTokens`: the model's own, capped at 32,000 unless
//! `OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX` says otherwise). condense knows neither limit of
//! the model, so it takes the cap. Never when `compaction.auto` is false or the context limit
//! is 0.

use super::OpenCode;
use crate::transcript::trigger::{Native, Trigger};

/// opencode's cap on a model's output tokens.
const OUTPUT_MAX: u64 = 32_000;

/// The most opencode holds back for a compaction when the model has an input limit.
const BUFFER: u64 = 20_000;

impl Trigger for OpenCode {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        let usable = window.saturating_sub(OUTPUT_MAX).max(1);
        Some(Native {
            agent: "opencode",
            window,
            compacts_at: usable,
            rule: format!(
                "count >= window {window} - max output (at most {OUTPUT_MAX}); with an input \
                 limit: input limit - min({BUFFER}, max output); compaction.auto false never"
            ),
            source: "opencode 1.18.33 packages/opencode/src/session/overflow.ts isOverflow",
        })
    }
}
