//! Where prune may shrink a pi session: a `toolResult` message's `content` (and its `details`
//! copy, for pi's interface), a `toolCall` block's `arguments`, and `thinking` blocks, which are
//! removed whole.
//!
//! After the pruned file comes a `custom` entry of type [`PRUNE_CUSTOM_TYPE`] (extension state
//! pi never sends the model), hanging under the last entry in a v2/v3 session, holding the new
//! size.

use anyhow::Result;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::Pi;
use crate::transcript::json::{top_level_str, Step};
use crate::transcript::prune::{
    content_text, key, string, thinking, under, Kind, Mark, Prune, Shape, Site,
};
use crate::transcript::write::derived_uuid;

/// The `customType` of the `custom` entry `condense prune` appends: pi keeps a `custom` entry
/// (extension state) out of the model's context, and condense reads it as
/// [`crate::transcript::model::Event::VoidUsage`] holding its `data.tokensAfter`: the usage recorded before it measured
/// a context the prune made smaller.
pub(super) const PRUNE_CUSTOM_TYPE: &str = "condense-prune";

impl Prune for Pi {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        if let (Some("message"), Some(message)) = (
            line.get("type").and_then(Value::as_str),
            line.get("message"),
        ) {
            message_sites(message, out);
        }
    }

    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        custom_entry(prune).map(Some)
    }
}

/// The sites of an entry's agent message.
fn message_sites(message: &Value, out: &mut Vec<Site>) {
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
                let path = |rest: Option<&'static str>| {
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

/// A `custom` entry; in a v2/v3 session it gets an id and hangs under the last entry, as pi's
/// own `appendCustomEntry` does.
fn custom_entry(prune: &Mark) -> Result<Vec<u8>> {
    let leaf = prune
        .records
        .iter()
        .rev()
        .find_map(|r| top_level_str(r.raw, "id").filter(|_| r.link.id.is_some()));
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Entry<'r> {
        #[serde(rename = "type")]
        kind: &'static str,
        custom_type: &'static str,
        data: Data,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        parent_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<&'r RawValue>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Data {
        tokens_before: u64,
        tokens_after: u64,
    }
    let id = leaf
        .is_some()
        .then(|| derived_uuid(&prune.seed, "pi")[..8].to_owned());
    Ok(serde_json::to_vec(&Entry {
        kind: "custom",
        custom_type: PRUNE_CUSTOM_TYPE,
        data: Data {
            tokens_before: prune.tokens_before,
            tokens_after: prune.tokens_after,
        },
        id,
        parent_id: leaf,
        timestamp: prune.timestamp,
    })?)
}
