//! Where prune may shrink an Anthropic message: a `tool_result` block's `content`, a
//! `tool_use` block's `input`, and `thinking` / `redacted_thinking` blocks, which are removed
//! whole. A plain list records no usage, so nothing is added after it.

use serde_json::Value;

use super::Anthropic;
use crate::transcript::json::Step;
use crate::transcript::prune::{
    content_text, key, string, thinking, under, Kind, Prune, Shape, Site,
};

impl Prune for Anthropic {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        message_sites(line, &[], false, out);
    }
}

/// An Anthropic message (`{role, content}`) at `prefix`; `one_block_lines` for Claude Code,
/// whose assistant lines hold one block each, so a thinking block takes its line with it.
pub(crate) fn message_sites(
    message: &Value,
    prefix: &[Step],
    one_block_lines: bool,
    out: &mut Vec<Site>,
) {
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
