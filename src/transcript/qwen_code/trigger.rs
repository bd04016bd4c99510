//! When Qwen Code compresses by itself (`packages/core/src/services/chatCompressionService.ts`,
//! `ChatCompressionService.compress` and `computeThresholds`, called before each send by
//! `LlmChat.sendMessageStream` → `tryCompress`): when the estimated prompt reaches
//! `auto = min(pct × window, window − 20,000 − 13,000)` (`SUMMARY_RESERVE`,
//! `AUTOCOMPACT_BUFFER`; the proportional figure alone when that ceiling is not positive), `pct`
//! the setting `context.autoCompactThreshold` (default 0.85), `window` the generator's
//! `contextWindowSize` (default `DEFAULT_TOKEN_LIMIT`, 200,000). Its `chat_compression`
//! records the count before it, `systemPayload.info.originalTokenCount`.

use super::QwenCode;
use crate::transcript::trigger::{at_least, Earlier, Native, Trigger};

/// `DEFAULT_PCT`.
const PCT: f64 = 0.85;

/// `SUMMARY_RESERVE` (`COMPACT_MAX_OUTPUT_TOKENS`) plus `AUTOCOMPACT_BUFFER`.
const RESERVED: u64 = 20_000 + 13_000;

impl Trigger for QwenCode {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        let proportional = at_least(window, PCT);
        let compacts_at = match window.checked_sub(RESERVED).filter(|&c| c > 0) {
            Some(ceiling) => proportional.min(ceiling),
            None => proportional,
        };
        Some(Native {
            agent: "Qwen Code",
            window,
            compacts_at,
            rule: format!(
                "estimated prompt >= min({PCT} * window {window}, window - 20000 - 13000); \
                 context.autoCompactThreshold in ~/.qwen/settings.json replaces {PCT}"
            ),
            source: "QwenLM/qwen-code packages/core/src/services/chatCompressionService.ts \
                     computeThresholds, ChatCompressionService.compress (qwen-code 0.24.4)",
        })
    }

    /// A `chat_compression`'s `systemPayload.info.originalTokenCount`.
    fn recorded(&self, line: usize, text: &[u8]) -> Option<Earlier> {
        memchr::memmem::find(text, b"\"originalTokenCount\"")?;
        let value: serde_json::Value = serde_json::from_slice(text).ok()?;
        if value["subtype"] != super::read::COMPRESSION {
            return None;
        }
        let tokens = value
            .pointer("/systemPayload/info/originalTokenCount")?
            .as_u64()?;
        Some(Earlier {
            line,
            tokens,
            field: "systemPayload.info.originalTokenCount",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compresses_at_the_smaller_of_the_share_and_the_ceiling() {
        let native = QwenCode.native(200_000, None).unwrap();
        assert_eq!(native.compacts_at, 167_000);
        edge(&native, |t| {
            t as f64 >= (0.85 * 200_000.0f64).min(167_000.0)
        });
        let large = QwenCode.native(1_000_000, None).unwrap();
        assert_eq!(large.compacts_at, 850_000);
        let small = QwenCode.native(30_000, None).unwrap();
        assert_eq!(small.compacts_at, 25_500);
    }

    #[test]
    fn a_compression_records_the_count_before_it() {
        let line = br#"{"uuid":"c","type":"system","subtype":"chat_compression","systemPayload":{"info":{"originalTokenCount":14751,"newTokenCount":11056}}}"#;
        let earlier = QwenCode.recorded(3, line).unwrap();
        assert_eq!((earlier.line, earlier.tokens), (3, 14_751));
        assert!(QwenCode
            .recorded(3, br#"{"uuid":"u","type":"user"}"#)
            .is_none());
    }
}
