//! When kimi-cli compacts by itself, and the window of its default model. kimi-cli rotates
//! `context.jsonl` when it compacts and sends `tokens_before` only to its telemetry, so its
//! file records no earlier compaction.

use super::Kimi;
use crate::transcript::trigger::{at_least, Native, Trigger, Window};

/// kimi-cli's default `compaction_trigger_ratio` and `reserved_context_size`.
const RATIO: f64 = 0.85;
const RESERVED: u64 = 50_000;

impl Trigger for Kimi {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        let by_ratio = at_least(window, RATIO);
        let by_reserve = window.saturating_sub(RESERVED);
        Some(Native {
            agent: "kimi",
            window,
            compacts_at: by_ratio.min(by_reserve),
            rule: format!(
                "token_count >= {window} * {RATIO} ({by_ratio}) or token_count + {RESERVED} >= \
                 {window} ({by_reserve}), whichever comes first; compaction_trigger_ratio and \
                 reserved_context_size in config.toml replace them"
            ),
            source: "MoonshotAI/kimi-cli src/kimi_cli/soul/compaction.py \
                     should_auto_compact; defaults in src/kimi_cli/config.py (kimi-cli \
                     1.49.0)",
        })
    }

    fn windows(&self) -> &'static [Window] {
        &[Window {
            prefix: "kimi-for-coding",
            tokens: 262_144,
            source: "kimi-cli default model config: kimi-for-coding, 262144 max_context_size",
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_at_the_ratio_or_the_reserve() {
        let by_ratio = Kimi.native(262_144, None).unwrap();
        assert_eq!(by_ratio.compacts_at, 212_144); // the reserve comes first here
        let rule =
            |window: u64| move |t: u64| t as f64 >= window as f64 * 0.85 || t + 50_000 >= window;
        edge(&by_ratio, rule(262_144));
        let small = Kimi.native(100_000, None).unwrap();
        assert_eq!(small.compacts_at, 50_000);
        edge(&small, rule(100_000));
        let large = Kimi.native(1_000_000, None).unwrap();
        assert_eq!(large.compacts_at, 850_000);
        edge(&large, rule(1_000_000));
    }
}
