//! Reading Anthropic Messages API messages, one per line.
//!
//! A line is `{"role": "user" | "assistant" | "system", "content": …}` where content is a string
//! or a list of content blocks (`text`, `thinking`, `redacted_thinking`, `tool_use`,
//! `tool_result`, `image`, `document`, server-tool blocks …). `system` is a request parameter
//! in the API, not a message, but emitters sometimes write it as a line, so it is accepted.
//! Tool results arrive inside user messages, as the API has them; there is no `tool` role. Each
//! names the call it answers: a `tool_result`'s `tool_use_id` is the `id` of a `tool_use`.
//!
//! Detection needs evidence only Anthropic content has (tool, thinking or sourced image blocks):
//! plain `role`/`content` text lines are just as valid OpenAI chat, and that reader, which is
//! detected after this one, handles them identically.

use std::borrow::Cow;

use anyhow::{bail, Result};
use serde::Deserialize;

use super::Anthropic;
use crate::tokens::{Family, Tokenizer};
use crate::transcript::blocks::{
    anthropic_parts, borrowed_str, deserialize_anthropic_content, AnthropicContent,
};
use crate::transcript::format::Format;
use crate::transcript::model::{Entry, Message, Record, Role};
use crate::transcript::sketch::Sketch;

/// One message line; every other field (`cache_control`, ids, …) is skipped unread.
#[derive(Deserialize)]
struct ApiMessage<'a> {
    #[serde(borrow, default, deserialize_with = "borrowed_str")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "deserialize_anthropic_content")]
    content: AnthropicContent<'a>,
}

impl Format for Anthropic {
    fn name(&self) -> &'static str {
        "an Anthropic-style message list"
    }

    /// Claude's family (a Messages API list is sent to a Claude model), the model's own where
    /// a line names one.
    fn default_tokenizer(&self, model: Option<&str>) -> Tokenizer {
        Tokenizer::Fast(model.map_or(Family::Claude, Family::of_model))
    }

    fn detect(&self, head: &[Sketch]) -> bool {
        let mut has_blocks = false;
        for line in head {
            // Any of these belongs to another format: OpenAI tool calls, or an envelope format
            // (Claude Code, pi, Codex …) whose lines carry a top-level `type`.
            let role = line.str("role");
            if line.has("tool_calls")
                || line.has("tool_call_id")
                || line.has("type")
                || role == Some("tool")
            {
                return false;
            }
            if matches!(role, Some("user" | "assistant")) {
                has_blocks = has_blocks || has_anthropic_blocks(line);
            }
        }
        has_blocks
    }

    fn read<'a>(&self, line: usize, text: &'a str) -> Result<Record<'a>> {
        let message: ApiMessage<'a> = serde_json::from_str(text)?;
        let Some(role_name) = message.role else {
            bail!("message has no \"role\"");
        };
        let role = match role_name.as_ref() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" => Role::System,
            // The value is not quoted: it is transcript text and may hold escape codes.
            _ => bail!("unknown role (expected user, assistant or system)"),
        };
        let parts = anthropic_parts(message.content);
        Ok(Record::new(
            line,
            text.as_bytes(),
            Entry::Message(Message::new(role, parts)),
        ))
    }
}

