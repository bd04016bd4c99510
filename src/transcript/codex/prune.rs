//! Where prune may shrink a Codex rollout: a `function_call_output` / `custom_tool_call_output`
//! item's `output`, a `function_call`'s `arguments` and a `custom_tool_call`'s `input`, and
//! `reasoning` items, each of which takes its whole line with it (in the current layout the
//! items are `response_item` payloads; a legacy bare line is the item itself).
//!
//! After the pruned file comes a fresh `token_count` event, its `last_token_usage` the new
//! size: the cumulative `total_token_usage` and the window are copied from the last one, and
//! the event takes the next `ordinal` where the rollout numbers its lines (Codex refuses one
//! whose last line has none). The legacy bare layout has no token counts, so it gets none.

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::Codex;
use crate::transcript::json::{top_level_value, Step};
use crate::transcript::model::Record;
use crate::transcript::prune::{
    content_text, key, string, thinking, under, Kind, Mark, Prune, Shape, Site,
};

impl Prune for Codex {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        match line.get("payload") {
            Some(payload) if line.get("type").and_then(Value::as_str) == Some("response_item") => {
                item_sites(payload, &[key("payload")], out);
            }
            // The legacy bare layout: the line is the item.
            None => item_sites(line, &[], out),
            Some(_) => {}
        }
    }

    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        let Some(last) = last_token_info(prune.records) else {
            return Ok(None);
        };
        let after = prune.tokens_after;
        let usage = serde_json::json!({
            "input_tokens": after,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": after,
        });
        #[derive(Serialize)]
        struct Line<'r> {
            timestamp: Option<&'r RawValue>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ordinal: Option<u64>,
            #[serde(rename = "type")]
            kind: &'static str,
            payload: Value,
        }
        let line = Line {
            timestamp: prune.timestamp,
            ordinal: next_ordinal(prune.records),
            kind: "event_msg",
            payload: serde_json::json!({
                "type": "token_count",
                "info": {
                    "total_token_usage": last.total_token_usage,
                    "last_token_usage": usage,
                    "model_context_window": last.model_context_window,
                },
                "rate_limits": null,
            }),
        };
        Ok(Some(serde_json::to_vec(&line)?))
    }
}

/// The sites of one response item at `prefix`.
fn item_sites(item: &Value, prefix: &[Step], out: &mut Vec<Site>) {
    let at = |name: &'static str| under(prefix, [key(name)]);
    let arguments = |name: &'static str, shape: Shape| {
        let Some(Value::String(text)) = item.get(name) else {
            return None;
        };
        Some(Site {
            kind: Kind::Arguments,
            path: at(name),
            shape,
            call_id: string(item, "call_id"),
            tool: string(item, "name"),
            text: text.clone(),
            companions: Vec::new(),
        })
    };
    match item.get("type").and_then(Value::as_str) {
        Some("function_call_output" | "custom_tool_call_output") => {
            let Some((text, shape)) = output_text(item.get("output").unwrap_or(&Value::Null))
            else {
                return;
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
        Some("function_call") => out.extend(arguments("arguments", Shape::EncodedArguments)),
        Some("custom_tool_call") => out.extend(arguments("input", Shape::String)),
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

/// A call output's text and shape; `None` for a missing (`null`) output.
fn output_text(output: &Value) -> Option<(String, Shape)> {
    Some(match output {
        Value::Array(_) => content_text(output, "input_text")
            .unwrap_or((String::new(), Shape::Parts("input_text"))),
        Value::String(text) => (text.clone(), Shape::String),
        Value::Null => return None,
        // `{content, success}` (older builds) or one content item: a string is what every
        // build accepts.
        other => (
            other
                .get("content")
                .or_else(|| other.get("text"))
                .and_then(Value::as_str)
                .map_or_else(|| other.to_string(), str::to_owned),
            Shape::String,
        ),
    })
}

/// The figures of a `token_count` event's `info` a new one copies.
#[derive(Deserialize)]
struct Info<'r> {
    #[serde(borrow, default)]
    total_token_usage: Option<&'r RawValue>,
    #[serde(borrow, default)]
    model_context_window: Option<&'r RawValue>,
}

/// The `info` of the rollout's last `token_count` event, if it has one.
fn last_token_info<'r>(records: &[Record<'r>]) -> Option<Info<'r>> {
    #[derive(Deserialize)]
    struct Event<'r> {
        #[serde(borrow)]
        payload: Payload<'r>,
    }
    #[derive(Deserialize)]
    struct Payload<'r> {
        #[serde(rename = "type")]
        kind: Option<String>,
        #[serde(borrow, default)]
        info: Option<&'r RawValue>,
    }
    records.iter().rev().find_map(|record| {
        let event: Event = serde_json::from_slice(record.raw).ok()?;
        let info = event
            .payload
            .info
            .filter(|_| event.payload.kind.as_deref() == Some("token_count"))?;
        serde_json::from_str::<Info>(info.get()).ok()
    })
}

/// The `ordinal` after the rollout's last: newer rollouts number their lines, and Codex
/// refuses to resume one whose last line has none. `None` for a rollout that numbers none.
fn next_ordinal(records: &[Record]) -> Option<u64> {
    records
        .iter()
        .filter_map(|r| {
            let span = top_level_value(r.raw, "ordinal")?;
            std::str::from_utf8(&r.raw[span]).ok()?.parse::<u64>().ok()
        })
        .max()
        .map(|last| last + 1)
}
