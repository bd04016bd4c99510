//! The request as the APIs take it (pure): the two chat messages (the system prompt, then the
//! request's text parts as one user message), a chat-completions body and an Anthropic
//! Messages body, each with no tools and the config file's settings overrides beside `model`.

use serde::Serialize;

use super::SYSTEM_PROMPT;

/// Settings merged into a request body (temperature, max_tokens …).
pub type Overrides = serde_json::Map<String, serde_json::Value>;

/// A chat message as OpenAI-style APIs take it (the user message keeps kimi-cli's list of text
/// parts).
#[derive(Debug, Serialize)]
pub struct ChatMessage<'a> {
    role: &'static str,
    content: Content<'a>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(Vec<TextPart<'a>>),
}

#[derive(Debug, Serialize)]
struct TextPart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

fn text_parts<'a>(parts: impl Iterator<Item = &'a String>) -> Vec<TextPart<'a>> {
    parts.map(|text| TextPart { kind: "text", text }).collect()
}

/// The system message, then the user message of `parts`.
pub fn chat_messages(parts: &[String]) -> [ChatMessage<'_>; 2] {
    [
        ChatMessage {
            role: "system",
            content: Content::Text(SYSTEM_PROMPT),
        },
        ChatMessage {
            role: "user",
            content: Content::Parts(text_parts(parts.iter())),
        },
    ]
}

/// A chat-completions request body with no tools, and the settings overrides beside `model`
/// and `messages`.
#[derive(Debug, Serialize)]
pub struct OpenaiBody<'a> {
    model: &'a str,
    messages: [ChatMessage<'a>; 2],
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    overrides: Option<&'a Overrides>,
}

/// The chat-completions body of `parts` for `model`.
pub fn openai_body<'a>(
    model: &'a str,
    parts: &'a [String],
    overrides: Option<&'a Overrides>,
) -> OpenaiBody<'a> {
    OpenaiBody {
        model,
        messages: chat_messages(parts),
        overrides,
    }
}

/// An Anthropic Messages request body with no tools: the system prompt at the top level, the
/// request as one user message of text blocks.
#[derive(Debug, Serialize)]
pub struct AnthropicBody<'a> {
    model: &'a str,
    max_tokens: u64,
    system: &'a str,
    messages: [AnthropicMessage<'a>; 1],
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    overrides: Option<&'a Overrides>,
}

#[derive(Debug, Serialize)]
struct AnthropicMessage<'a> {
    role: &'static str,
    content: Vec<TextPart<'a>>,
}

/// The Messages body of `parts` for `model`, whose reply may have `max_tokens`.
pub fn anthropic_body<'a>(
    model: &'a str,
    max_tokens: u64,
    parts: &'a [String],
    overrides: Option<&'a Overrides>,
) -> AnthropicBody<'a> {
    AnthropicBody {
        model,
        max_tokens,
        system: SYSTEM_PROMPT,
        messages: [AnthropicMessage {
            role: "user",
            // The Messages API refuses empty text blocks.
            content: text_parts(parts.iter().filter(|text| !text.is_empty())),
        }],
        overrides,
    }
}
