//! Where prune may shrink a Copilot CLI session: a `tool.execution_complete`'s
//! `data.result.content` (what the model sees; `detailedContent`, the interface's copy, is
//! shrunk with it) and an `assistant.message`'s `data.toolRequests[].arguments`.
//!
//! Thinking is left as it is: Copilot keeps it three times on an answer (`reasoningText`,
//! `reasoningOpaque`, the signed `reasoningBlocks`), and which of them its native replay sends
//! when another is gone was not tried. condense reads no usage figure of Copilot's, so a prune
//! appends no marker.

use serde_json::Value;

use super::Copilot;
use crate::transcript::json::Step;
use crate::transcript::prune::{key, string, Kind, Prune, Shape, Site};

impl Prune for Copilot {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        let Some(data) = line.get("data") else {
            return;
        };
        match line.get("type").and_then(Value::as_str) {
            Some("tool.execution_complete") => {
                let Some(text) = data.pointer("/result/content").and_then(Value::as_str) else {
                    return;
                };
                let result = [key("data"), key("result")];
                out.push(Site {
                    kind: Kind::Result,
                    path: [&result[..], &[key("content")]].concat(),
                    shape: Shape::String,
                    call_id: string(data, "toolCallId"),
                    tool: None,
                    text: text.to_owned(),
                    companions: if data.pointer("/result/detailedContent").is_some() {
                        vec![[&result[..], &[key("detailedContent")]].concat()]
                    } else {
                        Vec::new()
                    },
                });
            }
            Some("assistant.message") => {
                let Some(Value::Array(calls)) = data.get("toolRequests") else {
                    return;
                };
                for (i, call) in calls.iter().enumerate() {
                    if let Some(arguments) = call.get("arguments") {
                        out.push(Site {
                            kind: Kind::Arguments,
                            path: vec![
                                key("data"),
                                key("toolRequests"),
                                Step::Index(i),
                                key("arguments"),
                            ],
                            shape: Shape::ObjectArguments,
                            call_id: string(call, "toolCallId"),
                            tool: string(call, "name"),
                            text: arguments.to_string(),
                            companions: Vec::new(),
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::prune::sites;

    #[test]
    fn results_and_arguments() {
        let result = sites(
            &Copilot,
            br#"{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"long","detailedContent":"diff"}}}"#,
        );
        assert_eq!(result.len(), 1);
        assert_eq!(result[0].kind, Kind::Result);
        assert_eq!(result[0].call_id.as_deref(), Some("c1"));
        assert_eq!(result[0].text, "long");
        assert_eq!(result[0].companions.len(), 1);
        let calls = sites(
            &Copilot,
            br#"{"type":"assistant.message","data":{"content":"","toolRequests":[{"toolCallId":"c1","name":"view","arguments":{"path":"/a"}}],"reasoningText":"r"}}"#,
        );
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].kind, Kind::Arguments);
        assert_eq!(calls[0].tool.as_deref(), Some("view"));
    }
}
