//! Where each format keeps the values `condense prune` may shrink, and the JSON a shrunk value
//! is written back as.
//!
//! A [`Site`] is one value of one line: a tool result's body, a tool call's arguments, or a
//! thinking block. Each is named by its JSON path in the line, so that the line can be edited
//! in that one place with [`super::write::replace_spans`] while every other byte stays as it
//! was. Which sites to shrink is the planner's business ([`crate::prune`]); this module only
//! knows the formats:
//!
//! | format | tool result body | arguments | thinking |
//! |---|---|---|---|
//! | OpenAI / kimi-cli | `tool` message `content` | `tool_calls[].function.arguments` | `think` parts, `reasoning_content` |
//! | Anthropic | `tool_result` block `content` | `tool_use` block `input` | `thinking` / `redacted_thinking` blocks |
//! | Claude Code | the same under `message`, and the top-level `toolUseResult` copy | the same | the same (one block per line: the line goes) |
//! | Codex | `function_call_output` / `custom_tool_call_output` `output` | `function_call` `arguments`, `custom_tool_call` `input` | `reasoning` items (the line goes) |
//! | pi | `toolResult` `content` (and its `details` copy) | `toolCall` `arguments` | `thinking` blocks |
//! | Gemini CLI | `toolCalls[].result[].functionResponse.response` (and `resultDisplay`), user `functionResponse` parts | `toolCalls[].args` | `thoughts[]` |
//!
//! A shrunk body keeps the shape the agent expects there: a string stays a string, a list of
//! text parts becomes one text part of the same type, Gemini's `response` object keeps an
//! `output` key. Arguments keep every key and every short value, so a renderer still finds the
//! file path of a whole-file write; only their long strings become the placeholder. Thinking
//! blocks are never edited, only removed whole: a signed block must stay intact where it is
//! kept.

pub mod rewrite;

use serde_json::Value;

use super::write::{shrink_long_strings, Step};
use super::FormatId;

/// What a site holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A tool result's body.
    Result,
    /// A tool call's arguments.
    Arguments,
    /// A thinking block.
    Thinking,
}

/// How a replacement for a site is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A JSON string.
    String,
    /// A list of text parts with this `type` (`text`, `input_text`).
    Parts(&'static str),
    /// An object whose one key, `output`, holds the text (Gemini `functionResponse.response`).
    Output,
    /// Arguments as a JSON string holding JSON (OpenAI, Codex `function_call`).
    EncodedArguments,
    /// Arguments as a JSON value (Anthropic, Claude Code, pi, Gemini).
    ObjectArguments,
    /// Removed from the array that holds it.
    Remove,
    /// The whole line goes (a Claude Code thinking fragment, a Codex reasoning item).
    DropLine,
}

/// One value of a line that prune may shrink.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    /// What it holds.
    pub kind: Kind,
    /// Its path in the line.
    pub path: Vec<Step>,
    /// How its replacement is written.
    pub shape: Shape,
    /// The id that pairs a call with its result.
    pub call_id: Option<String>,
    /// The tool's name, where the line names it (calls; pi and Gemini results).
    pub tool: Option<String>,
    /// The text the model sees there: the result's text, the arguments' JSON, the thinking.
    pub text: String,
    /// Copies of a result kept beside it for the agent's user interface, never sent to the
    /// model (Claude Code `toolUseResult`, pi `details`, Gemini `resultDisplay`): shrunk
    /// with it, by [`shrink_long_strings`].
    pub companions: Vec<Vec<Step>>,
}

fn key(name: &str) -> Step {
    Step::Key(name.to_owned())
}

fn under(prefix: &[Step], rest: impl IntoIterator<Item = Step>) -> Vec<Step> {
    prefix.iter().cloned().chain(rest).collect()
}

fn string(value: &Value, name: &str) -> Option<String> {
    value.get(name).and_then(Value::as_str).map(str::to_owned)
}

/// The text of content that is a string or a list of parts with `text`, and its shape.
fn content_text(content: &Value, part_type: &'static str) -> Option<(String, Shape)> {
    match content {
        Value::String(text) => Some((text.clone(), Shape::String)),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            Some((texts.join("\n"), Shape::Parts(part_type)))
        }
        _ => None,
    }
}

