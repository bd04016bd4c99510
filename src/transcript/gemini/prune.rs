//! Where prune may shrink a Gemini CLI session: a model turn's
//! `toolCalls[].result[].functionResponse.response` (and the call's `resultDisplay`, for the
//! interface), `toolCalls[].args`, and `thoughts[]`, which are removed; and a user record's
//! `functionResponse` parts.
//!
//! After the pruned file comes a `$set` of [`PRUNE_SET_KEY`] holding the sizes before and
//! after: metadata Gemini CLI never sends the model.

use anyhow::Result;
use serde_json::Value;

use super::Gemini;
use crate::transcript::json::Step;
use crate::transcript::prune::{key, string, thinking, Kind, Mark, Prune, Shape, Site};

/// The `$set` key `condense prune` writes: Gemini CLI merges a `$set` into the session's
/// metadata and never sends it to the model; condense reads it as
/// [`crate::transcript::model::Event::VoidUsage`] holding its `tokensAfter`: the `tokens`
/// recorded before it measured a context the prune made smaller.
pub(super) const PRUNE_SET_KEY: &str = "condensePrune";

impl Prune for Gemini {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        match line.get("type").and_then(Value::as_str) {
            Some("gemini") => model_turn_sites(line, out),
            Some("user") => user_sites(line, out),
            _ => {}
        }
    }

    fn marker(&self, prune: &Mark) -> Result<Option<Vec<u8>>> {
        let (before, after) = (prune.tokens_before, prune.tokens_after);
        Ok(Some(serde_json::to_vec(&serde_json::json!({
            "$set": { PRUNE_SET_KEY: { "tokensBefore": before, "tokensAfter": after } }
        }))?))
    }
}

/// A model turn's thoughts, and its calls' arguments and results.
fn model_turn_sites(line: &Value, out: &mut Vec<Site>) {
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
            let mut site = response_site(response, at(vec![key("result"), Step::Index(j)]));
            site.call_id = site.call_id.or_else(|| call_id.clone());
            site.tool = site.tool.or_else(|| name.clone());
            if call.get("resultDisplay").is_some() {
                site.companions.push(at(vec![key("resultDisplay")]));
            }
            out.push(site);
        }
    }
}

/// A user record's `functionResponse` parts.
fn user_sites(line: &Value, out: &mut Vec<Site>) {
    let Some(Value::Array(parts)) = line.get("content") else {
        return;
    };
    for (j, part) in parts.iter().enumerate() {
        if let Some(response) = part.get("functionResponse") {
            out.push(response_site(
                response,
                vec![key("content"), Step::Index(j)],
            ));
        }
    }
}

/// The result site of a `functionResponse` found at `at` (Qwen Code's parts hold them too).
pub(crate) fn response_site(response: &Value, at: Vec<Step>) -> Site {
    let path = at
        .into_iter()
        .chain([key("functionResponse"), key("response")])
        .collect();
    Site {
        kind: Kind::Result,
        path,
        shape: Shape::Output,
        call_id: string(response, "id"),
        tool: string(response, "name"),
        text: response_text(response.get("response")),
        companions: Vec::new(),
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
