//! When Codex compacts by itself. Its `compacted` line records no context size, so the size
//! before an earlier compaction is the last usage figure recorded before its marker.

use super::Codex;
use crate::transcript::trigger::{Native, Trigger};

impl Trigger for Codex {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        Some(Native {
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
        })
    }

    fn size_before_marker(&self) -> Option<&'static str> {
        Some("last token_count before the marker")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_at_nine_tenths_rounded_down() {
        let native = Codex.native(272_001, None).unwrap();
        assert_eq!(native.compacts_at, 244_800);
        edge(&native, |t| t as i64 >= 272_001_i64 * 9 / 10);
    }
}