/// The sites of one line of `format`. Lines that are not messages, or hold nothing prune
/// could shrink, have none.
pub fn sites(format: FormatId, line: &[u8]) -> Vec<Site> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match format {
        FormatId::Openai => openai(&value, &mut out),
        FormatId::Anthropic => anthropic(&value, &[], false, &mut out),
        FormatId::ClaudeCode => {
            let is_message = matches!(
                value.get("type").and_then(Value::as_str),
                Some("user" | "assistant")
            );
            if let (true, Some(message)) = (is_message, value.get("message")) {
                anthropic(message, &[key("message")], true, &mut out);
                if value.get("toolUseResult").is_some() {
                    for site in out.iter_mut().filter(|s| s.kind == Kind::Result) {
                        site.companions.push(vec![key("toolUseResult")]);
                    }
                }
            }
        }
        FormatId::Codex => match value.get("payload") {
            Some(payload) if value.get("type").and_then(Value::as_str) == Some("response_item") => {
                codex(payload, &[key("payload")], &mut out);
            }
            // The legacy bare layout: the line is the item.
            None => codex(&value, &[], &mut out),
            Some(_) => {}
        },
        FormatId::Pi => {
            if let (Some("message"), Some(message)) = (
                value.get("type").and_then(Value::as_str),
                value.get("message"),
            ) {
                pi(message, &mut out);
            }
        }
        FormatId::Gemini => gemini(&value, &mut out),
    }
    out
}

fn openai(line: &Value, out: &mut Vec<Site>) {
    match line.get("role").and_then(Value::as_str) {
        Some("tool" | "function") => {
            if let Some((text, shape)) = line.get("content").and_then(|c| content_text(c, "text")) {
                out.push(Site {
                    kind: Kind::Result,
                    path: vec![key("content")],
                    shape,
                    call_id: string(line, "tool_call_id"),
                    tool: string(line, "name"),
                    text,
                    companions: Vec::new(),
                });
            }
        }
        Some("assistant") => {
            if let Some(Value::String(reasoning)) = line.get("reasoning_content") {
                if !reasoning.is_empty() {
                    out.push(thinking(
                        vec![key("reasoning_content")],
                        Shape::String,
                        reasoning,
                    ));
                }
            }
            if let Some(Value::Array(parts)) = line.get("content") {
                for (i, part) in parts.iter().enumerate() {
                    if matches!(
                        part.get("type").and_then(Value::as_str),
                        Some("think" | "thinking")
                    ) {
                        let text = string(part, "think").or_else(|| string(part, "text"));
                        out.push(thinking(
                            vec![key("content"), Step::Index(i)],
                            Shape::Remove,
                            &text.unwrap_or_default(),
                        ));
                    }
                }
            }
            if let Some(Value::Array(calls)) = line.get("tool_calls") {
                for (i, call) in calls.iter().enumerate() {
                    let Some(arguments) = call.get("function").and_then(|f| f.get("arguments"))
                    else {
                        continue;
                    };
                    let (text, shape) = match arguments {
                        Value::String(text) => (text.clone(), Shape::EncodedArguments),
                        other => (other.to_string(), Shape::ObjectArguments),
                    };
                    out.push(Site {
                        kind: Kind::Arguments,
                        path: vec![
                            key("tool_calls"),
                            Step::Index(i),
                            key("function"),
                            key("arguments"),
                        ],
                        shape,
                        call_id: string(call, "id"),
                        tool: call.get("function").and_then(|f| string(f, "name")),
                        text,
                        companions: Vec::new(),
                    });
                }
            }
        }
        _ => {}
    }
}

fn thinking(path: Vec<Step>, shape: Shape, text: &str) -> Site {
    Site {
        kind: Kind::Thinking,
        path,
        shape,
        call_id: None,
        tool: None,
        text: text.to_owned(),
        companions: Vec::new(),
    }
}

/// An Anthropic message (`{role, content}`) at `prefix`; `one_block_lines` for Claude Code,
/// whose assistant lines hold one block each, so a thinking block takes its line with it.
fn anthropic(message: &Value, prefix: &[Step], one_block_lines: bool, out: &mut Vec<Site>) {
    let Some(Value::Array(blocks)) = message.get("content") else {
        return;
    };
    for (i, block) in blocks.iter().enumerate() {
        let at = |rest: Vec<Step>| {
            under(
                prefix,
                [key("content"), Step::Index(i)].into_iter().chain(rest),
            )
        };
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => {
                let content = block.get("content").unwrap_or(&Value::Null);
                let (text, shape) = match content_text(content, "text") {
                    Some(found) => found,
                    None => continue,
                };
                out.push(Site {
                    kind: Kind::Result,
                    path: at(vec![key("content")]),
                    shape,
                    call_id: string(block, "tool_use_id"),
                    tool: None,
                    text,
                    companions: Vec::new(),
                });
            }
            Some("tool_use") => {
                if let Some(input) = block.get("input") {
                    out.push(Site {
                        kind: Kind::Arguments,
                        path: at(vec![key("input")]),
                        shape: Shape::ObjectArguments,
                        call_id: string(block, "id"),
                        tool: string(block, "name"),
                        text: input.to_string(),
                        companions: Vec::new(),
                    });
                }
            }
            Some(kind @ ("thinking" | "redacted_thinking")) => {
                let text = if kind == "thinking" {
                    string(block, "thinking").unwrap_or_default()
                } else {
                    String::new()
                };
                let (path, shape) = if one_block_lines && blocks.len() == 1 {
                    (Vec::new(), Shape::DropLine)
                } else {
                    (at(Vec::new()), Shape::Remove)
                };
                out.push(thinking(path, shape, &text));
            }
            _ => {}
        }
    }
}

