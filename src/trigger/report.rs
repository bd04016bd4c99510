//! What `estimate --explain` reports for one session (pure): the agent's own trigger, how far the
//! context is from it, the trigger condense's `--check` uses, why the two differ, and the
//! agent's earlier compactions as calibration. It is one JSON object, `explain`, for hooks and
//! status lines.

use serde::Serialize;

use crate::transcript::trigger::{Earlier, Native};

/// The `explain` object of a file's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explain {
    /// The agent whose trigger this is.
    pub agent: &'static str,
    /// The model the session names, if it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The window both triggers were applied to.
    pub window: u64,
    /// The context size now (the `context` figure).
    pub tokens: u64,
    /// The smallest context size at which the agent compacts by itself.
    pub compacts_at: u64,
    /// How much the context can grow before it does.
    pub tokens_left: u64,
    /// True when the agent would compact at the current size.
    pub due: bool,
    /// The rule with its numbers.
    pub rule: String,
    /// Where the rule is taken from.
    pub source: &'static str,
    /// The trigger condense's `--check` uses.
    pub check: Check,
    /// Why the two differ.
    pub why: String,
    /// The agent's earlier compactions in this file.
    pub earlier: Vec<Calibration>,
}

/// The trigger of `estimate --check`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The smallest context size at which `--check` answers "due".
    pub compacts_at: u64,
    /// Its ratio.
    pub trigger_ratio: f64,
    /// Its reserve.
    pub reserved: u64,
    /// The preset its numbers come from.
    pub preset: &'static str,
}

/// One earlier compaction, with its share of the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// The marker's line.
    pub line: usize,
    /// The context size before it.
    pub tokens: u64,
    /// Where that figure comes from.
    pub field: &'static str,
    /// Its share of the window, in percent (one decimal).
    pub percent_of_window: f64,
    /// Its distance from the agent's current rule: positive when above `compacts_at`.
    pub from_rule: i64,
}

/// The smallest context size at which condense's own rule (kimi-cli's, as `--check` applies
/// it: the ratio of the window or the reserve, whichever comes first) says "due".
pub fn check_compacts_at(window: u64, ratio: f64, reserved: u64) -> u64 {
    let by_ratio = (window as f64 * ratio).ceil() as u64;
    by_ratio.min(window.saturating_sub(reserved))
}

fn percent(tokens: u64, window: u64) -> f64 {
    (tokens as f64 * 1000.0 / window.max(1) as f64).round() / 10.0
}

impl Explain {
    /// The report of a context of `tokens` under the agent's `native` rule and `check`.
    pub fn new(
        native: Native,
        model: Option<String>,
        tokens: u64,
        check: Check,
        earlier: &[Earlier],
    ) -> Self {
        let gap = native.compacts_at as i64 - check.compacts_at as i64;
        let why = match gap {
            0 => "--check answers \"due\" exactly where the agent compacts".to_owned(),
            gap if gap > 0 => format!(
                "--check answers \"due\" {gap} tokens before the agent compacts by itself \
                 (preset {}: ratio {} or {} tokens free), which leaves room to compact with \
                 your own model first",
                check.preset, check.trigger_ratio, check.reserved
            ),
            gap => format!(
                "the agent compacts by itself {} tokens before --check answers \"due\" (preset \
                 {}: ratio {} or {} tokens free): lower --trigger-ratio, raise --reserved, or \
                 take --preset {} to act first",
                -gap, check.preset, check.trigger_ratio, check.reserved, native.agent
            ),
        };
        Explain {
            agent: native.agent,
            model,
            window: native.window,
            tokens,
            compacts_at: native.compacts_at,
            tokens_left: native.tokens_left(tokens),
            due: native.due(tokens),
            rule: native.rule.clone(),
            source: native.source,
            why,
            earlier: earlier
                .iter()
                .map(|e| Calibration {
                    line: e.line,
                    tokens: e.tokens,
                    field: e.field,
                    percent_of_window: percent(e.tokens, native.window),
                    from_rule: e.tokens as i64 - native.compacts_at as i64,
                })
                .collect(),
            check,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::compaction_due;
    use crate::transcript::FormatId;

    #[test]
    fn the_check_threshold_is_where_compaction_due_turns() {
        for (window, ratio, reserved) in [
            (200_000, 0.85, 50_000),
            (1_000_000, 0.85, 50_000),
            (8_000, 0.75, 2_000),
            (200_001, 0.775, 0),
            (262_144, 0.9, 0),
        ] {
            let at = check_compacts_at(window, ratio, reserved);
            assert!(!compaction_due(at - 1, window, ratio, reserved), "{window}");
            assert!(compaction_due(at, window, ratio, reserved), "{window}");
        }
    }

    #[test]
    fn says_which_trigger_comes_first() {
        let check = |compacts_at| Check {
            compacts_at,
            trigger_ratio: 0.85,
            reserved: 50_000,
            preset: "kimi",
        };
        let native = FormatId::ClaudeCode.format().native(200_000, None).unwrap();
        let earlier = [Earlier {
            line: 4,
            tokens: 155_250,
            field: "compactMetadata.preTokens",
        }];
        let report = Explain::new(native.clone(), None, 160_000, check(150_000), &earlier);
        assert_eq!(report.tokens_left, 7_000);
        assert!(!report.due);
        assert!(report
            .why
            .starts_with("--check answers \"due\" 17000 tokens before"));
        assert_eq!(report.earlier[0].percent_of_window, 77.6);
        assert_eq!(report.earlier[0].from_rule, 155_250 - 167_000);
        let late = Explain::new(native.clone(), None, 170_000, check(170_000), &[]);
        assert!(late.due && late.why.contains("3000 tokens before --check"));
        let same = Explain::new(native, None, 0, check(167_000), &[]);
        assert!(same.why.contains("exactly"));
    }
}
