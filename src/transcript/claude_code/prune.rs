//! Where prune may shrink a Claude Code session: its messages are Anthropic's (see
//! [`crate::transcript::anthropic`]), under `message`, and a tool result's body has a copy in
//! the line's top-level `toolUseResult`, shrunk with it. An assistant line holds one content
//! block, so a thinking block takes its whole line with it (the lines under it are relinked to
//! its parent, see [`crate::transcript::prune::rewrite`]).
//!
//! After the pruned file comes a `microcompact_boundary` system line, as Claude Code writes
//! when it clears old tool results itself (`trigger` `manual`, `preTokens`, `tokensSaved`,
//! `postTokens`, `compactedToolIds`), hanging under the live context's last line: condense
//! reads its `postTokens` as the context's size from there on.

use anyhow::Result;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::compact::{copied, Envelope};
use super::ClaudeCode;
use crate::transcript::anthropic::prune::message_sites;
use crate::transcript::json::top_level_value;
use crate::transcript::prune::{key, Kind, Mark, Prune, Site};
use crate::transcript::write::derived_uuid;

impl Prune for ClaudeCode {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        let is_message = matches!(
            line.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        );
        let (true, Some(message)) = (is_message, line.get("message")) else {
            return;
        };
        message_sites(message, &[key("message")], true, out);
        if line.get("toolUseResult").is_some() {
            for site in out.iter_mut().filter(|s| s.kind == Kind::Result) {
                site.companions.push(vec![key("toolUseResult")]);
            }
        }
    }

    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        microcompact_boundary(prune).map(Some)
    }
}

/// A `microcompact_boundary` line hanging under the live context's last line, with that
/// line's envelope.
fn microcompact_boundary(prune: &Mark) -> Result<Vec<u8>> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Line<'r> {
        parent_uuid: Option<&'r RawValue>,
        is_sidechain: bool,
        #[serde(flatten)]
        envelope: Envelope<'r>,
        #[serde(rename = "type")]
        kind: &'static str,
        subtype: &'static str,
        content: &'static str,
        is_meta: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        timestamp: Option<&'r RawValue>,
        uuid: String,
        level: &'static str,
        microcompact_metadata: Metadata<'r>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Metadata<'r> {
        trigger: &'static str,
        pre_tokens: u64,
        tokens_saved: u64,
        post_tokens: u64,
        compacted_tool_ids: &'r [&'r str],
        #[serde(rename = "clearedAttachmentUUIDs")]
        cleared_attachment_uuids: [u8; 0],
    }
    let (before, after) = (prune.tokens_before, prune.tokens_after);
    let source = prune
        .context
        .iter()
        .rev()
        .map(|&i| prune.records[i].raw)
        .find(|raw| top_level_value(raw, "uuid").is_some());
    let line = Line {
        parent_uuid: copied(source, "uuid")?,
        is_sidechain: false,
        envelope: Envelope::of(source)?,
        kind: "system",
        subtype: "microcompact_boundary",
        content: "Context microcompacted",
        is_meta: false,
        timestamp: prune.timestamp,
        uuid: derived_uuid(&prune.seed, "microcompact"),
        level: "info",
        microcompact_metadata: Metadata {
            trigger: "manual",
            pre_tokens: before,
            tokens_saved: before.saturating_sub(after),
            post_tokens: after,
            compacted_tool_ids: prune.pruned_ids,
            cleared_attachment_uuids: [],
        },
    };
    Ok(serde_json::to_vec(&line)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::json::value_at;
    use crate::transcript::prune::{sites, Shape};

    #[test]
    fn results_carry_their_companion_and_thinking_takes_its_line() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]},"toolUseResult":{"stdout":"out"}}"#;
        let found = sites(&ClaudeCode, line.as_bytes());
        assert_eq!(found[0].companions, vec![vec![key("toolUseResult")]]);
        let span = value_at(line.as_bytes(), &found[0].path).unwrap();
        assert_eq!(&line[span], r#""out""#);
        let thought = sites(
            &ClaudeCode,
            br#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x","signature":"s"}]}}"#,
        );
        assert_eq!(thought[0].shape, Shape::DropLine);
    }
}