fn codex(item: &Value, prefix: &[Step], out: &mut Vec<Site>) {
    let at = |name: &str| under(prefix, [key(name)]);
    match item.get("type").and_then(Value::as_str) {
        Some("function_call_output" | "custom_tool_call_output") => {
            let output = item.get("output").unwrap_or(&Value::Null);
            let (text, shape) = match output {
                Value::Array(_) => content_text(output, "input_text")
                    .unwrap_or((String::new(), Shape::Parts("input_text"))),
                Value::String(text) => (text.clone(), Shape::String),
                Value::Null => return,
                // `{content, success}` (older builds) or one content item: a string is what
                // every build accepts.
                other => (
                    other
                        .get("content")
                        .or_else(|| other.get("text"))
                        .and_then(Value::as_str)
                        .map_or_else(|| other.to_string(), str::to_owned),
                    Shape::String,
                ),
            };
            out.push(Site {
                kind: Kind::Result,
                path: at("output"),
                shape,
                call_id: string(item, "call_id"),
                tool: None,
                text,
                companions: Vec::new(),
            });
        }
        Some("function_call") => {
            if let Some(Value::String(arguments)) = item.get("arguments") {
                out.push(Site {
                    kind: Kind::Arguments,
                    path: at("arguments"),
                    shape: Shape::EncodedArguments,
                    call_id: string(item, "call_id"),
                    tool: string(item, "name"),
                    text: arguments.clone(),
                    companions: Vec::new(),
                });
            }
        }
        Some("custom_tool_call") => {
            if let Some(Value::String(input)) = item.get("input") {
                out.push(Site {
                    kind: Kind::Arguments,
                    path: at("input"),
                    shape: Shape::String,
                    call_id: string(item, "call_id"),
                    tool: string(item, "name"),
                    text: input.clone(),
                    companions: Vec::new(),
                });
            }
        }
        Some("reasoning") => {
            let texts: Vec<&str> = ["summary", "content"]
                .iter()
                .filter_map(|name| item.get(*name).and_then(Value::as_array))
                .flatten()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            out.push(thinking(Vec::new(), Shape::DropLine, &texts.join("\n")));
        }
        _ => {}
    }
}

