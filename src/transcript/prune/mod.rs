//! Where an agent keeps the values `condense prune` may shrink, and the JSON a shrunk value
//! is written back as: the [`Prune`] trait each agent folder's `prune.rs` implements, and the
//! shapes every agent's values come in.
//!
//! A [`Site`] is one value of one line: a tool result's body, a tool call's arguments, or a
//! thinking block. Each is named by its JSON path in the line, so that the line can be edited
//! in that one place with [`super::json::replace_spans`] while every other byte stays as it
//! was. Which sites to shrink is the planner's business ([`crate::prune`]); an agent only knows
//! where its values are, and [`rewrite`] writes the pruned file back.
//!
//! A shrunk body keeps the shape the agent expects there: a string stays a string, a list of
//! text parts becomes one text part of the same type, Gemini's `response` object keeps an
//! `output` key. Arguments keep every key and every short value, so a renderer still finds the
//! file path of a whole-file write; only their long strings become the placeholder. Thinking
//! blocks are never edited, only removed whole: a signed block must stay intact where it is
//! kept.

pub mod rewrite;

use anyhow::Result;
use serde_json::value::RawValue;
use serde_json::Value;

use super::json::{shrink_long_strings, Step};
use super::model::Record;

/// One agent's prune sites, and how it records a prune.
pub trait Prune {
    /// Adds the sites of one line (parsed) to `out`. Lines that are not messages, or hold
    /// nothing prune could shrink, have none.
    fn sites(&self, line: &Value, out: &mut Vec<Site>);

    /// The record appended after the pruned file that tells the agent's readers the usage
    /// figures recorded so far describe a larger context than the one now in the file, holding
    /// the new size; `None` for a format that records no usage.
    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        let _ = prune;
        Ok(None)
    }
}

/// What a prune's marker is made from.
pub struct Mark<'m, 'a> {
    /// Every record of the file.
    pub records: &'m [Record<'a>],
    /// The live context: indexes into `records`, in the order the agent sends them.
    pub context: &'m [usize],
    /// A seed that identifies this prune, for deterministic ids.
    pub seed: String,
    /// The last `timestamp` value of the file, as JSON.
    pub timestamp: Option<&'m RawValue>,
    /// The live context's size before, as `estimate --context` reports it.
    pub tokens_before: u64,
    /// Its size after.
    pub tokens_after: u64,
    /// The call ids of the tool results pruned.
    pub pruned_ids: &'m [&'m str],
}

/// The sites of one line of `agent`'s format (see [`Prune::sites`]).
pub fn sites(agent: &dyn Prune, line: &[u8]) -> Vec<Site> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    agent.sites(&value, &mut out);
    out
}

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

/// A path step into an object's key.
pub fn key(name: &'static str) -> Step {
    Step::Key(name)
}

/// `rest` after `prefix`.
pub fn under(prefix: &[Step], rest: impl IntoIterator<Item = Step>) -> Vec<Step> {
    prefix.iter().cloned().chain(rest).collect()
}

/// The string at `name` of an object, owned.
pub fn string(value: &Value, name: &str) -> Option<String> {
    value.get(name).and_then(Value::as_str).map(str::to_owned)
}

/// The text of content that is a string or a list of parts with `text`, and its shape.
pub fn content_text(content: &Value, part_type: &'static str) -> Option<(String, Shape)> {
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

/// A thinking site at `path`.
pub fn thinking(path: Vec<Step>, shape: Shape, text: &str) -> Site {
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
    use crate::transcript::json::{replace_spans, value_at};
    use crate::transcript::FormatId;

    fn one(format: FormatId, line: &str) -> Vec<Site> {
        sites(format.format(), line.as_bytes())
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
