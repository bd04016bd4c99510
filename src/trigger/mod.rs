//! Each agent's own auto-compaction trigger, as its code computes it (pure): the token count at
//! which the agent compacts by itself, for a window and a model, with the file and function the
//! rule comes from. `estimate --explain` sets it beside the trigger condense's `--check` uses.
//!
//! Every rule is reduced to one number, `compacts_at`: the smallest context size at which the
//! agent compacts. The agents compare differently (`>=` for most, `>` for pi, a float ratio for
//! Gemini CLI and kimi-cli), and the reduction keeps each comparison exact, so "one token below
//! the threshold" means the same thing for every agent.

pub mod calibration;
pub mod report;

use crate::transcript::FormatId;

/// An agent's own trigger for one window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Native {
    /// The agent whose rule this is.
    pub agent: &'static str,
    /// The window the rule was applied to.
    pub window: u64,
    /// The smallest context size at which the agent compacts by itself.
    pub compacts_at: u64,
    /// The rule with its numbers filled in.
    pub rule: String,
    /// The file and function of the agent's code the rule is taken from.
    pub source: &'static str,
}

impl Native {
    /// True when a context of `tokens` makes the agent compact.
    pub fn due(&self, tokens: u64) -> bool {
        tokens >= self.compacts_at
    }

    /// Tokens the context can still grow before the agent compacts (0 when it would now).
    pub fn tokens_left(&self, tokens: u64) -> u64 {
        self.compacts_at.saturating_sub(tokens)
    }
}

/// Claude Code's summary buffer: the threshold sits this far below the effective window.
const CLAUDE_CODE_BUFFER: u64 = 13_000;
/// Claude Code caps the output reserve taken off the window at this many tokens.
const CLAUDE_CODE_OUTPUT_CAP: u64 = 20_000;
/// pi's default `compaction.reserveTokens`.
const PI_RESERVE: u64 = 16_384;
/// kimi-cli's default `compaction_trigger_ratio` and `reserved_context_size`.
const KIMI_RATIO: f64 = 0.85;
const KIMI_RESERVED: u64 = 50_000;
/// Gemini CLI's `DEFAULT_COMPRESSION_TOKEN_THRESHOLD`.
const GEMINI_RATIO: f64 = 0.5;

/// The most output tokens a Claude model may write, where it is below Claude Code's cap (the
/// reserve Claude Code takes off the window is the smaller of the two). Claude 4 models and
/// Claude 3.7 Sonnet allow more than the cap; older Claude 3 models less.
fn claude_max_output(model: Option<&str>) -> u64 {
    match model {
        Some(m) if m.starts_with("claude-3-5") => 8_192,
        Some(m) if m.starts_with("claude-3-7") => CLAUDE_CODE_OUTPUT_CAP,
        Some(m) if m.starts_with("claude-3-") => 4_096,
        _ => CLAUDE_CODE_OUTPUT_CAP,
    }
}

/// The smallest whole number of tokens `t` with `t >= window * ratio`, computed the way the
/// agents do it (a float product).
fn at_least(window: u64, ratio: f64) -> u64 {
    (window as f64 * ratio).ceil() as u64
}

