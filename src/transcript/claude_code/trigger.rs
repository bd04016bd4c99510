//! When Claude Code compacts by itself, and the context size its `compact_boundary` records
//! before each compaction (`compactMetadata.preTokens`).

use serde_json::Value;

use super::ClaudeCode;
use crate::transcript::trigger::{Earlier, Native, Trigger};

/// Claude Code's summary buffer: the threshold sits this far below the effective window.
const BUFFER: u64 = 13_000;
/// Claude Code caps the output reserve taken off the window at this many tokens.
const OUTPUT_CAP: u64 = 20_000;

impl Trigger for ClaudeCode {
    fn native(&self, window: u64, model: Option<&str>) -> Option<Native> {
        let reserve = max_output(model).min(OUTPUT_CAP);
        let effective = window.saturating_sub(reserve);
        Some(Native {
            agent: "claude-code",
            window,
            compacts_at: effective.saturating_sub(BUFFER),
            rule: format!(
                "tokens >= effective window - {BUFFER}, effective window = {window} - min(max \
                 output, {OUTPUT_CAP}) = {effective}; CLAUDE_AUTOCOMPACT_PCT_OVERRIDE can only \
                 lower it"
            ),
            source: "Claude Code 2.1.332, bundled cli.js (minified): the auto-compact \
                     threshold function (window - min(maxOutputTokens, 20000) - 13000; \
                     constants 20000 and 13000), and the warning-level function that \
                     returns \"compact\" when tokens >= threshold",
        })
    }

    /// A `compact_boundary` line's `compactMetadata.preTokens`.
    fn recorded(&self, line: usize, text: &[u8]) -> Option<Earlier> {
        memchr::memmem::find(text, b"preTokens")?;
        let value: Value = serde_json::from_slice(text).ok()?;
        if value["subtype"] != "compact_boundary" {
            return None;
        }
        Some(Earlier {
            line,
            tokens: value["compactMetadata"]["preTokens"].as_u64()?,
            field: "compactMetadata.preTokens",
        })
    }
}

/// The most output tokens a Claude model may write, where it is below Claude Code's cap (the
/// reserve Claude Code takes off the window is the smaller of the two). Claude 4 models and
/// Claude 3.7 Sonnet allow more than the cap; older Claude 3 models less.
fn max_output(model: Option<&str>) -> u64 {
    match model {
        Some(m) if m.starts_with("claude-3-5") => 8_192,
        Some(m) if m.starts_with("claude-3-7") => OUTPUT_CAP,
        Some(m) if m.starts_with("claude-3-") => 4_096,
        _ => OUTPUT_CAP,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_13k_below_the_effective_window() {
        let native = ClaudeCode.native(200_000, Some("claude-opus-4-5")).unwrap();
        assert_eq!(native.compacts_at, 167_000);
        edge(&native, |t| t >= 200_000 - 20_000 - 13_000);
        let old = ClaudeCode
            .native(200_000, Some("claude-3-5-sonnet-20241022"))
            .unwrap();
        assert_eq!(old.compacts_at, 200_000 - 8_192 - 13_000);
    }

    #[test]
    fn reads_the_size_before_a_compaction() {
        let line = br#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":155250}}"#;
        let got = ClaudeCode.recorded(7, line).unwrap();
        assert_eq!((got.line, got.tokens), (7, 155_250));
        let text = br#"{"type":"user","message":{"content":"what is preTokens?"}}"#;
        assert_eq!(ClaudeCode.recorded(1, text), None);
    }
}
