//! Context windows of the models sessions record, for `--max-context auto`: the providers'
//! published windows here, and those an agent's own code gives its models in its folder
//! ([`crate::transcript::trigger::Trigger::windows`]), each row with its source. The config
//! file's `[models]` table adds to them and wins over them.

use crate::transcript::registry;
use crate::transcript::trigger::Window;

/// The windows providers publish. A name is matched by its longest matching prefix, among
/// these and the agents' own.
pub const WINDOWS: [Window; 13] = [
    Window {
        prefix: "claude-opus-4",
        tokens: 200_000,
        source: "Anthropic model overview: Claude Opus 4.x, 200K context",
    },
    Window {
        prefix: "claude-sonnet-4",
        tokens: 200_000,
        source: "Anthropic model overview: Claude Sonnet 4.x, 200K context (1M in beta only)",
    },
    Window {
        prefix: "claude-haiku-4",
        tokens: 200_000,
        source: "Anthropic model overview: Claude Haiku 4.x, 200K context",
    },
    Window {
        prefix: "claude-3",
        tokens: 200_000,
        source: "Anthropic model overview: Claude 3 and 3.5 models, 200K context",
    },
    Window {
        prefix: "gpt-5",
        tokens: 400_000,
        source: "OpenAI model docs: GPT-5 family (incl. gpt-5-codex), 400K context",
    },
    Window {
        prefix: "gpt-4.1",
        tokens: 1_047_576,
        source: "OpenAI model docs: GPT-4.1, 1,047,576 context",
    },
    Window {
        prefix: "gpt-4o",
        tokens: 128_000,
        source: "OpenAI model docs: GPT-4o, 128K context",
    },
    Window {
        prefix: "o3",
        tokens: 200_000,
        source: "OpenAI model docs: o3, 200K context",
    },
    Window {
        prefix: "o4-mini",
        tokens: 200_000,
        source: "OpenAI model docs: o4-mini, 200K context",
    },
    Window {
        prefix: "codex-mini",
        tokens: 200_000,
        source: "OpenAI model docs: codex-mini-latest, 200K context",
    },
    Window {
        prefix: "kimi-k2",
        tokens: 262_144,
        source: "Moonshot platform docs: kimi-k2 (0905, turbo, thinking), 256K context",
    },
    Window {
        prefix: "deepseek-chat",
        tokens: 128_000,
        source: "DeepSeek API docs: deepseek-chat, 128K context",
    },
    Window {
        prefix: "qwen3-coder",
        tokens: 262_144,
        source: "Qwen docs: Qwen3-Coder, 256K native context",
    },
];

/// The window of `model`: an override of the config file first (exact name), then the
/// longest prefix among [`WINDOWS`] and the agents' own windows.
pub fn window(model: &str, overrides: &[(String, u64)]) -> Option<u64> {
    if let Some((_, tokens)) = overrides.iter().find(|(name, _)| name == model) {
        return Some(*tokens);
    }
    let agents = registry::agents().flat_map(|agent| agent.windows());
    WINDOWS
        .iter()
        .chain(agents)
        .filter(|w| model.starts_with(w.prefix))
        .max_by_key(|w| w.prefix.len())
        .map(|w| w.tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_and_overrides() {
        assert_eq!(window("claude-opus-4-5-20251101", &[]), Some(200_000));
        assert_eq!(window("gpt-5.1-codex", &[]), Some(400_000));
        assert_eq!(window("gemini-3-flash-preview", &[]), Some(1_048_576));
        assert_eq!(window("kimi-for-coding", &[]), Some(262_144));
        assert_eq!(window("my-local-model", &[]), None);
        let overrides = [("my-local-model".to_owned(), 32_768)];
        assert_eq!(window("my-local-model", &overrides), Some(32_768));
    }
}
