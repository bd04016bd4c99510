//! Token estimators (pure).
//!
//! Every estimator works in integer *units* that add up across parts, messages and files, and
//! turns a sum of units into tokens once at the end. That is what kimi-cli does for `chars4`
//! (characters summed over the whole history, floored once) and it keeps every other estimator
//! exact under parallel summation.
//!
//! | estimator   | units                      | parts counted                                      |
//! |-------------|----------------------------|----------------------------------------------------|
//! | `chars4`    | code points, ÷4 floored    | text, tool results (kimi-cli parity)               |
//! | `chars3.5`  | code points, ÷3.5 floored  | text, tool results                                 |
//! | `kimi-code` | tokens                     | role, text, thinking, tool results, calls, media   |
//! | `fast`      | milli-tokens, rounded      | text, thinking, tool results, calls (name + args)  |
//! | `o200k`, `cl100k` | tokens (exact BPE)   | text, thinking, tool results, calls (name + args)  |

pub mod bpe;
pub mod fast;

use crate::transcript::{Message, Part, Role};
pub use fast::Family;

/// The estimator a command counts with: the one asked for on the command line, or the one
/// that fits the session, picked once the session's format and model are known (each agent's
/// [`default_tokenizer`](crate::transcript::format::Format::default_tokenizer)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimator {
    /// `--tokenizer` (or `--lang`, `--family`, `--preset kimi`) named it.
    Given(Tokenizer),
    /// None was named: the session's own.
    Session,
    /// `fast`, weighted for the family of the session's model.
    SessionFamily,
}

/// Tokens kimi-code charges for one image, audio or video part.
pub const KIMI_CODE_MEDIA_TOKENS: u64 = 2000;

/// A token estimator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    /// kimi-cli: characters of text parts ÷ 4, floored once over the sum.
    Chars4,
    /// The same over 3.5 (ACF's rule for Spanish).
    Chars35,
    /// kimi-code: ⌈ascii/4⌉ + non-ascii per string, the role, 2000 per media part, tool calls.
    KimiCode,
    /// The one-pass character-class estimate with a tokenizer family's weights.
    Fast(Family),
    /// Exact OpenAI o200k_base BPE.
    O200k,
    /// Exact OpenAI cl100k_base BPE.
    Cl100k,
}

impl Tokenizer {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Chars4 => "chars4",
            Tokenizer::Chars35 => "chars3.5",
            Tokenizer::KimiCode => "kimi-code",
            Tokenizer::Fast(Family::Openai) => "fast/openai",
            Tokenizer::Fast(Family::Claude) => "fast/claude",
            Tokenizer::Fast(Family::Claude47) => "fast/claude-4.7",
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }

    /// The estimator with this [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<Tokenizer> {
        const ALL: [Tokenizer; 8] = [
            Tokenizer::Chars4,
            Tokenizer::Chars35,
            Tokenizer::KimiCode,
            Tokenizer::Fast(Family::Openai),
            Tokenizer::Fast(Family::Claude),
            Tokenizer::Fast(Family::Claude47),
            Tokenizer::O200k,
            Tokenizer::Cl100k,
        ];
        ALL.into_iter().find(|t| t.name() == name)
    }

    /// Units of one message: its parts, plus the role where the estimator charges for it.
    pub fn message_units(self, message: &Message) -> u64 {
        let role = match self {
            Tokenizer::KimiCode => kimi_code_units(message.role.as_str()),
            _ => 0,
        };
        role + message
            .parts
            .iter()
            .map(|part| self.part_units(part))
            .sum::<u64>()
    }

    /// Units of one part (0 for the parts this estimator does not count).
    pub fn part_units(self, part: &Part) -> u64 {
        match (self, part) {
            (
                Tokenizer::Chars4 | Tokenizer::Chars35,
                Part::Text(t) | Part::ToolResult { text: t, .. },
            ) => t.code_points(),
            (Tokenizer::Chars4 | Tokenizer::Chars35, _) => 0,
            (Tokenizer::KimiCode, Part::Media(_)) => KIMI_CODE_MEDIA_TOKENS,
            (_, Part::Media(_) | Part::Other(_)) => 0,
            (
                Tokenizer::Fast(family),
                Part::Text(t) | Part::Thinking(t) | Part::ToolResult { text: t, .. },
            ) => fast::text_milli_tokens(t, family),
            (_, Part::Text(t) | Part::Thinking(t) | Part::ToolResult { text: t, .. }) => {
                self.text_units(t)
            }
            (
                Tokenizer::Fast(family),
                Part::ToolCall {
                    name, arguments, ..
                },
            ) => fast::milli_tokens(name, family) + fast::text_milli_tokens(arguments, family),
            (
                _,
                Part::ToolCall {
                    name, arguments, ..
                },
            ) => self.text_units(name) + self.text_units(arguments),
        }
    }

    /// Units of a bare text.
    pub fn text_units(self, text: &str) -> u64 {
        match self {
            Tokenizer::Chars4 | Tokenizer::Chars35 => code_points(text),
            Tokenizer::KimiCode => kimi_code_units(text),
            Tokenizer::Fast(family) => fast::milli_tokens(text, family),
            Tokenizer::O200k => bpe::count(bpe::Encoding::O200k, text),
            Tokenizer::Cl100k => bpe::count(bpe::Encoding::Cl100k, text),
        }
    }

    /// Tokens for a sum of units.
    pub fn tokens(self, units: u64) -> u64 {
        match self {
            Tokenizer::Chars4 => units / 4,
            // ÷3.5 as an integer ratio, so the floor is exact.
            Tokenizer::Chars35 => units.saturating_mul(2) / 7,
            Tokenizer::Fast(_) => units.saturating_add(500) / 1000,
            Tokenizer::KimiCode | Tokenizer::O200k | Tokenizer::Cl100k => units,
        }
    }

    /// Tokens of a bare text.
    pub fn text_tokens(self, text: &str) -> u64 {
        self.tokens(self.text_units(text))
    }

    /// Tokens of a list of messages, floored or rounded once over the sum.
    pub fn messages_tokens<'m, 'a: 'm>(
        self,
        messages: impl IntoIterator<Item = &'m Message<'a>>,
    ) -> u64 {
        self.tokens(messages.into_iter().map(|m| self.message_units(m)).sum())
    }
}

