//! Trigger and budget presets: each agent's (and each guide's) own numbers, by name, with
//! where they come from. Flags and the config file override them.

use crate::tokens::Tokenizer;

/// Which records a preset keeps when it compacts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
    /// kimi-cli: the last `preserve` user/assistant messages and what follows them.
    Tail {
        /// How many messages the tail starts with.
        preserve: i64,
    },
    /// ACF: the first request within `head_tokens`, the latest output within `tail_tokens`.
    Budgets {
        /// The head's budget.
        head_tokens: u64,
        /// The tail's budget.
        tail_tokens: u64,
    },
    /// kimi-code and Codex: everything is summarised; real user messages within
    /// `keep_user_tokens` are kept beside the summary, the oldest `user_head_tokens` of them
    /// and the newest rest.
    User {
        /// The budget of all kept user messages.
        keep_user_tokens: u64,
        /// The part of it given to the oldest ones.
        user_head_tokens: u64,
    },
    /// Gemini CLI: the newest `percent` of the context is kept, the rest summarised.
    Share {
        /// The kept share, in percent of the live context.
        percent: u64,
    },
}

/// A named set of trigger and budget numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// Its name on the command line and in the config file.
    pub name: &'static str,
    /// Compaction is due when the context reaches this share of the window.
    pub trigger_ratio: f64,
    /// ... or leaves fewer than this many tokens free.
    pub reserved: u64,
    /// The window, when the preset fixes one (ACF's own context is small and compressed).
    pub max_context: Option<u64>,
    /// What a compaction keeps.
    pub keep: Keep,
    /// The estimator the preset's agent counts with, when it has a rule of its own: named,
    /// the preset brings it, so that its numbers are the agent's (kimi-cli's characters ÷ 4,
    /// kimi-code's estimator). The others count with the session's own estimator.
    pub tokenizer: Option<Tokenizer>,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// Every preset.
pub const PRESETS: [Preset; 7] = [
    Preset {
        name: "kimi",
        trigger_ratio: 0.85,
        reserved: 50_000,
        max_context: None,
        keep: Keep::Tail { preserve: 2 },
        tokenizer: Some(Tokenizer::Chars4),
        source: "kimi-cli: compaction_trigger_ratio 0.85 and reserved_context_size 50000 \
                 (config.py, should_auto_compact), max_preserved_messages 2 (SimpleCompaction)",
    },
    Preset {
        name: "kimi-code",
        trigger_ratio: 0.85,
        reserved: 50_000,
        max_context: None,
        keep: Keep::User {
            keep_user_tokens: 20_000,
            user_head_tokens: 2_000,
        },
        tokenizer: Some(Tokenizer::KimiCode),
        source: "kimi-code: kimi-cli's trigger; user messages kept within 20000 tokens, 2000 of \
                 them for the oldest (PR #1313)",
    },
    Preset {
        name: "acf",
        trigger_ratio: 0.75,
        reserved: 2_000,
        max_context: Some(8_000),
        keep: Keep::Budgets {
            head_tokens: 500,
            tail_tokens: 1_000,
        },
        tokenizer: None,
        source: "ACF notes: max_context_size 8000, trigger_ratio 0.75, reserved_context_size \
                 2000; head 500 and tail 1000 tokens kept verbatim",
    },
    Preset {
        name: "checkpoint",
        trigger_ratio: 0.70,
        reserved: 0,
        max_context: None,
        keep: Keep::Tail { preserve: 2 },
        tokenizer: None,
        source: "checkpoint guidance: checkpoint at 70% of the window",
    },
    Preset {
        name: "claude-code",
        trigger_ratio: 0.775,
        reserved: 0,
        max_context: None,
        keep: Keep::Tail { preserve: 2 },
        tokenizer: None,
        source: "Claude Code: auto-compaction seen at 155k-168k tokens of a 200k window \
                 (compactMetadata.preTokens 155250, 155829, 155203, 167766 in real sessions)",
    },
    Preset {
        name: "codex",
        trigger_ratio: 0.9,
        reserved: 0,
        max_context: None,
        keep: Keep::User {
            keep_user_tokens: 20_000,
            user_head_tokens: 0,
        },
        tokenizer: None,
        source: "Codex: model_auto_compact_token_limit 90% of the window (context_window * 9 / \
                 10); the newest user messages within COMPACT_USER_MESSAGE_MAX_TOKENS 20000 kept \
                 (compact.rs build_compacted_history)",
    },
    Preset {
        name: "gemini",
        trigger_ratio: 0.5,
        reserved: 0,
        max_context: None,
        keep: Keep::Share { percent: 30 },
        tokenizer: None,
        source: "Gemini CLI: DEFAULT_COMPRESSION_TOKEN_THRESHOLD 0.5; the newest 30% kept \
                 (COMPRESSION_PRESERVE_THRESHOLD 0.3, chatCompressionService.ts)",
    },
];

/// The preset of this name.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// The names of every preset, for messages.
pub fn names() -> String {
    PRESETS.map(|p| p.name).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_sane_numbers_and_a_source() {
        for preset in PRESETS {
            assert!(
                preset.trigger_ratio > 0.0 && preset.trigger_ratio < 1.0,
                "{}",
                preset.name
            );
            assert!(!preset.source.is_empty());
            assert_eq!(super::preset(preset.name), Some(&preset));
        }
        assert_eq!(preset("kimi").unwrap().reserved, 50_000);
        assert!(preset("nope").is_none());
    }
}
