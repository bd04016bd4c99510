//! When pi compacts by itself, and the context size its `compaction` entry records before each
//! compaction (`tokensBefore`).

use serde_json::Value;

use super::Pi;
use crate::transcript::trigger::{Earlier, Native, Trigger};

/// pi's default `compaction.reserveTokens`.
const RESERVE: u64 = 16_384;

impl Trigger for Pi {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        Some(Native {
            agent: "pi",
            window,
            // pi compacts when tokens > window - reserve, so the first count that does is one
            // more.
            compacts_at: window.saturating_sub(RESERVE) + 1,
            rule: format!(
                "contextTokens > contextWindow - reserveTokens = {window} - {RESERVE}; \
                 compaction.reserveTokens in settings.json replaces {RESERVE}"
            ),
            source: "badlogic/pi-mono packages/coding-agent/src/core/compaction/compaction.ts \
                     shouldCompact, DEFAULT_COMPACTION_SETTINGS.reserveTokens 16384 \
                     (pi-coding-agent 0.73.1)",
        })
    }

    /// A `compaction` entry's `tokensBefore`.
    fn recorded(&self, line: usize, text: &[u8]) -> Option<Earlier> {
        memchr::memmem::find(text, b"tokensBefore")?;
        let value: Value = serde_json::from_slice(text).ok()?;
        if value["type"] != "compaction" {
            return None;
        }
        Some(Earlier {
            line,
            tokens: value["tokensBefore"].as_u64()?,
            field: "tokensBefore",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_above_window_minus_reserve() {
        let native = Pi.native(200_000, None).unwrap();
        assert_eq!(native.compacts_at, 183_617);
        edge(&native, |t| t > 200_000 - 16_384);
    }

    #[test]
    fn reads_the_size_before_a_compaction() {
        let line =
            br#"{"type":"compaction","summary":"s","firstKeptEntryId":"a","tokensBefore":175004}"#;
        assert_eq!(Pi.recorded(3, line).unwrap().tokens, 175_004);
        assert_eq!(Pi.recorded(1, b"{\"tokensBefore\":"), None);
    }
}