/// The native trigger of the agent that writes `format`, for a `window` (and the `model` the
/// session names, where the rule depends on it); `None` for plain Anthropic message lists,
/// which no agent writes.
pub fn native(format: FormatId, window: u64, model: Option<&str>) -> Option<Native> {
    Some(match format {
        FormatId::ClaudeCode => {
            let reserve = claude_max_output(model).min(CLAUDE_CODE_OUTPUT_CAP);
            let effective = window.saturating_sub(reserve);
            Native {
                agent: "claude-code",
                window,
                compacts_at: effective.saturating_sub(CLAUDE_CODE_BUFFER),
                rule: format!(
                    "tokens >= effective window - {CLAUDE_CODE_BUFFER}, effective window = \
                     {window} - min(max output, {CLAUDE_CODE_OUTPUT_CAP}) = {effective}; \
                     CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only lower it"
                ),
                source: "Claude Code 2.1.332, bundled cli.js (minified): the auto-compact \
                         threshold function (window - min(maxOutputTokens, 20000) - 13000; \
                         constants 20000 and 13000), and the warning-level function that \
                         returns \"compact\" when tokens >= threshold",
            }
        }
        FormatId::Codex => Native {
            agent: "codex",
            window,
            compacts_at: window * 9 / 10,
            rule: format!(
                "total_usage_tokens >= auto_compact_token_limit = {window} * 9 / 10 (integer); \
                 model_auto_compact_token_limit in config.toml replaces it"
            ),
            source: "openai/codex codex-rs/protocol/src/openai_models.rs \
                     ModelInfo::auto_compact_token_limit; codex-rs/core/src/codex.rs run_turn \
                     (token_limit_reached = total_usage_tokens >= auto_compact_limit)",
        },
        FormatId::Pi => Native {
            agent: "pi",
            window,
            // pi compacts when tokens > window - reserve, so the first count that does is one
            // more.
            compacts_at: window.saturating_sub(PI_RESERVE) + 1,
            rule: format!(
                "contextTokens > contextWindow - reserveTokens = {window} - {PI_RESERVE}; \
                 compaction.reserveTokens in settings.json replaces {PI_RESERVE}"
            ),
            source: "badlogic/pi-mono packages/coding-agent/src/core/compaction/compaction.ts \
                     shouldCompact, DEFAULT_COMPACTION_SETTINGS.reserveTokens 16384 \
                     (pi-coding-agent 0.73.1)",
        },
        FormatId::Gemini => Native {
            agent: "gemini",
            window,
            compacts_at: at_least(window, GEMINI_RATIO),
            rule: format!(
                "lastPromptTokenCount >= {GEMINI_RATIO} * tokenLimit(model) = {GEMINI_RATIO} * \
                 {window}; model.compressionThreshold in settings.json replaces {GEMINI_RATIO}"
            ),
            source: "google-gemini/gemini-cli packages/core/src/services/\
                     chatCompressionService.ts ChatCompressionService.compress \
                     (DEFAULT_COMPRESSION_TOKEN_THRESHOLD 0.5), packages/core/src/core/\
                     tokenLimits.ts tokenLimit (gemini-cli 0.61.0)",
        },
        FormatId::Openai => {
            let by_ratio = at_least(window, KIMI_RATIO);
            let by_reserve = window.saturating_sub(KIMI_RESERVED);
            Native {
                agent: "kimi",
                window,
                compacts_at: by_ratio.min(by_reserve),
                rule: format!(
                    "token_count >= {window} * {KIMI_RATIO} ({by_ratio}) or token_count + \
                     {KIMI_RESERVED} >= {window} ({by_reserve}), whichever comes first; \
                     compaction_trigger_ratio and reserved_context_size in config.toml replace \
                     them"
                ),
                source: "MoonshotAI/kimi-cli src/kimi_cli/soul/compaction.py \
                         should_auto_compact; defaults in src/kimi_cli/config.py (kimi-cli \
                         1.49.0)",
            }
        }
        FormatId::Anthropic => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token below, at, and one above the threshold, by the agent's own comparison.
    fn edge(native: &Native, agent_due: impl Fn(u64) -> bool) {
        let at = native.compacts_at;
        for tokens in [at - 1, at, at + 1] {
            assert_eq!(
                native.due(tokens),
                agent_due(tokens),
                "{native:?} at {tokens}"
            );
        }
        assert!(!native.due(at - 1) && native.due(at));
        assert_eq!(native.tokens_left(at - 1), 1);
        assert_eq!(native.tokens_left(at + 1), 0);
    }

    #[test]
    fn claude_code_compacts_13k_below_the_effective_window() {
        let native = native(FormatId::ClaudeCode, 200_000, Some("claude-opus-4-5")).unwrap();
        assert_eq!(native.compacts_at, 167_000);
        edge(&native, |t| t >= 200_000 - 20_000 - 13_000);
        let old = native_of(FormatId::ClaudeCode, 200_000, "claude-3-5-sonnet-20241022");
        assert_eq!(old, 200_000 - 8_192 - 13_000);
    }

    fn native_of(format: FormatId, window: u64, model: &str) -> u64 {
        native(format, window, Some(model)).unwrap().compacts_at
    }

    #[test]
    fn codex_compacts_at_nine_tenths_rounded_down() {
        let native = native(FormatId::Codex, 272_001, None).unwrap();
        assert_eq!(native.compacts_at, 244_800);
        edge(&native, |t| t as i64 >= 272_001_i64 * 9 / 10);
    }

    #[test]
    fn pi_compacts_above_window_minus_reserve() {
        let native = native(FormatId::Pi, 200_000, None).unwrap();
        assert_eq!(native.compacts_at, 183_617);
        edge(&native, |t| t > 200_000 - 16_384);
    }

    #[test]
    fn gemini_compacts_at_half_the_limit() {
        let native = native(FormatId::Gemini, 1_048_577, None).unwrap();
        assert_eq!(native.compacts_at, 524_289);
        // Gemini CLI returns early when `tokens < threshold * limit`: due is the negation.
        edge(&native, |t| t as f64 >= 0.5 * 1_048_577.0);
    }

    #[test]
    fn kimi_compacts_at_the_ratio_or_the_reserve() {
        let by_ratio = native(FormatId::Openai, 262_144, None).unwrap();
        assert_eq!(by_ratio.compacts_at, 212_144); // the reserve comes first here
        let rule =
            |window: u64| move |t: u64| t as f64 >= window as f64 * 0.85 || t + 50_000 >= window;
        edge(&by_ratio, rule(262_144));
        let small = native(FormatId::Openai, 100_000, None).unwrap();
        assert_eq!(small.compacts_at, 50_000);
        edge(&small, rule(100_000));
        let large = native(FormatId::Openai, 1_000_000, None).unwrap();
        assert_eq!(large.compacts_at, 850_000);
        edge(&large, rule(1_000_000));
    }

    #[test]
    fn plain_message_lists_have_no_agent() {
        assert!(native(FormatId::Anthropic, 200_000, None).is_none());
    }
}