fn pi(message: &Value, out: &mut Vec<Site>) {
    let prefix = [key("message")];
    match message.get("role").and_then(Value::as_str) {
        Some("toolResult") => {
            let Some((text, shape)) = message.get("content").and_then(|c| content_text(c, "text"))
            else {
                return;
            };
            out.push(Site {
                kind: Kind::Result,
                path: under(&prefix, [key("content")]),
                shape,
                call_id: string(message, "toolCallId"),
                tool: string(message, "toolName"),
                text,
                companions: if message.get("details").is_some() {
                    vec![under(&prefix, [key("details")])]
                } else {
                    Vec::new()
                },
            });
        }
        Some("assistant") => {
            let Some(Value::Array(blocks)) = message.get("content") else {
                return;
            };
            for (i, block) in blocks.iter().enumerate() {
                let path = |rest: Option<&str>| {
                    under(
                        &prefix,
                        [key("content"), Step::Index(i)]
                            .into_iter()
                            .chain(rest.map(key)),
                    )
                };
                match block.get("type").and_then(Value::as_str) {
                    Some("toolCall") => {
                        if let Some(arguments) = block.get("arguments") {
                            out.push(Site {
                                kind: Kind::Arguments,
                                path: path(Some("arguments")),
                                shape: Shape::ObjectArguments,
                                call_id: string(block, "id"),
                                tool: string(block, "name"),
                                text: arguments.to_string(),
                                companions: Vec::new(),
                            });
                        }
                    }
                    Some("thinking") => out.push(thinking(
                        path(None),
                        Shape::Remove,
                        &string(block, "thinking").unwrap_or_default(),
                    )),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn gemini(line: &Value, out: &mut Vec<Site>) {
    match line.get("type").and_then(Value::as_str) {
        Some("gemini") => {
            if let Some(Value::Array(thoughts)) = line.get("thoughts") {
                for (i, thought) in thoughts.iter().enumerate() {
                    let text = [string(thought, "subject"), string(thought, "description")]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join("\n");
                    out.push(thinking(
                        vec![key("thoughts"), Step::Index(i)],
                        Shape::Remove,
                        &text,
                    ));
                }
            }
            let Some(Value::Array(calls)) = line.get("toolCalls") else {
                return;
            };
            for (i, call) in calls.iter().enumerate() {
                let at = |rest: Vec<Step>| {
                    [key("toolCalls"), Step::Index(i)]
                        .into_iter()
                        .chain(rest)
                        .collect::<Vec<_>>()
                };
                let call_id = string(call, "id");
                let name = string(call, "name");
                if let Some(args) = call.get("args") {
                    out.push(Site {
                        kind: Kind::Arguments,
                        path: at(vec![key("args")]),
                        shape: Shape::ObjectArguments,
                        call_id: call_id.clone(),
                        tool: name.clone(),
                        text: args.to_string(),
                        companions: Vec::new(),
                    });
                }
                let Some(Value::Array(results)) = call.get("result") else {
                    continue;
                };
                for (j, result) in results.iter().enumerate() {
                    let Some(response) = result.get("functionResponse") else {
                        continue;
                    };
                    out.push(Site {
                        kind: Kind::Result,
                        path: at(vec![
                            key("result"),
                            Step::Index(j),
                            key("functionResponse"),
                            key("response"),
                        ]),
                        shape: Shape::Output,
                        call_id: string(response, "id").or_else(|| call_id.clone()),
                        tool: string(response, "name").or_else(|| name.clone()),
                        text: response_text(response.get("response")),
                        companions: if call.get("resultDisplay").is_some() {
                            vec![at(vec![key("resultDisplay")])]
                        } else {
                            Vec::new()
                        },
                    });
                }
            }
        }
        Some("user") => {
            let Some(Value::Array(parts)) = line.get("content") else {
                return;
            };
            for (j, part) in parts.iter().enumerate() {
                let Some(response) = part.get("functionResponse") else {
                    continue;
                };
                out.push(Site {
                    kind: Kind::Result,
                    path: vec![
                        key("content"),
                        Step::Index(j),
                        key("functionResponse"),
                        key("response"),
                    ],
                    shape: Shape::Output,
                    call_id: string(response, "id"),
                    tool: string(response, "name"),
                    text: response_text(response.get("response")),
                    companions: Vec::new(),
                });
            }
        }
        _ => {}
    }
}

/// The text of a Gemini `functionResponse.response`: its `output` (or `error`) string, else
/// its JSON.
fn response_text(response: Option<&Value>) -> String {
    match response {
        None | Some(Value::Null) => String::new(),
        Some(value) => ["output", "error"]
            .iter()
            .find_map(|name| value.get(*name).and_then(Value::as_str))
            .map_or_else(|| value.to_string(), str::to_owned),
    }
}

/// The JSON a result body (or a string argument) is replaced with: `text` in the site's shape.
pub fn replacement(shape: Shape, text: &str) -> Vec<u8> {
    let text = Value::String(text.to_owned()).to_string();
    // Written by hand: `type` first, as every agent writes its parts.
    match shape {
        Shape::Parts(part_type) => format!(r#"[{{"type":"{part_type}","text":{text}}}]"#),
        Shape::Output => format!(r#"{{"output":{text}}}"#),
        _ => text,
    }
    .into_bytes()
}

/// The JSON that arguments (`raw`, the value as the line holds it) are replaced with: the same
/// keys and short values, byte for byte, every string longer than `max_chars` replaced by what
/// `shrink` makes of it (unless it returns `None`). `None` when no string is replaced (or the
/// arguments are not JSON).
pub fn shrunk_arguments(
    shape: Shape,
    raw: &[u8],
    max_chars: usize,
    shrink: &dyn Fn(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    match shape {
        // Free text (a Codex custom tool's input) and arguments encoded as a JSON string are
        // one string in the line: decode it first.
        Shape::String | Shape::EncodedArguments => {
            let text: String = serde_json::from_slice(raw).ok()?;
            if shape == Shape::String {
                if text.chars().count() <= max_chars {
                    return None;
                }
                return Some(replacement(shape, &shrink(&text)?));
            }
            let inner = shrink_long_strings(text.as_bytes(), max_chars, shrink)?;
            let inner = String::from_utf8(inner).ok()?;
            Some(Value::String(inner).to_string().into_bytes())
        }
        _ => shrink_long_strings(raw, max_chars, shrink),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::write::{replace_spans, value_at};

    fn one(format: FormatId, line: &str) -> Vec<Site> {
        sites(format, line.as_bytes())
    }

    #[test]
    fn openai_tool_content_and_arguments() {
        let result = one(
            FormatId::Openai,
            r#"{"role":"tool","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_call_id":"c1"}"#,
        );
        assert_eq!(result.len(), 1);
        assert_eq!(result[0].text, "a\nb");
        assert_eq!(result[0].shape, Shape::Parts("text"));
        assert_eq!(result[0].call_id.as_deref(), Some("c1"));
        let call = one(
            FormatId::Openai,
            r#"{"role":"assistant","content":[{"type":"think","think":"hm"}],"tool_calls":[{"id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}"#,
        );
        assert_eq!(call.len(), 2);
        assert_eq!(call[0].kind, Kind::Thinking);
        assert_eq!(call[1].tool.as_deref(), Some("Shell"));
        assert_eq!(call[1].shape, Shape::EncodedArguments);
    }

    #[test]
    fn claude_code_results_carry_their_companion_and_thinking_takes_its_line() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]},"toolUseResult":{"stdout":"out"}}"#;
        let found = one(FormatId::ClaudeCode, line);
        assert_eq!(found[0].companions, vec![vec![key("toolUseResult")]]);
        let span = value_at(line.as_bytes(), &found[0].path).unwrap();
        assert_eq!(&line[span], r#""out""#);
        let thought = one(
            FormatId::ClaudeCode,
            r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x","signature":"s"}]}}"#,
        );
        assert_eq!(thought[0].shape, Shape::DropLine);
    }

    #[test]
    fn every_path_finds_its_value() {
        let lines = [
            (
                FormatId::Anthropic,
                r#"{"role":"user","content":[{"type":"text","text":"hi"},{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]}]}"#,
            ),
            (
                FormatId::Codex,
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"done"}}"#,
            ),
            (
                FormatId::Codex,
                r#"{"type":"custom_tool_call","call_id":"c","name":"apply_patch","input":"*** Begin"}"#,
            ),
            (
                FormatId::Pi,
                r#"{"type":"message","message":{"role":"toolResult","toolCallId":"t","toolName":"read","content":[{"type":"text","text":"x"}],"details":{"diff":"d"}}}"#,
            ),
            (
                FormatId::Gemini,
                r#"{"id":"g","type":"gemini","content":"","toolCalls":[{"id":"c","name":"ls","args":{"p":1},"result":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a"}}}],"resultDisplay":"a"}]}"#,
            ),
            (
                FormatId::Gemini,
                r#"{"id":"u","type":"user","content":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a"}}}]}"#,
            ),
        ];
        for (format, line) in lines {
            let found = one(format, line);
            assert!(!found.is_empty(), "{line}");
            for site in found {
                let span = value_at(line.as_bytes(), &site.path).expect(line);
                let edited =
                    replace_spans(line.as_bytes(), &[(span, replacement(site.shape, "P"))]);
                let value: Value = serde_json::from_slice(&edited).unwrap();
                assert!(value.to_string().contains("\"P\""), "{line}");
                for companion in &site.companions {
                    assert!(value_at(line.as_bytes(), companion).is_some());
                }
            }
        }
    }

    #[test]
    fn arguments_keep_their_keys_and_short_values() {
        let shrink = |_: &str| Some("P".to_owned());
        let encoded = shrunk_arguments(
            Shape::EncodedArguments,
            br#""{\"path\": \"a.rs\", \"content\": \"0123456789\"}""#,
            5,
            &shrink,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(encoded).unwrap(),
            r#""{\"path\": \"a.rs\", \"content\": \"P\"}""#
        );
        assert_eq!(
            shrunk_arguments(Shape::ObjectArguments, br#"{"path":"a.rs"}"#, 5, &shrink),
            None
        );
        assert_eq!(
            shrunk_arguments(
                Shape::ObjectArguments,
                br#"{"path" : "a.rs", "n": [1, "0123456789"]}"#,
                5,
                &shrink
            )
            .unwrap(),
            br#"{"path" : "a.rs", "n": [1, "P"]}"#
        );
        assert_eq!(
            shrunk_arguments(Shape::String, br#""0123456789""#, 5, &shrink).unwrap(),
            br#""P""#
        );
    }
}
