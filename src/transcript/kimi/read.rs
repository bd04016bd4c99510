//! Reading kimi-cli's `context.jsonl` and OpenAI-style chat messages, one per line.
//!
//! A line is `{"role": …, "content": …}` where content is a string, `null` or a list of typed
//! parts, with optional `tool_calls` (each with its `id`, arguments as a JSON string) and, on a
//! tool message, `tool_call_id`: the call it answers, kept as [`Message::call_id`]. kimi-cli
//! adds pseudo-roles starting with `_`: `_system_prompt`, `_checkpoint` and `_usage` (the
//! provider's context size after a step). They are bookkeeping; `_usage` feeds `--context`.
//!
//! Parity note: kimi-cli keeps a tool message's output as ordinary text parts, so tool-role
//! content is read as [`Part::Text`], exactly as kimi-cli's estimator and compaction see it.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;

use super::Kimi;
use crate::tokens::Tokenizer;
use crate::transcript::blocks::{borrowed_str, borrowed_text, raw_json, LenientU64, StrOrSeq};
use crate::transcript::format::Format;
use crate::transcript::model::{Entry, MediaKind, Message, Part, Record, Role, Usage};
use crate::transcript::scan;
use crate::transcript::sketch::Sketch;
use crate::transcript::text::{holds_backslash_u, Text};

#[derive(Deserialize, Default)]
struct ChatLine<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: StrOrSeq<'a, ChatPart<'a>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ToolCall<'a>>>,
    #[serde(borrow, default)]
    function_call: Option<FunctionCall<'a>>,
    /// On a tool message: the id of the call it answers.
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    tool_call_id: Option<Cow<'a, str>>,
    /// Thinking text as DeepSeek- and Kimi-compatible APIs return it.
    #[serde(borrow, default, deserialize_with = "borrowed_text")]
    reasoning_content: Option<Text<'a>>,
    /// The context size on a kimi-cli `_usage` record. Read separately and leniently, as every
    /// format reads usage: a figure serde cannot hold (`1e999`) means no figure, not a bad line.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    token_count: Option<&'a str>,
    /// The context size as the walk read it, where it could (never set by serde): parsing
    /// `token_count` again with serde cost a tenth of what `estimate` spent on a line of
    /// kimi-cli's bookkeeping.
    #[serde(skip)]
    token_count_walked: Option<LenientU64>,
    /// A `content` list as the walk read it, each part already the model's (never set by
    /// serde, and `content` is then left empty): a list of [`ChatPart`]s, made into parts
    /// after, cost an allocation and a copy of each part more.
    #[serde(skip)]
    walked_parts: Vec<Part<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ChatPart<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    text: Option<Text<'a>>,
    /// kimi-cli's thinking part: `{"type":"think","think":…}`.
    #[serde(borrow, deserialize_with = "borrowed_text")]
    think: Option<Text<'a>>,
    #[serde(borrow, deserialize_with = "borrowed_text")]
    refusal: Option<Text<'a>>,
}

#[derive(Deserialize)]
struct ToolCall<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: Option<FunctionCall<'a>>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(borrow, default)]
    name: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    arguments: Option<&'a str>,
    /// The arguments string as the walk read it, still escaped (see [`arguments_text`]);
    /// never set by serde.
    #[serde(skip)]
    walked: Option<Text<'a>>,
}

impl Format for Kimi {
    fn name(&self) -> &'static str {
        "kimi-cli (an OpenAI-style message list)"
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        head.iter().any(|line| {
            !line.has("type")
                && line
                    .str("role")
                    .is_some_and(|role| role.starts_with('_') || Role::from_chat(role).is_some())
        })
    }

    /// kimi-cli's own rule, characters of text and tool results ÷ 4 (`estimate_text_tokens`
    /// in kimi-cli's `soul/compaction.py`), so that condense's numbers are the ones kimi-cli
    /// compacts by.
    fn default_tokenizer(&self, _model: Option<&str>) -> Tokenizer {
        Tokenizer::Chars4
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        // Walked in place: a line of some 320 bytes returned by value was copied three times
        // before it became a record, a tenth of what `estimate` spent on a bookkeeping line.
        let mut chat = ChatLine::default();
        if chat.walk(text).is_none() {
            chat = serde_json::from_str(text)?;
        }
        chat_record(line, text, &mut chat)
    }
}