/// True when the line's `content` holds a block type that only Anthropic content uses.
fn has_anthropic_blocks(line: &Sketch) -> bool {
    let Some(blocks) = line.get("content").and_then(Sketch::as_array) else {
        return false;
    };
    blocks.iter().any(|block| match block.str("type") {
        Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking") => true,
        // OpenAI images are `image_url` parts; an `image` block with a `source` is Anthropic's.
        Some("image") => block.has("source"),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::model::testing::head;
    use crate::transcript::{MediaKind, Part};

    fn read(text: &str) -> Record<'_> {
        Anthropic.read(1, text).unwrap()
    }

    fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
        &record.message().unwrap().parts
    }

    #[test]
    fn reads_string_content() {
        let record = read(r#"{"role":"user","content":"hello"}"#);
        let message = record.message().unwrap();
        assert_eq!(message.role, Role::User);
        assert!(!message.sidechain);
        assert_eq!(message.parts, vec![Part::Text("hello".into())]);
        assert!(record.usage.is_none() && !record.compaction);
        // Plain strings borrow from the line.
        assert!(matches!(message.parts[0], Part::Text(ref text) if text.is_borrowed()));
    }

    #[test]
    fn reads_assistant_blocks() {
        let record = read(
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"c2ln"},{"type":"redacted_thinking","data":"eA=="},{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}}]}"#,
        );
        assert_eq!(record.message().unwrap().role, Role::Assistant);
        assert_eq!(
            parts(&record),
            [
                Part::Thinking("hmm".into()),
                Part::Thinking("".into()),
                Part::Text("Reading.".into()),
                Part::ToolCall {
                    id: Some("toolu_1".into()),
                    name: "Read".into(),
                    arguments: r#"{"file_path":"/a"}"#.into()
                },
            ]
        );
        assert_eq!(
            record.message().unwrap().call_ids().collect::<Vec<_>>(),
            ["toolu_1"]
        );
        assert!(matches!(
            parts(&record)[3],
            Part::ToolCall {
                id: Some(Cow::Borrowed(_)),
                ..
            }
        ));
    }

    #[test]
    fn reads_tool_results_and_images() {
        let record = read(
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"one"},{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"is_error":true},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}}]}"#,
        );
        assert_eq!(
            parts(&record),
            [
                Part::ToolResult {
                    call_id: Some("toolu_1".into()),
                    text: "one".into()
                },
                Part::ToolResult {
                    call_id: Some("toolu_2".into()),
                    text: "a\nb".into()
                },
                Part::Media(MediaKind::Image),
            ]
        );
        let message = record.message().unwrap();
        assert_eq!(message.call_id, None);
        assert_eq!(
            message.answered_ids().collect::<Vec<_>>(),
            ["toolu_1", "toolu_2"]
        );
    }

    #[test]
    fn server_tool_blocks_link_too() {
        let record = read(
            r#"{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"text","text":"found"}]},{"type":"tool_result","content":"no id"}]}"#,
        );
        let message = record.message().unwrap();
        assert_eq!(message.call_ids().collect::<Vec<_>>(), ["srvtoolu_1"]);
        assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["srvtoolu_1"]);
        assert_eq!(
            parts(&record)[2],
            Part::ToolResult {
                call_id: None,
                text: "no id".into()
            }
        );
    }

    #[test]
    fn tolerates_system_lines_and_empty_content() {
        let record = read(r#"{"role":"system","content":"Be brief."}"#);
        assert_eq!(record.message().unwrap().role, Role::System);
        assert!(parts(&read(r#"{"role":"assistant"}"#)).is_empty());
        assert!(parts(&read(r#"{"role":"assistant","content":null}"#)).is_empty());
    }

    #[test]
    fn rejects_missing_and_unknown_roles_without_quoting() {
        let missing = Anthropic.read(1, r#"{"content":"x"}"#).unwrap_err();
        assert_eq!(missing.to_string(), "message has no \"role\"");
        let unknown = Anthropic
            .read(1, r#"{"role":"\u001b[31mcritic","content":"x"}"#)
            .unwrap_err();
        assert!(!unknown.to_string().contains("critic"));
        // OpenAI's tool role is not an Anthropic message.
        assert!(Anthropic
            .read(1, r#"{"role":"tool","content":"x"}"#)
            .is_err());
    }

    #[test]
    fn data_errors_do_not_quote_the_value() {
        // Errors are worded (and values dropped) where every line is read: read::read_line.
        let bytes = br#"{"role":"user","content":["secret, expected text"]}"#;
        let line = crate::input::lines(bytes, 1).next().unwrap();
        let err =
            match crate::transcript::read::read_line(crate::transcript::FormatId::Anthropic, &line)
            {
                Err(crate::transcript::read::BadLine::Invalid(e)) => e.to_string(),
                other => panic!("{other:?}"),
            };
        assert!(!err.contains("secret"), "{err}");
        assert!(err.contains("expected"), "{err}");
        assert!(Anthropic.read(1, "{not json").is_err());
    }

    #[test]
    fn detects_anthropic_blocks() {
        assert!(Anthropic.detect(&head(&[
            r#"{"role":"user","content":"list files"}"#,
            r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"ls","input":{}}]}"#,
        ])));
        assert!(Anthropic.detect(&head(&[
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"s"}]}"#
        ])));
        assert!(Anthropic.detect(&head(&[
            r#"{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u"}}]}"#
        ])));
    }

    #[test]
    fn leaves_other_formats_alone() {
        // Plain text lines: OpenAI chat takes them.
        assert!(!Anthropic.detect(&head(&[r#"{"role":"user","content":"hi"}"#])));
        // An image without a source is not Anthropic evidence.
        assert!(!Anthropic.detect(&head(&[
            r#"{"role":"user","content":[{"type":"image","image":"x"}]}"#
        ])));
        // Block evidence on a system line does not count.
        assert!(!Anthropic.detect(&head(&[
            r#"{"role":"system","content":[{"type":"thinking","thinking":"x"}]}"#
        ])));
        let blocks = r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"ls","input":{}}]}"#;
        for other in [
            r#"{"role":"assistant","content":null,"tool_calls":[]}"#,
            r#"{"role":"tool","content":"x"}"#,
            r#"{"role":"user","content":"x","tool_call_id":"c"}"#,
            r#"{"type":"user","message":{"role":"user","content":"x"}}"#,
        ] {
            assert!(!Anthropic.detect(&head(&[blocks, other])), "{other}");
        }
        assert!(!Anthropic.detect(&head(&["[1]", "\"s\""])));
    }
}

/// What one message is in an Anthropic-style list: each line is one message of the request,
/// and a user message of `tool_result` blocks travels with the calls it answers
/// ([`Format::continues_message`]).
#[cfg(test)]
mod message_tests {
    use super::Anthropic;
    use crate::transcript::messages::testing::check;

    fn user(text: &str) -> String {
        format!(r#"{{"role":"user","content":[{{"type":"text","text":"{text}"}}]}}"#)
    }

    fn assistant(blocks: &[String]) -> String {
        format!(r#"{{"role":"assistant","content":[{}]}}"#, blocks.join(","))
    }

    fn text(text: &str) -> String {
        format!(r#"{{"type":"text","text":"{text}"}}"#)
    }

    fn call(id: &str) -> String {
        format!(r#"{{"type":"tool_use","id":"{id}","name":"Read","input":{{}}}}"#)
    }

    fn results(ids: &[&str]) -> String {
        let blocks: Vec<String> = ids
            .iter()
            .map(|id| format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}"#))
            .collect();
        format!(r#"{{"role":"user","content":[{}]}}"#, blocks.join(","))
    }

    #[test]
    fn a_message_of_any_number_of_blocks_is_one_message() {
        let blocks = [
            r#"{"type":"thinking","thinking":"hm","signature":"s"}"#.to_owned(),
            text("one"),
            text("two"),
            text("three"),
            text("four"),
        ];
        for fragments in [1, 2, 3, 5] {
            let lines = [
                user("old question"),
                assistant(&[text("old")]),
                user("the question"),
                assistant(&blocks[..fragments]),
            ];
            check(&Anthropic, &lines, &[0..1, 1..2, 2..3, 3..4]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_travel_with_their_results() {
        let lines = [
            user("read both"),
            assistant(&[call("c1"), call("c2")]),
            results(&["c1", "c2"]),
            assistant(&[call("task")]),
            results(&["task"]),
            assistant(&[text("done")]),
        ];
        check(&Anthropic, &lines, &[0..1, 1..3, 3..5, 5..6]);
    }
}
