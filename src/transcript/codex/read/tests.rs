//! Reading Codex rollouts: every line shape, the walk against serde, the corpus.

use std::borrow::Cow;

use super::items::{record_of, unknown_item};
use super::shape::Line;
use super::*;
use crate::transcript::model::testing;
use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};
use crate::transcript::model::{Entry, MediaKind, Part, Role, Usage};

fn read(text: &str) -> Record<'_> {
    Codex.read(1, text).unwrap()
}

/// What [`Codex::read`] made of a line before the walk: serde's reading, with the same
/// fallback for response items of unknown shape, its error as text.
fn by_serde(line: usize, text: &str) -> Result<Record<'_>, String> {
    Line::parse(text)
        .and_then(|read| record_of(line, text, read))
        .or_else(|error| unknown_item(line, text).ok_or(error))
        .map_err(|error| error.to_string())
}

/// [`by_serde`] with the walk in serde's place; `None` when the walk gives up.
fn by_walk(line: usize, text: &str) -> Option<Result<Record<'_>, String>> {
    let read = Line::walk(text)?;
    Some(
        record_of(line, text, read)
            .or_else(|error| unknown_item(line, text).ok_or(error))
            .map_err(|error| error.to_string()),
    )
}

#[test]
fn walking_a_line_reads_what_serde_reads_on_every_real_line() {
    let files = [
        "fixtures/corpus/codex/agent-sessions-small.jsonl",
        "fixtures/agents/codex-compacted.jsonl",
        "fixtures/agents/codex-turns.jsonl",
    ];
    let (mut walked, mut lines) = (0, 0);
    for file in files {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in text.lines().enumerate() {
            lines += 1;
            let serde = by_serde(n + 1, line);
            let read = Codex.read(n + 1, line).map_err(|error| error.to_string());
            assert_eq!(read, serde, "{file}:{}", n + 1);
            if let Some(walk) = by_walk(n + 1, line) {
                assert_eq!(walk, serde, "{file}:{}", n + 1);
                walked += 1;
            }
        }
    }
    // Every line of these files is one the walk can follow: none would fall back to serde.
    assert!(lines > 200 && walked == lines, "{walked} of {lines}");
}

