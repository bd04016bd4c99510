//! OpenAI-style chat messages, one per line; this includes kimi-cli's `context.jsonl`.
//!
//! A line is `{"role": …, "content": …}` where content is a string, `null` or a list of typed
//! parts, with optional `tool_calls` (arguments as a JSON string) and `tool_call_id`. kimi-cli
//! adds pseudo-roles starting with `_`: `_system_prompt`, `_checkpoint` and `_usage` (the
//! provider's context size after a step). They are bookkeeping; `_usage` feeds `--context`.
//!
//! Parity note: kimi-cli keeps a tool message's output as ordinary text parts, so tool-role
//! content is read as [`Part::Text`], exactly as kimi-cli's estimator and compaction see it.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::blocks::{borrowed_str, LenientU64, StrOrSeq};
use super::{Entry, Format, MediaKind, Message, Part, Record, Role, Usage};

/// The OpenAI chat format.
pub struct Openai;

#[derive(Deserialize)]
struct ChatLine<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: StrOrSeq<'a, ChatPart<'a>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(borrow, default)]
    function_call: Option<FunctionCall<'a>>,
    /// Thinking text as DeepSeek- and Kimi-compatible APIs return it.
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    reasoning_content: Option<Cow<'a, str>>,
    /// The context size on a kimi-cli `_usage` record.
    #[serde(default)]
    token_count: LenientU64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ChatPart<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    text: Option<Cow<'a, str>>,
    /// kimi-cli's thinking part: `{"type":"think","think":…}`.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    think: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    refusal: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow)]
    function: Option<FunctionCall<'a>>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

impl Format for Openai {
    fn detect(&self, head: &[Value]) -> bool {
        head.iter().any(|line| {
            line.get("type").is_none()
                && line
                    .get("role")
                    .and_then(Value::as_str)
                    .is_some_and(|role| role.starts_with('_') || Role::from_chat(role).is_some())
        })
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let chat: ChatLine<'a> = serde_json::from_str(text)?;
        let Some(role_name) = chat.role else {
            bail!("message has no \"role\"");
        };
        if role_name.starts_with('_') {
            let usage = (role_name == "_usage")
                .then_some(chat.token_count.0)
                .flatten()
                .map(|context_tokens| Usage {
                    context_tokens,
                    response_key: None,
                });
            let mut record = Record::new(line, text.as_bytes(), Entry::Bookkeeping(role_name));
            record.usage = usage;
            return Ok(record);
        }
        let Some(role) = Role::from_chat(&role_name) else {
            bail!("unknown role (expected system, developer, user, assistant, tool, or a kimi-cli record such as _usage)");
        };

        let mut parts = Vec::new();
        if let Some(reasoning) = chat.reasoning_content {
            parts.push(Part::Thinking(reasoning));
        }
        match chat.content {
            StrOrSeq::Str(text) => parts.push(Part::Text(text)),
            StrOrSeq::Seq(items) => parts.extend(items.into_iter().map(chat_part)),
        }
        let calls = chat.tool_calls.unwrap_or_default();
        let functions = calls
            .into_iter()
            .filter_map(|call| call.function)
            .chain(chat.function_call);
        for function in functions {
            parts.push(Part::ToolCall {
                name: function.name,
                arguments: arguments_text(function.arguments)?,
            });
        }
        Ok(Record::new(
            line,
            text.as_bytes(),
            Entry::Message(Message::new(role, parts)),
        ))
    }
}

fn chat_part(part: ChatPart<'_>) -> Part<'_> {
    let kind = part.kind.unwrap_or(Cow::Borrowed("text"));
    match kind.as_ref() {
        "text" | "input_text" | "output_text" => Part::Text(part.text.unwrap_or_default()),
        "think" | "thinking" => Part::Thinking(part.think.or(part.text).unwrap_or_default()),
        "refusal" => Part::Text(part.refusal.unwrap_or_default()),
        "image_url" | "input_image" | "image" => Part::Media(MediaKind::Image),
        "audio_url" | "input_audio" | "audio" => Part::Media(MediaKind::Audio),
        "video_url" | "video" => Part::Media(MediaKind::Video),
        "file" | "input_file" => Part::Media(MediaKind::Document),
        _ => Part::Other(kind),
    }
}

/// Tool-call arguments are a JSON string holding JSON; some writers store the object itself.
/// Either way the result is the JSON text of the arguments.
fn arguments_text<'a>(raw: Option<&'a RawValue>) -> Result<Cow<'a, str>> {
    match raw {
        None => Ok(Cow::Borrowed("")),
        Some(raw) if raw.get().starts_with('"') => Ok(serde_json::from_str(raw.get())?),
        Some(raw) => Ok(Cow::Borrowed(raw.get())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Record<'_> {
        Openai.read(1, text).unwrap()
    }

    #[test]
    fn reads_kimi_bookkeeping_and_usage() {
        let usage = read(r#"{"role": "_usage", "token_count": 170}"#);
        assert_eq!(usage.entry, Entry::Bookkeeping("_usage".into()));
        assert_eq!(usage.usage.map(|u| u.context_tokens), Some(170));
        let checkpoint = read(r#"{"role": "_checkpoint", "id": 0}"#);
        assert!(checkpoint.message().is_none() && checkpoint.usage.is_none());
    }

    #[test]
    fn reads_parts_and_tool_calls() {
        let record = read(
            r#"{"role":"assistant","content":[{"type":"think","think":"hmm","encrypted":null},{"type":"text","text":"Let me look."}],"tool_calls":[{"type":"function","id":"call_1","function":{"name":"Shell","arguments":"{\"command\": \"ls\"}"}}]}"#,
        );
        let message = record.message().unwrap();
        assert_eq!(message.role, Role::Assistant);
        assert_eq!(
            message.parts,
            vec![
                Part::Thinking("hmm".into()),
                Part::Text("Let me look.".into()),
                Part::ToolCall {
                    name: "Shell".into(),
                    arguments: r#"{"command": "ls"}"#.into()
                },
            ]
        );
    }

    #[test]
    fn media_and_null_content() {
        let record = read(
            r#"{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAA","id":null}}]}"#,
        );
        let parts = &record.message().unwrap().parts;
        assert_eq!(parts[1], Part::Media(MediaKind::Image));
        let empty = read(r#"{"role":"assistant","content":null}"#);
        assert!(empty.message().unwrap().parts.is_empty());
    }

    #[test]
    fn rejects_missing_and_unknown_roles() {
        assert!(Openai.read(1, r#"{"content":"x"}"#).is_err());
        assert!(Openai
            .read(1, r#"{"role":"critic","content":"x"}"#)
            .is_err());
    }
}
