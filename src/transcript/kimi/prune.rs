//! Where prune may shrink a kimi-cli or OpenAI-style list: a `tool` message's `content`, a
//! call's `tool_calls[].function.arguments`, and thinking (`think` parts, which are removed,
//! and `reasoning_content`). After a pruned kimi-cli file comes a fresh `_usage` record, as
//! kimi-cli itself writes after every step, holding the new size; a plain OpenAI list records
//! no usage, so nothing is added.

use anyhow::Result;
use serde_json::Value;

use super::{is_kimi_file, Kimi};
use crate::transcript::json::Step;
use crate::transcript::prune::{
    content_text, key, string, thinking, Kind, Mark, Prune, Shape, Site,
};

impl Prune for Kimi {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        match line.get("role").and_then(Value::as_str) {
            Some("tool" | "function") => tool_sites(line, out),
            Some("assistant") => assistant_sites(line, out),
            _ => {}
        }
    }

    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        let after = prune.tokens_after;
        Ok(is_kimi_file(prune.records)
            .then(|| format!(r#"{{"role": "_usage", "token_count": {after}}}"#).into_bytes()))
    }
}

/// A `tool` message's body.
fn tool_sites(line: &Value, out: &mut Vec<Site>) {
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

/// An assistant message's thinking and its calls' arguments.
fn assistant_sites(line: &Value, out: &mut Vec<Site>) {
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
            let Some(arguments) = call.get("function").and_then(|f| f.get("arguments")) else {
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

#[cfg(test)]
mod tests {
    use crate::transcript::prune::{sites, Kind, Shape};

    use super::Kimi;

    #[test]
    fn tool_content_and_arguments() {
        let result = sites(
            &Kimi,
            br#"{"role":"tool","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"tool_call_id":"c1"}"#,
        );
        assert_eq!(result.len(), 1);
        assert_eq!(result[0].text, "a\nb");
        assert_eq!(result[0].shape, Shape::Parts("text"));
        assert_eq!(result[0].call_id.as_deref(), Some("c1"));
        let call = sites(
            &Kimi,
            br#"{"role":"assistant","content":[{"type":"think","think":"hm"}],"tool_calls":[{"id":"c1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}]}"#,
        );
        assert_eq!(call.len(), 2);
        assert_eq!(call[0].kind, Kind::Thinking);
        assert_eq!(call[1].tool.as_deref(), Some("Shell"));
        assert_eq!(call[1].shape, Shape::EncodedArguments);
    }
}