#[test]
fn a_line_the_walk_gives_up_on_is_read_by_serde() {
    let message =
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a"}]}"#;
    for line in [
        // Repeated fields: serde keeps the last envelope `type`, refuses a repeated item
        // field, and ignores a repeated field it does not read.
        item(r#"{"type":"message","role":"user","role":"user","content":[]}"#),
        format!(r#"{{"type":"event_msg","type":"response_item","payload":{message}}}"#),
        item(r#"{"type":"reasoning","summary":[],"summary":[],"encrypted_content":"x"}"#),
        item(r#"{"type":"function_call_output","output":{"type":"input_text","type":"x"}}"#),
        // Escaped keys, which serde decodes.
        format!(r#"{{"ty\u0070e":"response_item","payload":{message}}}"#),
        item(r#"{"type":"message","r\u006fle":"user","content":[]}"#),
        item(r#"{"type":"message","role":"user","content":[{"t\u0065xt":"a"}]}"#),
        // Shapes serde refuses.
        item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":1}]}"#),
        item(r#"{"type":"message","role":"user","content":{"text":"a"}}"#),
        item(r#"{"type":"message","role":7,"content":[]}"#),
        item(r#"{"type":"function_call","name":"f","call_id":["c"]}"#),
        item(r#"{"type":"brand_new","content":{"odd":1}}"#),
        r#"{"type":7,"payload":{}}"#.to_owned(),
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":["token_count"]}}"#.to_owned(),
        r#"{"type":"compacted","payload":{"message":"S","replacement_history":{}}}"#.to_owned(),
        r#"{"type":"compacted","payload":{"message":"S","replacement_history":[null]}}"#.to_owned(),
        item(r#"{"type":"message","role":"user","content":"bad \q"}"#),
        // Shapes serde reads by a path of its own: a struct written as an array, a number
        // for an output.
        item(r#"["message","user"]"#),
        item(r#"{"type":"message","role":"user","content":[["input_text","a"]]}"#),
        item(r#"{"type":"function_call_output","call_id":"c","output":7}"#),
        // Not one JSON value.
        format!(r#"{{"type":"response_item","payload":{message}}} x"#),
        r#"{"type":"response_item","payload":{"type":"mess"#.to_owned(),
    ] {
        assert!(Line::walk(&line).is_none(), "{line}");
        let read = Codex.read(1, &line).map_err(|error| error.to_string());
        assert_eq!(read, by_serde(1, &line), "{line}");
    }
}

#[test]
fn the_walk_reads_every_layout_as_serde_does() {
    let message =
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"a\nb"}]}"#;
    for line in [
        // Payload before type, and an envelope type without a payload.
        format!(r#"{{"payload":{message},"type":"response_item","timestamp":"t"}}"#),
        r#"{"payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":5}}},"type":"event_msg"}"#.to_owned(),
        r#"{"payload":[1,{"a":"}"}],"type":"world_state"}"#.to_owned(),
        r#"{"timestamp":"t","type":"response_item"}"#.to_owned(),
        r#"{"timestamp":"t","payload":{"type":"message"}}"#.to_owned(),
        // The legacy layout: a header, a state line, a bare item.
        r#"{"id":"s","timestamp":"t","instructions":null,"git":{"branch":"main"}}"#.to_owned(),
        r#"{"record_type":"state"}"#.to_owned(),
        format!(" {message} "),
        // Outputs in every shape, and values serde reads as none.
        item(r#"{"type":"function_call_output","call_id":"c","output":true}"#),
        item(r#"{"type":"function_call_output","call_id":null,"output":null}"#),
        item(r#"{"type":"custom_tool_call_output","output":{"content":[{"type":"input_text","text":"x"}]}}"#),
        item(r#"{"type":"custom_tool_call_output","output":{"content":"x","text":"y"}}"#),
        item(r#"{"type":"image_generation_call","result":null}"#),
        item(r#"{"type":"reasoning","summary":"s","content":"c\u00e9","encrypted_content":null}"#),
        item(r#"{"type":"function_call","name":"f","arguments":"{\"a\":\"\\u00e9\"}","call_id":"c"}"#),
        item(r#"{"type":"message","role":"user","content":null}"#),
        // A repeated field neither reads is ignored by both.
        item(r#"{"type":"ghost_snapshot","x":1,"x":2}"#),
        r#"{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":2}}"#.to_owned(),
        r#"{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":1.5e3}}}}"#.to_owned(),
        // Errors after reading, which both report alike.
        item(r#"{"type":"message","role":"critic","content":[]}"#),
        item(r#"{"role":"user","content":[]}"#),
    ] {
        let walk = by_walk(1, &line).unwrap_or_else(|| panic!("{line}"));
        assert_eq!(walk, by_serde(1, &line), "{line}");
    }
}

fn parts<'a>(record: &'a Record<'_>) -> &'a [Part<'a>] {
    &record.message().unwrap().parts
}

fn role(record: &Record<'_>) -> Role {
    record.message().unwrap().role
}

fn bookkeeping(record: &Record<'_>) -> String {
    match &record.entry {
        Entry::Bookkeeping(name) => name.to_string(),
        Entry::Message(_) => panic!("a message, not bookkeeping"),
    }
}

fn item(payload: &str) -> String {
    format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
}

#[test]
fn reads_messages_by_role() {
    let line = item(
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files"},{"type":"input_image","image_url":"data:image/png;base64,AAA"}]}"#,
    );
    let record = read(&line);
    assert_eq!(role(&record), Role::User);
    assert_eq!(
        parts(&record),
        [
            Part::Text("List the files".into()),
            Part::Media(MediaKind::Image)
        ]
    );
    assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
    let assistant = item(
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}"#,
    );
    assert_eq!(role(&read(&assistant)), Role::Assistant);
    for system in ["developer", "system"] {
        let line = item(&format!(
            r#"{{"type":"message","role":"{system}","content":[{{"type":"input_text","text":"x"}}]}}"#
        ));
        assert_eq!(role(&read(&line)), Role::System);
    }
}

#[test]
fn reads_reasoning() {
    let line = item(
        r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}],"content":[{"type":"reasoning_text","text":"deep"}],"encrypted_content":"gAAAA"}"#,
    );
    let record = read(&line);
    assert_eq!(role(&record), Role::Assistant);
    assert_eq!(
        parts(&record),
        [Part::Thinking("plan".into()), Part::Thinking("deep".into())]
    );
    let encrypted =
        item(r#"{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAAA"}"#);
    assert_eq!(parts(&read(&encrypted)), [Part::Thinking("".into())]);
}

#[test]
fn reads_tool_calls() {
    let function = item(
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}"#,
    );
    assert_eq!(
        parts(&read(&function)),
        [Part::ToolCall {
            id: Some("c1".into()),
            name: "shell".into(),
            arguments: r#"{"command":["ls"]}"#.into()
        }]
    );
    let custom = item(
        r#"{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch"}"#,
    );
    assert_eq!(
        parts(&read(&custom)),
        [Part::ToolCall {
            id: Some("c2".into()),
            name: "apply_patch".into(),
            arguments: "*** Begin Patch".into()
        }]
    );
    let shell = item(
        r#"{"type":"local_shell_call","call_id":"c3","status":"completed","action":{"type":"exec","command":["ls"]}}"#,
    );
    assert_eq!(
        parts(&read(&shell)),
        [Part::ToolCall {
            id: Some("c3".into()),
            name: "local_shell".into(),
            arguments: r#"{"type":"exec","command":["ls"]}"#.into()
        }]
    );
    // A local shell call without `call_id` is known by its `id`, as Codex does.
    let by_id = item(
        r#"{"type":"local_shell_call","id":"ls_1","call_id":null,"status":"completed","action":{"type":"exec","command":["ls"]}}"#,
    );
    assert_eq!(
        read(&by_id)
            .message()
            .unwrap()
            .call_ids()
            .collect::<Vec<_>>(),
        ["ls_1"]
    );
    // `arguments: null` is seen in real files.
    let null = item(r#"{"type":"function_call","name":"f","arguments":null,"call_id":"c"}"#);
    assert_eq!(
        parts(&read(&null)),
        [Part::ToolCall {
            id: Some("c".into()),
            name: "f".into(),
            arguments: "".into()
        }]
    );
    // Other items' own ids are not call ids, and the call id borrows from the line.
    let with_id = item(r#"{"type":"function_call","id":"fc_1","name":"f","call_id":"c"}"#);
    let record = read(&with_id);
    assert_eq!(
        record.message().unwrap().call_ids().collect::<Vec<_>>(),
        ["c"]
    );
    assert!(matches!(
        parts(&record)[0],
        Part::ToolCall {
            id: Some(Cow::Borrowed(_)),
            ..
        }
    ));
}

#[test]
fn reads_tool_outputs_in_every_shape() {
    let string = item(r#"{"type":"function_call_output","call_id":"c","output":"a.txt\n"}"#);
    let record = read(&string);
    assert_eq!(role(&record), Role::Tool);
    assert_eq!(
        parts(&record),
        [Part::ToolResult {
            call_id: Some("c".into()),
            text: "a.txt\n".into()
        }]
    );
    // The id is on the result part; the message itself is not keyed.
    let message = record.message().unwrap();
    assert_eq!(message.call_id, None);
    assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["c"]);
    let list = item(
        r#"{"type":"custom_tool_call_output","call_id":"c","output":[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:"},{"type":"input_text","text":"b"}]}"#,
    );
    assert_eq!(
        parts(&read(&list)),
        [
            Part::ToolResult {
                call_id: Some("c".into()),
                text: "a\nb".into()
            },
            Part::Media(MediaKind::Image)
        ]
    );
    let object = item(
        r#"{"type":"function_call_output","call_id":"c","output":{"type":"input_text","text":"one","detail":null}}"#,
    );
    assert_eq!(
        parts(&read(&object)),
        [Part::ToolResult {
            call_id: Some("c".into()),
            text: "one".into()
        }]
    );
    let wrapped = item(
        r#"{"type":"function_call_output","call_id":"c","output":{"content":"failed","success":false}}"#,
    );
    assert_eq!(
        parts(&read(&wrapped)),
        [Part::ToolResult {
            call_id: Some("c".into()),
            text: "failed".into()
        }]
    );
    let absent = item(r#"{"type":"function_call_output","output":null}"#);
    assert_eq!(
        parts(&read(&absent)),
        [Part::ToolResult {
            call_id: None,
            text: "".into()
        }]
    );
}

#[test]
fn reads_hosted_tools_and_agent_messages() {
    let search = item(
        r#"{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}"#,
    );
    assert_eq!(
        parts(&read(&search)),
        [Part::ToolCall {
            id: None,
            name: "web_search".into(),
            arguments: r#"{"type":"search","query":"q"}"#.into()
        }]
    );
    let tool_search =
        item(r#"{"type":"tool_search_call","call_id":"c","arguments":{"query":"x"}}"#);
    assert_eq!(
        parts(&read(&tool_search)),
        [Part::ToolCall {
            id: Some("c".into()),
            name: "tool_search".into(),
            arguments: r#"{"query":"x"}"#.into()
        }]
    );
    let found = item(r#"{"type":"tool_search_output","call_id":"c","tools":[{"name":"t"}]}"#);
    let record = read(&found);
    assert_eq!(role(&record), Role::Tool);
    assert_eq!(
        parts(&record),
        [Part::ToolResult {
            call_id: Some("c".into()),
            text: r#"[{"name":"t"}]"#.into()
        }]
    );
    let image = item(r#"{"type":"image_generation_call","status":"done","result":"iVBOR"}"#);
    assert_eq!(parts(&read(&image)), [Part::Media(MediaKind::Image)]);
    let agent = item(
        r#"{"type":"agent_message","author":"a","recipient":"b","content":[{"type":"input_text","text":"hi"},{"type":"encrypted_content","encrypted_content":"x"}]}"#,
    );
    let record = read(&agent);
    assert_eq!(role(&record), Role::User);
    assert_eq!(parts(&record), [Part::Text("hi".into())]);
}

#[test]
fn harness_items_are_bookkeeping() {
    let cases = [
        (
            item(r#"{"type":"ghost_snapshot","ghost_commit":{"id":"g"}}"#),
            "response_item/ghost_snapshot",
        ),
        (
            item(r#"{"type":"compaction","encrypted_content":"x"}"#),
            "response_item/compaction",
        ),
        (
            item(r#"{"type":"compaction_summary","encrypted_content":"x"}"#),
            "response_item/compaction_summary",
        ),
        (
            item(r#"{"type":"brand_new","id":"x"}"#),
            "response_item/brand_new",
        ),
        // Unknown types may shape known field names differently; they stay bookkeeping.
        (
            item(r#"{"type":"brand_new","content":{"odd":1},"output":7}"#),
            "response_item/brand_new",
        ),
        (
            r#"{"type":"brand_new","summary":{"odd":1}}"#.to_owned(),
            "response_item/brand_new",
        ),
        (
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/"}}"#.to_owned(),
            "session_meta",
        ),
        (
            r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/","model":"m"}}"#.to_owned(),
            "turn_context",
        ),
        (
            r#"{"timestamp":"t","ordinal":3,"type":"world_state","payload":{"full":true}}"#.to_owned(),
            "world_state",
        ),
        (
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}"#.to_owned(),
            "event_msg/agent_message",
        ),
    ];
    for (line, name) in cases {
        let record = read(&line);
        assert_eq!(bookkeeping(&record), name);
        assert!(record.usage.is_none() && !record.compaction);
    }
}

#[test]
fn token_count_events_carry_the_context_size() {
    let record = read(
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":99999},"last_token_usage":{"input_tokens":16341,"output_tokens":81,"total_tokens":16422},"model_context_window":258400},"rate_limits":{}}}"#,
    );
    assert_eq!(bookkeeping(&record), "event_msg/token_count");
    assert_eq!(
        record.usage,
        Some(Usage {
            context_tokens: 16422,
            response_key: None
        })
    );
    for info in [
        "null",
        r#"{"last_token_usage":{"total_tokens":0}}"#,
        r#"{"last_token_usage":{"total_tokens":"many"}}"#,
        r#""text""#,
    ] {
        let line = format!(
            r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{info}}}}}"#
        );
        assert!(read(&line).usage.is_none(), "{info}");
    }
    // Another event may use `info` for anything.
    let other = read(r#"{"timestamp":"t","type":"event_msg","payload":{"type":"x","info":"y"}}"#);
    assert!(other.usage.is_none());
}

#[test]
fn compacted_is_a_compaction_with_the_new_context() {
    let legacy = read(
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"Summary text","replacement_history":null}}"#,
    );
    assert!(legacy.compaction);
    assert_eq!(role(&legacy), Role::User);
    assert_eq!(parts(&legacy), [Part::Text("Summary text".into())]);

    let local = read(
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"S","replacement_history":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"perms"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"},{"type":"input_image","image_url":"u"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"S"}]},{"type":"ghost_snapshot","ghost_commit":{}}]}}"#,
    );
    assert!(local.compaction);
    // The summary is in the history already, so it is not repeated in front.
    assert_eq!(
        parts(&local),
        [
            Part::Text("perms".into()),
            Part::Text("ask".into()),
            Part::Media(MediaKind::Image),
            Part::Text("S".into()),
        ]
    );

    let remote = read(
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"}]},{"type":"compaction","encrypted_content":"x"}],"window_number":2}}"#,
    );
    assert_eq!(parts(&remote), [Part::Text("ask".into())]);

    let other = read(
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"S","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_text","text":"ask"}]}]}}"#,
    );
    assert_eq!(
        parts(&other),
        [Part::Text("S".into()), Part::Text("ask".into())]
    );
}

#[test]
fn payload_before_type_is_read_the_same() {
    let line = r#"{"payload":{"type":"function_call","name":"f","arguments":"{}"},"type":"response_item","timestamp":"t"}"#;
    assert_eq!(
        parts(&read(line)),
        [Part::ToolCall {
            id: None,
            name: "f".into(),
            arguments: "{}".into()
        }]
    );
    let event = r#"{"payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":5}}},"type":"event_msg"}"#;
    assert_eq!(read(event).usage.map(|u| u.context_tokens), Some(5));
}

#[test]
fn reads_the_legacy_bare_layout() {
    let header = read(
        r#"{"id":"5973b6c0","timestamp":"2025-08-01T00:00:00Z","instructions":null,"git":{"branch":"main"}}"#,
    );
    assert_eq!(bookkeeping(&header), "session_meta");
    assert_eq!(
        bookkeeping(&read(r#"{"record_type":"state"}"#)),
        "record_type/state"
    );
    let message = read(
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}"#,
    );
    assert_eq!(
        parts(&message),
        [Part::Text("<environment_context>".into())]
    );
    let call = read(r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c"}"#);
    assert_eq!(role(&call), Role::Assistant);
    assert_eq!(
        bookkeeping(&read(r#"{"type":"ghost_snapshot","ghost_commit":{}}"#)),
        "response_item/ghost_snapshot"
    );
}

#[test]
fn errors_do_not_quote_the_line() {
    let no_type = Codex
        .read(1, r#"{"timestamp":"t","payload":{"type":"message"}}"#)
        .unwrap_err();
    assert_eq!(no_type.to_string(), "line has no \"type\"");
    assert!(Codex.read(1, r#"{"role":"user"}"#).is_err());
    let role = Codex
        .read(
            1,
            &item(r#"{"type":"message","role":"\u001b[31mcritic","content":[]}"#),
        )
        .unwrap_err()
        .to_string();
    assert!(!role.contains("critic"), "{role}");
    assert!(Codex
        .read(1, &item(r#"{"type":"message","content":[]}"#))
        .is_err());
    let shape = Codex
        .read(
            1,
            &item(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":["secret"]}]}"#),
        )
        .unwrap_err()
        .to_string();
    assert!(!shape.contains("secret"), "{shape}");
    assert!(Codex.read(1, &item("[1]")).is_err());
    assert!(Codex.read(1, "{\"type\":").is_err());
    // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
    // recognises on an unterminated last line.
    let cut = Codex
        .read(
            1,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"mess"#,
        )
        .unwrap_err();
    assert!(cut
        .downcast_ref::<serde_json::Error>()
        .is_some_and(serde_json::Error::is_eof));
}

#[test]
fn detection() {
    assert!(Codex.detect(&head(&[
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/","originator":"codex_cli_rs"}}"#
    ])));
    assert!(Codex.detect(&head(&[
        r#"{"id":"s","timestamp":"t","instructions":null}"#,
        r#"{"type":"message","role":"user","content":[]}"#,
    ])));
    assert!(Codex.detect(&head(&[
        r#"{"type":"message","role":"user","content":[]}"#,
        r#"{"record_type":"state"}"#,
    ])));
    // A session_meta without identity, or a legacy header that is not first, is not enough.
    assert!(!Codex.detect(&head(&[
        r#"{"timestamp":"t","type":"session_meta","payload":{"cwd":"/"}}"#
    ])));
    assert!(!Codex.detect(&head(&[
        r#"{"role":"user","content":"x"}"#,
        r#"{"id":"s","timestamp":"t","instructions":null}"#,
    ])));
    assert!(!Codex.detect(&head(&[r#"{"role":"user","content":"x"}"#, "1"])));
}

#[test]
fn reads_the_codex_corpus() {
    let lines = corpus("codex/agent-sessions-small.jsonl");
    let head = corpus_head(&lines);
    assert!(Codex.detect(&head));
    let (records, (messages, compactions, usages)) = read_all(&Codex, &lines);
    // Counted with jq:
    //   messages (response items of the types read as messages, plus `compacted`):
    //     jq -c 'select((.type=="response_item" and (.payload.type | IN("message",
    //       "reasoning","function_call","custom_tool_call","local_shell_call",
    //       "function_call_output","custom_tool_call_output","web_search_call",
    //       "tool_search_call","tool_search_output","image_generation_call",
    //       "agent_message"))) or .type=="compacted")' FILE | wc -l          → 27
    //   compactions: jq -c 'select(.type=="compacted")' FILE | wc -l         → 6
    //   usages: jq -c 'select(.type=="event_msg" and .payload.type=="token_count"
    //     and .payload.info.last_token_usage.total_tokens > 0)' FILE | wc -l → 1
    assert_eq!((messages, compactions, usages), (27, 6, 1));
    // Tool results, and those whose call_id no earlier call's has:
    //   jq -n 'reduce (inputs | select(.type=="response_item") | .payload) as $i
    //     ({seen: {}, results: 0, orphans: 0};
    //     if ($i.type | IN("function_call","custom_tool_call","local_shell_call",
    //       "tool_search_call")) then .seen[$i.call_id // $i.id] = true
    //     elif ($i.type | IN("function_call_output","custom_tool_call_output",
    //       "tool_search_output")) then .results += 1
    //       | (if .seen[$i.call_id] then . else .orphans += 1 end)
    //     else . end) | [.results, .orphans]' FILE                           → [6, 1]
    // The orphan is line 28, a custom_tool_call_output whose call_id the fixture's author
    // replaced by "[trimmed for fixture]" before any call with that id; the later trimmed
    // outputs "match" trimmed calls only because every trimmed id is the same text.
    let links = testing::links(records.iter().filter_map(Record::message));
    assert_eq!((links.results, links.orphans), (6, 1));
}

/// What one message is in a Codex rollout ([`Format::continues_message`]).
mod messages {
    use super::super::Codex;
    use crate::transcript::messages::testing::check;

    fn item(payload: &str) -> String {
        format!(r#"{{"timestamp":"t","type":"response_item","payload":{payload}}}"#)
    }

    fn user(text: &str) -> String {
        item(&format!(
            r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":"{text}"}}]}}"#
        ))
    }

    fn said(text: &str) -> String {
        item(&format!(
            r#"{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{text}"}}]}}"#
        ))
    }

    fn reasoning() -> String {
        item(r#"{"type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}]}"#)
    }

    fn call(id: &str, name: &str) -> String {
        item(&format!(
            r#"{{"type":"function_call","name":"{name}","arguments":"{{}}","call_id":"{id}"}}"#
        ))
    }

    fn output(id: &str) -> String {
        item(&format!(
            r#"{{"type":"function_call_output","call_id":"{id}","output":"ok"}}"#
        ))
    }

    #[test]
    fn the_items_of_one_response_are_one_message_whatever_their_number() {
        for fragments in [1, 2, 3, 5] {
            let mut lines = vec![user("old question"), said("old"), user("the question")];
            let items = [
                reasoning(),
                said("one"),
                said("two"),
                reasoning(),
                said("three"),
            ];
            lines.extend(items.into_iter().take(fragments));
            check(&Codex, &lines, &[0..1, 1..2, 2..3, 3..3 + fragments]);
        }
    }

    #[test]
    fn parallel_calls_and_their_outputs_are_one_message_with_their_response() {
        let lines = [
            user("read both"),
            reasoning(),
            call("c1", "shell"),
            call("c2", "shell"),
            output("c1"),
            output("c2"),
            reasoning(),
            said("both read"),
        ];
        check(&Codex, &lines, &[0..1, 1..6, 6..8]);
    }

    #[test]
    fn a_sub_agent_call_travels_with_its_report() {
        let lines = [
            user("explore"),
            call("c1", "spawn_agent"),
            output("c1"),
            said("the sub-agent found it"),
        ];
        check(&Codex, &lines, &[0..1, 1..3, 3..4]);
    }
}
