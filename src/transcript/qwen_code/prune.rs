//! Where prune may shrink a Qwen Code session: the parts of a record's `message` and of a
//! compression's `systemPayload.compressedHistory` entries, Gemini `Content` all of them:
//! `functionResponse.response` (found as Gemini CLI's are, with a `tool_result` record's
//! `toolCallResult.resultDisplay` for the interface), `functionCall.args`, and thought parts,
//! removed whole.
//!
//! No marker follows a prune. Qwen Code validates every record's subtype against its own list
//! (`packages/core/src/utils/transcript-records.ts`, `validateTranscriptRecord`,
//! `KNOWN_RECORD_SUBTYPES`) and has none that says the usage before it is void; its resume
//! starts from the last `usageMetadata.promptTokenCount` either way
//! (`session-resume-token-counts.ts`), and until its next turn `estimate` reports that figure
//! too.

use serde_json::Value;

use super::QwenCode;
use crate::transcript::gemini::prune::response_site;
use crate::transcript::json::Step;
use crate::transcript::prune::{key, string, thinking, under, Kind, Prune, Shape, Site};

impl Prune for QwenCode {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        if let Some(message) = line.get("message") {
            let display = line
                .pointer("/toolCallResult/resultDisplay")
                .map(|_| vec![key("toolCallResult"), key("resultDisplay")]);
            content_sites(message, &[key("message")], display, out);
        }
        if let Some(Value::Array(history)) = line.pointer("/systemPayload/compressedHistory") {
            for (i, content) in history.iter().enumerate() {
                let at = [
                    key("systemPayload"),
                    key("compressedHistory"),
                    Step::Index(i),
                ];
                content_sites(content, &at, None, out);
            }
        }
    }
}

/// The sites of one `Content` at `at`: its results (with `display` beside them), its calls'
/// arguments, its thoughts.
fn content_sites(content: &Value, at: &[Step], display: Option<Vec<Step>>, out: &mut Vec<Site>) {
    let Some(Value::Array(parts)) = content.get("parts") else {
        return;
    };
    for (j, part) in parts.iter().enumerate() {
        let path = under(at, [key("parts"), Step::Index(j)]);
        if let Some(response) = part.get("functionResponse") {
            let mut site = response_site(response, path);
            site.companions.extend(display.clone());
            out.push(site);
        } else if let Some(call) = part.get("functionCall") {
            if let Some(args) = call.get("args") {
                out.push(Site {
                    kind: Kind::Arguments,
                    path: under(&path, [key("functionCall"), key("args")]),
                    shape: Shape::ObjectArguments,
                    call_id: string(call, "id"),
                    tool: string(call, "name"),
                    text: args.to_string(),
                    companions: Vec::new(),
                });
            }
        } else if part.get("thought").and_then(Value::as_bool) == Some(true) {
            let text = part.get("text").and_then(Value::as_str).unwrap_or_default();
            out.push(thinking(path, Shape::Remove, text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::prune::sites;

    #[test]
    fn results_arguments_and_thoughts() {
        let result = br#"{"uuid":"r","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"body"}}}]},"toolCallResult":{"callId":"c1","resultDisplay":"body"}}"#;
        let found = sites(&QwenCode, result);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, Kind::Result);
        assert_eq!(found[0].text, "body");
        assert_eq!(found[0].call_id.as_deref(), Some("c1"));
        assert_eq!(
            found[0].path,
            [
                key("message"),
                key("parts"),
                Step::Index(0),
                key("functionResponse"),
                key("response")
            ]
        );
        assert_eq!(
            found[0].companions,
            [vec![key("toolCallResult"), key("resultDisplay")]]
        );
        let call = br#"{"uuid":"a","type":"assistant","message":{"role":"model","parts":[{"text":"hm","thought":true},{"functionCall":{"id":"c1","name":"read_file","args":{"file_path":"x"}}}]}}"#;
        let found = sites(&QwenCode, call);
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].kind.clone(), found[0].shape),
            (Kind::Thinking, Shape::Remove)
        );
        assert_eq!(found[1].kind, Kind::Arguments);
        let compression = br#"{"uuid":"c","type":"system","subtype":"chat_compression","systemPayload":{"compressedHistory":[{"role":"user","parts":[{"text":"S"}]},{"role":"user","parts":[{"functionResponse":{"id":"c2","response":{"output":"o"}}}]}]}}"#;
        let found = sites(&QwenCode, compression);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path[2], Step::Index(1));
    }
}