/// Unicode code points, as Python's `len` counts them (kimi-cli parity).
fn code_points(text: &str) -> u64 {
    text.chars().count() as u64
}

/// kimi-code's `estimateTokens`: ⌈ascii code points / 4⌉ + non-ascii code points.
fn kimi_code_units(text: &str) -> u64 {
    let ascii = text.bytes().filter(u8::is_ascii).count() as u64;
    let non_ascii = code_points(text) - ascii;
    ascii.div_ceil(4) + non_ascii
}

/// The role names the kimi-code estimator charges for, for tests and docs.
pub fn role_units(tokenizer: Tokenizer, role: Role) -> u64 {
    match tokenizer {
        Tokenizer::KimiCode => kimi_code_units(role.as_str()),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::MediaKind;

    fn text(role: Role, s: &str) -> Message<'static> {
        Message::new(role, vec![Part::Text(s.to_owned().into())])
    }

    #[test]
    fn chars4_floors_once_over_the_sum() {
        // V5: 300 chars over two messages → 75.
        let v5 = [
            text(Role::User, &"a".repeat(100)),
            text(Role::Assistant, &"b".repeat(200)),
        ];
        assert_eq!(Tokenizer::Chars4.messages_tokens(&v5), 75);
        // Floors once: 3 + 3 chars is 1 token, not 0 + 0.
        let pair = [text(Role::User, "abc"), text(Role::User, "def")];
        assert_eq!(Tokenizer::Chars4.messages_tokens(&pair), 1);
        // V7: nothing is 0.
        assert_eq!(Tokenizer::Chars4.messages_tokens(&[]), 0);
    }

    #[test]
    fn chars4_ignores_non_text_parts() {
        // V6: 40 chars of text and a long thinking part → 10.
        let v6 = Message::new(
            Role::User,
            vec![
                Part::Text("a".repeat(40).into()),
                Part::Thinking("internal reasoning ".repeat(100).into()),
                Part::Media(MediaKind::Image),
                Part::ToolCall {
                    id: Some("call_1".into()),
                    name: "Shell".into(),
                    arguments: "{}".into(),
                },
            ],
        );
        assert_eq!(Tokenizer::Chars4.messages_tokens([&v6]), 10);
    }

    #[test]
    fn chars4_counts_code_points_not_bytes() {
        assert_eq!(Tokenizer::Chars4.text_units("üüüü"), 4);
        assert_eq!(Tokenizer::Chars4.text_tokens("üüüü"), 1);
    }

    #[test]
    fn chars35_is_an_exact_ratio() {
        assert_eq!(Tokenizer::Chars35.tokens(7), 2);
        assert_eq!(Tokenizer::Chars35.tokens(6), 1);
        assert_eq!(Tokenizer::Chars35.tokens(35), 10);
    }

    #[test]
    fn kimi_code_charges_role_media_and_calls() {
        assert_eq!(role_units(Tokenizer::KimiCode, Role::User), 1);
        assert_eq!(role_units(Tokenizer::KimiCode, Role::Assistant), 3);
        let message = Message::new(
            Role::Assistant,
            vec![
                Part::Text("héllo".into()), // ascii 4 → 1, non-ascii 1 → 1
                Part::Media(MediaKind::Video),
                Part::ToolCall {
                    id: None,
                    name: "Shell".into(),          // 5 → 2
                    arguments: "{\"a\":1}".into(), // 7 → 2
                },
            ],
        );
        assert_eq!(
            Tokenizer::KimiCode.message_units(&message),
            3 + 2 + 2000 + 2 + 2
        );
    }
}
