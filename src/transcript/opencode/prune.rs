//! Where prune may shrink an opencode session: a completed `tool` part's `state.output` (what
//! the model is sent) and its `state.input` (the call's arguments), and `reasoning` parts,
//! removed whole. opencode's own prune (`SessionCompaction.prune`) marks an output
//! `state.time.compacted` instead and sends a fixed text for it; condense's placeholder keeps
//! the start of the output, so it edits the output itself. No marker is appended: the usage
//! opencode records is per step, and its next step records a new one.

use serde_json::Value;

use super::OpenCode;
use crate::transcript::json::Step;
use crate::transcript::prune::{key, string, thinking, Kind, Prune, Shape, Site};

impl Prune for OpenCode {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        let Some(Value::Array(parts)) = line.get("parts") else {
            return;
        };
        for (i, part) in parts.iter().enumerate() {
            let at = |rest: &[&'static str]| -> Vec<Step> {
                let mut path = vec![key("parts"), Step::Index(i)];
                path.extend(rest.iter().map(|name| key(name)));
                path
            };
            match part.get("type").and_then(Value::as_str) {
                Some("tool") => {
                    let Some(state) = part.get("state") else {
                        continue;
                    };
                    let call_id = string(part, "callID");
                    let tool = string(part, "tool");
                    if let Some(input) = state.get("input") {
                        out.push(Site {
                            kind: Kind::Arguments,
                            path: at(&["state", "input"]),
                            shape: Shape::ObjectArguments,
                            call_id: call_id.clone(),
                            tool: tool.clone(),
                            text: input.to_string(),
                            companions: Vec::new(),
                        });
                    }
                    let completed =
                        state.get("status").and_then(Value::as_str) == Some("completed");
                    if let (true, Some(output)) =
                        (completed, state.get("output").and_then(Value::as_str))
                    {
                        out.push(Site {
                            kind: Kind::Result,
                            path: at(&["state", "output"]),
                            shape: Shape::String,
                            call_id,
                            tool,
                            text: output.to_owned(),
                            companions: Vec::new(),
                        });
                    }
                }
                Some("reasoning") => {
                    let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
                    out.push(thinking(
                        vec![key("parts"), Step::Index(i)],
                        Shape::Remove,
                        text,
                    ));
                }
                _ => {}
            }
        }
    }
}