/// The record of the line `text`, number `line`, read as `chat`, whose fields it takes (taking
/// them where they lie rather than the whole line by value, which was copied).
fn chat_record<'a>(line: usize, text: &'a str, chat: &mut ChatLine<'a>) -> Result<Record<'a>> {
    let Some(role_name) = chat.role.take() else {
        bail!("message has no \"role\"");
    };
    if role_name.starts_with('_') {
        let usage = (role_name == "_usage")
            .then_some(chat.token_count)
            .flatten()
            .and_then(|raw| {
                chat.token_count_walked
                    .or_else(|| serde_json::from_str::<LenientU64>(raw).ok())
            })
            .and_then(|count| count.0)
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

    let mut parts = std::mem::take(&mut chat.walked_parts);
    match std::mem::take(&mut chat.content) {
        StrOrSeq::Str(text) => parts.push(Part::Text(text)),
        StrOrSeq::Seq(items) => parts.extend(items.into_iter().map(chat_part)),
    }
    // Thinking comes first (seldom there: kimi-cli keeps it as a content part).
    if let Some(reasoning) = chat.reasoning_content.take() {
        parts.insert(0, Part::Thinking(reasoning));
    }
    for call in chat.tool_calls.take().into_iter().flatten() {
        if let Some(function) = call.function {
            parts.push(call_part(call.id, function)?);
        }
    }
    // The legacy `function_call` has no id.
    if let Some(function) = chat.function_call.take() {
        parts.push(call_part(None, function)?);
    }
    // Only a tool message answers a call.
    let call_id = chat.tool_call_id.take().filter(|_| role == Role::Tool);
    Ok(Record::new(
        line,
        text.as_bytes(),
        Entry::Message(Message::new(role, parts).answering(call_id)),
    ))
}

/// The part of a call with this id and function.
fn call_part<'a>(id: Option<Cow<'a, str>>, function: FunctionCall<'a>) -> Result<Part<'a>> {
    Ok(Part::ToolCall {
        id,
        name: function.name,
        arguments: arguments_text(function.arguments, function.walked)?,
    })
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
/// Either way the result is the JSON text of the arguments, `raw` being the value as the line
/// holds it. A string the walk read (`walked`) is kept still escaped, as message text is:
/// decoding every call's arguments into a copy was a sixth of what `estimate` spent on a
/// kimi-cli context, and the estimators that count arguments read them escaped. One holding a
/// `\u` escape is decoded by serde_json as before, which refuses a lone surrogate, where the
/// walk would read U+FFFD.
fn arguments_text<'a>(raw: Option<&'a str>, walked: Option<Text<'a>>) -> Result<Text<'a>> {
    match (raw, walked) {
        (None, _) => Ok(Text::default()),
        (Some(raw), Some(walked)) if !holds_backslash_u(raw.as_bytes()) => Ok(walked),
        (Some(raw), _) if raw.starts_with('"') => Ok(serde_json::from_str::<String>(raw)?.into()),
        (Some(raw), _) => Ok(raw.into()),
    }
}

// The walk: a line read with the SIMD scanner (`scan`), as the Claude Code, Codex and pi readers
// read theirs, instead of by serde_json. Message text is the bulk of a kimi-cli line and is full
// of escapes (`\n`); serde decodes each such string into a new allocation byte by byte, where
// the walk hands it out still escaped, as a `Text` that counts its code points as it is. Each
// function reads what serde's derive reads for the same struct (unknown keys skipped, `null`
// for an optional field, a repeated field refused) and returns `None` for anything else, so
// that serde reads the line and says what is wrong.

impl<'a> ChatLine<'a> {
    /// Reads the line `text` into this empty line by the walk; `None` where the walk gives up
    /// (the line then holds what was read before).
    fn walk(&mut self, text: &'a str) -> Option<()> {
        let scanner = scan::Scanner::new(text.as_bytes());
        let mut walk = scan::Walk::new(&scanner, text, 0);
        let line = self;
        let keys = [
            "role",
            "content",
            "tool_calls",
            "function_call",
            "tool_call_id",
            "reasoning_content",
            "token_count",
        ];
        walk.fields(keys, |field, walk| {
            match field {
                0 => line.role = walk.optional_str()?,
                1 => line.content = walk_content(walk, &mut line.walked_parts)?,
                2 => {
                    line.tool_calls = match walk.null()? {
                        true => None,
                        false => Some(walk_tool_calls(walk)?),
                    }
                }
                3 => line.function_call = walk_optional_function(walk)?,
                4 => line.tool_call_id = walk.optional_str()?,
                5 => line.reasoning_content = walk.optional_string()?,
                _ => {
                    let mut count = walk.clone();
                    line.token_count = walk.raw()?;
                    line.token_count_walked =
                        line.token_count.and_then(|_| LenientU64::walk(&mut count));
                }
            }
            Some(())
        })?;
        (walk.position() == text.len()).then_some(())
    }
}

/// `content`: a string, `null` (no parts) or a list of part objects, whose parts go to
/// `parts` (and the content returned is then an empty list).
fn walk_content<'a>(
    walk: &mut scan::Walk<'_, 'a>,
    parts: &mut Vec<Part<'a>>,
) -> Option<StrOrSeq<'a, ChatPart<'a>>> {
    match walk.peek()? {
        b'"' => Some(StrOrSeq::Str(walk.string()?)),
        b'[' => {
            walk.array(|walk| {
                let mut part = ChatPart::default();
                walk.fields(["type", "text", "think", "refusal"], |field, walk| {
                    match field {
                        0 => part.kind = walk.optional_str()?,
                        1 => part.text = walk.optional_string()?,
                        2 => part.think = walk.optional_string()?,
                        _ => part.refusal = walk.optional_string()?,
                    }
                    Some(())
                })?;
                parts.push(chat_part(part));
                Some(())
            })?;
            Some(StrOrSeq::default())
        }
        _ => walk.null()?.then(StrOrSeq::default),
    }
}

/// `tool_calls`, a list of `{id, function}` objects.
fn walk_tool_calls<'a>(walk: &mut scan::Walk<'_, 'a>) -> Option<Vec<ToolCall<'a>>> {
    let mut calls = Vec::new();
    walk.array(|walk| {
        let mut call = ToolCall {
            id: None,
            function: None,
        };
        walk.fields(["id", "function"], |field, walk| {
            match field {
                0 => call.id = walk.optional_str()?,
                _ => call.function = walk_optional_function(walk)?,
            }
            Some(())
        })?;
        calls.push(call);
        Some(())
    })?;
    Some(calls)
}

/// A `{name, arguments}` object or `null`; `name` defaults to empty but is never `null`.
fn walk_optional_function<'a>(walk: &mut scan::Walk<'_, 'a>) -> Option<Option<FunctionCall<'a>>> {
    if walk.null()? {
        return Some(None);
    }
    let mut function = FunctionCall {
        name: Cow::Borrowed(""),
        arguments: None,
        walked: None,
    };
    walk.fields(["name", "arguments"], |field, walk| {
        match field {
            0 => function.name = walk.string()?.into_cow(),
            _ if walk.peek()? == b'"' => {
                function.arguments = Some(walk.clone().value()?);
                function.walked = Some(walk.string()?);
            }
            _ => function.arguments = walk.raw()?,
        }
        Some(())
    })?;
    Some(Some(function))
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::transcript::model::testing;
    use crate::transcript::model::testing::corpus;
    use crate::transcript::{detect, FormatId, DETECT_LINES};

    fn read(text: &str) -> Record<'_> {
        Kimi.read(1, text).unwrap()
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
                    id: Some("call_1".into()),
                    name: "Shell".into(),
                    arguments: r#"{"command": "ls"}"#.into()
                },
            ]
        );
        assert_eq!(message.call_id, None);
        assert!(matches!(
            message.parts[2],
            Part::ToolCall {
                id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
    }

    #[test]
    fn tool_messages_answer_their_call() {
        let record = read(
            r#"{"role":"tool","content":[{"type":"text","text":"a.txt"}],"tool_call_id":"Shell:0"}"#,
        );
        let message = record.message().unwrap();
        assert_eq!(message.role, Role::Tool);
        assert_eq!(message.parts, vec![Part::Text("a.txt".into())]);
        assert_eq!(message.call_id, Some(Cow::Borrowed("Shell:0")));
        assert!(matches!(message.call_id, Some(Cow::Borrowed(_))));
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["Shell:0"]);
        // Legacy function calls and results carry no ids; an id on another role is ignored.
        let legacy = read(
            r#"{"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{}"}}"#,
        );
        assert_eq!(
            legacy.message().unwrap().parts,
            vec![Part::ToolCall {
                id: None,
                name: "f".into(),
                arguments: "{}".into()
            }]
        );
        let function = read(r#"{"role":"function","name":"f","content":"out"}"#);
        assert_eq!(function.message().unwrap().call_id, None);
        let user = read(r#"{"role":"user","content":"x","tool_call_id":"c"}"#);
        assert_eq!(user.message().unwrap().call_id, None);
    }

    #[test]
    fn arguments_stay_escaped_unless_they_hold_a_unicode_escape() {
        let line = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"Shell","arguments":"{\"command\": \"ls\\na\"}"}}]}"#;
        let record = read(line);
        let Part::ToolCall { arguments, .. } = &record.message().unwrap().parts[0] else {
            panic!("no tool call");
        };
        // Not decoded into a copy by reading: only when its text is asked for.
        assert!(arguments.is_borrowed());
        assert_eq!(arguments.code_points(), 20);
        assert_eq!(arguments, r#"{"command": "ls\na"}"#);
        // A lone surrogate in them fails the line, as serde_json's reading of them always did
        // (reading the line as a whole then goes through `without_lone_surrogates`).
        let lone = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{\"a\": \"\ud83d\"}"}}]}"#;
        assert!(Kimi.read(1, lone).is_err());
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

    /// What serde alone reads of `line`, and what the walk reads (`None` where it gives up).
    fn both_ways(line: &str) -> (Record<'_>, Option<Record<'_>>) {
        let serde = chat_record(1, line, &mut serde_json::from_str(line).unwrap()).unwrap();
        let mut chat = ChatLine::default();
        let walked = chat
            .walk(line)
            .map(|()| chat_record(1, line, &mut chat).unwrap());
        (serde, walked)
    }

    #[test]
    fn walking_a_line_reads_what_serde_reads_on_every_real_line() {
        let mut lines = 0;
        for path in [
            "openai-chat/kimi-cli-swebench-531d195b.jsonl",
            "openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
        ] {
            for (number, line) in corpus(path) {
                let (serde, walked) = both_ways(&line);
                let walked = walked.unwrap_or_else(|| panic!("{path}:{number}: walk gave up"));
                assert_eq!(walked.entry, serde.entry, "{path}:{number}");
                assert_eq!(walked.usage, serde.usage, "{path}:{number}");
                lines += 1;
            }
        }
        assert!(lines > 80, "{lines} lines");
    }

    #[test]
    fn walking_reads_every_shape_serde_reads() {
        for line in [
            r#"{"role":"user","content":"a\nb \u00e9 \"q\""}"#,
            r#"{"role":"user","content":null}"#,
            r#"{ "role" : "user" , "content" : [ ] } "#,
            r#"{"role":"assistant","content":[{"type":"think","think":"hm\n"},{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}},{"text":"no type"},{"type":"refusal","refusal":"no"}],"reasoning_content":"r\t"}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"Shell","arguments":"{\"cmd\":\"ls\"}"}},{"id":null,"function":null},{"id":"c3","function":{"name":"n","arguments":{"a":1}}}]}"#,
            r#"{"role":"assistant","content":"","tool_calls":null,"function_call":{"name":"f","arguments":null}}"#,
            r#"{"role":"tool","content":[{"type":"text","text":"out"}],"tool_call_id":"c1","extra":{"deep":[1,2,{"x":"}"}]}}"#,
            r#"{"role":"_usage","token_count":12345}"#,
            r#"{"role":"_usage","token_count":1e999}"#,
            r#"{"role":"_usage","token_count":-5}"#,
            r#"{"role":"_usage","token_count":-0}"#,
            r#"{"role":"_usage","token_count":12.0}"#,
            r#"{"role":"_usage","token_count":18446744073709551616}"#,
            r#"{"role":"_usage","token_count":"12"}"#,
            r#"{"role":"_usage","token_count":null}"#,
            r#"{"role":"_usage","token_count":true}"#,
            r#"{"role":"_usage","token_count":[1]}"#,
            r#"{"role":"_usage","token_count":{"a":1}}"#,
            r#"{"role":"_checkpoint","id":3}"#,
        ] {
            let (serde, walked) = both_ways(line);
            let walked = walked.unwrap_or_else(|| panic!("walk gave up on {line}"));
            assert_eq!(walked.entry, serde.entry, "{line}");
            assert_eq!(walked.usage, serde.usage, "{line}");
        }
    }

    /// Whether the walk reads `line`.
    fn walks(line: &str) -> Option<()> {
        ChatLine::default().walk(line)
    }

    #[test]
    fn lines_the_walk_gives_up_on_go_to_serde() {
        // An escaped key, a repeated field, a non-string name, a content of another type and a
        // line that is no object: serde reads or refuses each, with its own message.
        assert!(walks(r#"{"r\u006fle":"user","content":"x"}"#).is_none());
        assert_eq!(
            read(r#"{"r\u006fle":"user","content":"x"}"#).entry,
            read(r#"{"role":"user","content":"x"}"#).entry
        );
        for bad in [
            r#"{"role":"user","role":"user","content":"x"}"#,
            r#"{"role":"assistant","tool_calls":[{"function":{"name":null}}]}"#,
            r#"{"role":"user","content":5}"#,
            r#"["role","user"]"#,
            r#"{"role":"user","content":"x"} x"#,
        ] {
            assert!(walks(bad).is_none(), "{bad}");
            assert!(Kimi.read(1, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reads_the_openai_corpus() {
        // (messages, usage records, tool results, orphaned tool results) per file, counted with
        // jq:
        //   messages: jq -c 'select(.role | startswith("_") | not)' FILE | wc -l
        //   usages: jq -c 'select(.role=="_usage" and .token_count != null)' FILE | wc -l
        //   tool results: jq -c 'select(.role=="tool")' FILE | wc -l
        //   orphans (a tool_call_id no earlier tool_calls[].id has):
        //     jq -n 'reduce inputs as $l ({seen: {}, n: 0};
        //       reduce ($l.tool_calls // [] | .[]) as $c (.; .seen[$c.id] = true)
        //       | if $l.role=="tool" and (.seen[$l.tool_call_id] | not) then .n += 1
        //         else . end) | .n' FILE
        for (path, counts) in [
            (
                "openai-chat/kimi-cli-swebench-531d195b.jsonl",
                (56, 56, 27, 0),
            ),
            (
                "openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
                (30, 30, 14, 0),
            ),
        ] {
            let lines = corpus(path);
            let head: Vec<Sketch> = lines
                .iter()
                .take(DETECT_LINES)
                .map(|(_, line)| Sketch::of(line).unwrap())
                .collect();
            assert_eq!(detect(&head), Some(FormatId::Openai), "{path}");
            let records: Vec<Record<'_>> = lines
                .iter()
                .map(|(number, line)| {
                    Kimi.read(*number, line)
                        .unwrap_or_else(|err| panic!("{path}:{number}: {err}"))
                })
                .collect();
            let messages: Vec<&Message<'_>> = records.iter().filter_map(Record::message).collect();
            let usages = records.iter().filter(|r| r.usage.is_some()).count();
            let links = testing::links(messages.iter().copied());
            assert_eq!(
                (messages.len(), usages, links.results, links.orphans),
                counts,
                "{path}"
            );
        }
    }

    #[test]
    fn rejects_missing_and_unknown_roles() {
        assert!(Kimi.read(1, r#"{"content":"x"}"#).is_err());
        assert!(Kimi.read(1, r#"{"role":"critic","content":"x"}"#).is_err());
    }
}

/// What one message is in a kimi-cli or OpenAI-style list: each line is one message of the
/// request, and `tool` messages travel with the call they answer
/// ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::Kimi;
    use crate::transcript::messages::testing::check;

    fn user(text: &str) -> String {
        format!(r#"{{"role":"user","content":"{text}"}}"#)
    }

    /// An assistant message with this text, these thinking parts and these calls.
    fn assistant(text: &str, thinking: usize, calls: &[&str]) -> String {
        let mut content = vec![format!(r#"{{"type":"text","text":"{text}"}}"#)];
        content.extend((0..thinking).map(|_| r#"{"type":"think","think":"hm"}"#.to_owned()));
        let calls: Vec<String> = calls
            .iter()
            .map(|id| {
                format!(
                    r#"{{"type":"function","id":"{id}","function":{{"name":"Shell","arguments":"{{}}"}}}}"#
                )
            })
            .collect();
        format!(
            r#"{{"role":"assistant","content":[{}],"tool_calls":[{}]}}"#,
            content.join(","),
            calls.join(",")
        )
    }

    fn tool(id: &str) -> String {
        format!(r#"{{"role":"tool","content":"ok","tool_call_id":"{id}"}}"#)
    }

    #[test]
    fn a_message_of_any_number_of_parts_is_one_message() {
        for (thinking, calls) in [(0, 0), (1, 0), (1, 1), (2, 2)] {
            let ids = ["c1", "c2"];
            let mut lines = vec![
                r#"{"role":"_system_prompt","content":"be brief"}"#.to_owned(),
                user("old question"),
                assistant("old", 0, &[]),
                user("the question"),
                assistant("answer", thinking, &ids[..calls]),
            ];
            lines.extend(ids[..calls].iter().map(|id| tool(id)));
            let end = 5 + calls;
            check(&Kimi, &lines, &[1..2, 2..3, 3..4, 4..end]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_travel_with_their_results() {
        let lines = [
            user("read both"),
            assistant("", 0, &["c1", "c2"]),
            tool("c1"),
            tool("c2"),
            assistant("", 0, &["task"]),
            tool("task"),
            assistant("done", 0, &[]),
        ];
        check(&Kimi, &lines, &[0..1, 1..4, 4..6, 6..7]);
    }
}
