//! Reading Gemini CLI records: every record kind, the corpus, message lists in a `$set`.

use super::*;
use crate::transcript::model::testing;
use crate::transcript::model::testing::{corpus, corpus_head, head, read_all};

fn read(text: &str) -> Record<'_> {
    Gemini.read(1, text).unwrap()
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

#[test]
fn reads_user_records() {
    let record = read(
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Say hello."},{"inlineData":{"mimeType":"image/png","data":"AAA"}},{"fileData":{"mimeType":"application/pdf","fileUri":"f"}},"bare"]}"#,
    );
    assert_eq!(role(&record), Role::User);
    assert_eq!(
        parts(&record),
        [
            Part::Text("Say hello.".into()),
            Part::Media(MediaKind::Image),
            Part::Media(MediaKind::Document),
            Part::Text("bare".into()),
        ]
    );
    assert!(matches!(parts(&record)[0], Part::Text(ref text) if text.is_borrowed()));
    let string = read(r#"{"id":"u2","timestamp":"t","type":"user","content":"hi"}"#);
    assert_eq!(parts(&string), [Part::Text("hi".into())]);
    let one = read(r#"{"id":"u3","type":"user","content":{"text":"one part"}}"#);
    assert_eq!(parts(&one), [Part::Text("one part".into())]);
    let media = read(r#"{"type":"user","content":[{"inlineData":{"data":"AAA"}}]}"#);
    assert_eq!(parts(&media), [Part::Media(MediaKind::Image)]);
}

#[test]
fn reads_function_responses_in_user_content() {
    let record = read(
        r#"{"type":"user","content":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a.txt"}}},{"functionResponse":{"name":"ls","response":{"error":"denied"}}}]}"#,
    );
    assert_eq!(
        parts(&record),
        [
            Part::ToolResult {
                call_id: Some("c".into()),
                text: "a.txt".into()
            },
            Part::ToolResult {
                call_id: None,
                text: r#"{"error":"denied"}"#.into()
            },
        ]
    );
}

#[test]
fn a_message_list_checkpoint_is_read_as_its_messages() {
    let text = r#"{"$set":{"messages":[{"id":"u1","type":"user","content":"first"},{"id":"g1","type":"gemini","content":"answer"}],"lastUpdated":"t"}}"#;
    let mut records = Vec::new();
    Gemini
        .read_each(7, text, &mut |record| records.push(record))
        .unwrap();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0].link.event, Event::Reset);
    assert_eq!(
        records[1].raw,
        br#"{"id":"u1","type":"user","content":"first"}"#
    );
    assert_eq!(role(&records[2]), Role::Assistant);
    assert!(records.iter().all(|r| r.line == 7));
    // In a session: the checkpoint replaces what came before, later messages follow it.
    let lines = [
        r#"{"sessionId":"s","projectHash":"p","startTime":"t"}"#,
        r#"{"id":"old","type":"user","content":"superseded"}"#,
        text,
        r#"{"id":"u2","type":"user","content":"second"}"#,
    ]
    .join("\n");
    let transcript = crate::transcript::load::Transcript::parse(
        "t",
        lines.as_bytes(),
        crate::transcript::load::LoadOptions::default(),
    )
    .unwrap();
    let texts: Vec<String> = transcript
        .context()
        .iter()
        .filter_map(|r| r.message())
        .map(crate::transcript::classify::text_of)
        .collect();
    assert_eq!(texts, ["first", "answer", "second"]);
}

#[test]
fn reads_model_turns() {
    let record = read(
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[{"subject":"Listing","description":"I will run ls.","timestamp":"t"}],"tokens":{"input":11855,"output":81,"cached":0,"thoughts":0,"tool":0,"total":11936},"model":"gemini-3-flash-preview","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls -F"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"README.md"}}}],"status":"success","resultDisplay":"README.md","displayName":"Shell"},{"id":"c2","name":"read_file","args":{"path":"x"},"result":null,"status":"cancelled"}]}"#,
    );
    assert_eq!(role(&record), Role::Assistant);
    assert_eq!(
        parts(&record),
        [
            Part::Thinking("Listing\nI will run ls.".into()),
            Part::ToolCall {
                id: Some("c1".into()),
                name: "run_shell_command".into(),
                arguments: r#"{"command":"ls -F"}"#.into()
            },
            Part::ToolResult {
                call_id: Some("c1".into()),
                text: "README.md".into()
            },
            Part::ToolCall {
                id: Some("c2".into()),
                name: "read_file".into(),
                arguments: r#"{"path":"x"}"#.into()
            },
        ]
    );
    let message = record.message().unwrap();
    assert_eq!(message.call_ids().collect::<Vec<_>>(), ["c1", "c2"]);
    assert_eq!(message.answered_ids().collect::<Vec<_>>(), ["c1"]);
    assert!(matches!(
        parts(&record)[1],
        Part::ToolCall {
            id: Some(Cow::Borrowed(_)),
            ..
        }
    ));
    assert_eq!(
        record.usage,
        Some(Usage {
            context_tokens: 11936,
            response_key: None
        })
    );
    let text =
        read(r#"{"id":"g2","type":"gemini","content":"Hello!","thoughts":[],"tokens":null}"#);
    assert_eq!(parts(&text), [Part::Text("Hello!".into())]);
    assert!(text.usage.is_none());
}

#[test]
fn tool_results_join_texts_and_keep_media() {
    let record = read(
        r#"{"type":"gemini","content":[{"text":"why","thought":true},{"text":"so"}],"toolCalls":[{"name":"shot","args":{},"result":[{"functionResponse":{"name":"shot","response":{"output":"taken"}}},{"inlineData":{"mimeType":"image/png","data":"AA"}},{"text":"note"}]}],"tokens":{"total":"x"}}"#,
    );
    assert_eq!(
        parts(&record),
        [
            Part::Thinking("why".into()),
            Part::Text("so".into()),
            Part::ToolCall {
                id: None,
                name: "shot".into(),
                arguments: "{}".into()
            },
            Part::ToolResult {
                call_id: None,
                text: "taken\nnote".into()
            },
            Part::Media(MediaKind::Image),
        ]
    );
    assert!(record.usage.is_none());
    // A result without a response id answers its call's id; a response id wins.
    let ids = |line: &str| {
        read(line)
            .message()
            .unwrap()
            .answered_ids()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(
            r#"{"type":"gemini","content":"","toolCalls":[{"id":"c9","name":"shot","args":{},"result":[{"text":"plain"}]}]}"#
        ),
        ["c9"]
    );
    assert_eq!(
        ids(
            r#"{"type":"gemini","content":"","toolCalls":[{"id":"c9","name":"shot","args":{},"result":[{"text":"plain"},{"functionResponse":{"id":"r9","response":{}}}]}]}"#
        ),
        ["r9"]
    );
}

#[test]
fn bookkeeping_lines() {
    for (line, name) in [
        (
            r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}"#,
            "metadata",
        ),
        (r#"{"$set":{"lastUpdated":"t"}}"#, "$set"),
        (
            r#"{"$set":{"messages":[{"id":"u","type":"user","content":"x"}]}}"#,
            "$set",
        ),
        (r#"{"$rewindTo":"g-user-1"}"#, "$rewindTo"),
        (
            r#"{"id":"i","timestamp":"t","type":"info","content":"Compressed."}"#,
            "gemini/info",
        ),
        (
            r#"{"id":"e","type":"error","content":"quota"}"#,
            "gemini/error",
        ),
        (
            r#"{"id":"w","type":"warning","content":"slow"}"#,
            "gemini/warning",
        ),
    ] {
        let record = read(line);
        assert_eq!(bookkeeping(&record), name);
        assert!(record.usage.is_none() && !record.compaction);
    }
}

#[test]
fn errors_do_not_quote_the_line() {
    let untyped = Gemini.read(1, r#"{"content":"x"}"#).unwrap_err();
    assert!(untyped.to_string().starts_with("line has no \"type\""));
    let shape = Gemini
        .read(1, r#"{"type":"user","content":[{"text":["secret"]}]}"#)
        .unwrap_err()
        .to_string();
    assert!(!shape.contains("secret"), "{shape}");
    assert!(Gemini.read(1, r#"{"type":"user","content":7}"#).is_err());
    assert!(Gemini.read(1, "{\"type\":").is_err());
    // A line cut off mid-write keeps serde_json's end-of-input error, which the caller
    // recognises on an unterminated last line.
    let cut = Gemini
        .read(1, r#"{"id":"g","type":"gemini","content":"Hel"#)
        .unwrap_err();
    assert!(cut
        .downcast_ref::<serde_json::Error>()
        .is_some_and(serde_json::Error::is_eof));
}

#[test]
fn detection() {
    assert!(Gemini.detect(&head(&[
        r#"{"sessionId":"s","projectHash":"h","startTime":"t"}"#
    ])));
    assert!(Gemini.detect(&head(&[
        r#"{"$set":{"lastUpdated":"t"}}"#,
        r#"{"id":"g","type":"gemini","content":"hi"}"#,
    ])));
    assert!(!Gemini.detect(&head(&[
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","type":"user"}"#
    ])));
    assert!(!Gemini.detect(&head(&[r#"{"id":"u","type":"user","content":"hi"}"#])));
}

#[test]
fn reads_the_gemini_corpus() {
    let lines = corpus("gemini-cli/agent-sessions-jsonl_v040.jsonl");
    let head = corpus_head(&lines);
    assert!(Gemini.detect(&head));
    let (records, (messages, compactions, usages)) = read_all(&Gemini, &lines);
    // Counted with jq:
    //   messages: jq -c 'select(.type=="user" or .type=="gemini")' FILE | wc -l   → 3
    //   compactions: none; Gemini CLI writes no marker                            → 0
    //   usages: jq -c 'select(.type=="gemini" and .tokens.total > 0)' FILE | wc -l → 2
    assert_eq!((messages, compactions, usages), (3, 0, 2));
    // Tool results (each toolCalls[] entry with a result, and each functionResponse part
    // of a user record), and those whose id no earlier call's id has:
    //   jq -n 'reduce inputs as $l ({seen: {}, results: 0, orphans: 0};
    //     if $l.type=="gemini" then reduce ($l.toolCalls // [] | .[]) as $c (.;
    //       (if $c.id then .seen[$c.id] = true else . end)
    //       | if ($c.result // [] | length) > 0 then .results += 1
    //         | (if .seen[[$c.result[]?.functionResponse?.id // empty][0] // $c.id // ""]
    //           then . else .orphans += 1 end) else . end)
    //     elif $l.type=="user" then reduce ($l.content | arrays | .[] | objects
    //       | select(.functionResponse)) as $r (.; .results += 1
    //       | (if .seen[$r.functionResponse.id // ""] then . else .orphans += 1 end))
    //     else . end) | [.results, .orphans]' FILE                          → [1, 0]
    let links = testing::links(records.iter().filter_map(Record::message));
    assert_eq!((links.results, links.orphans), (1, 0));
}

/// What one message is in a Gemini CLI session: each turn is one message, a model turn holding
/// its calls' results (`toolCalls[].result`) as well ([`Format::continues_message`]).
mod messages {
    use super::Gemini;
    use crate::transcript::messages::testing::check;

    fn user(n: usize, text: &str) -> String {
        format!(r#"{{"id":"m{n}","timestamp":"t","type":"user","content":[{{"text":"{text}"}}]}}"#)
    }

    /// A model turn with this text, these thoughts and these calls (each with its result).
    fn model(n: usize, text: &str, thoughts: usize, calls: &[&str]) -> String {
        let thoughts: Vec<String> = (0..thoughts)
            .map(|i| format!(r#"{{"subject":"s{i}","description":"d","timestamp":"t"}}"#))
            .collect();
        let calls: Vec<String> = calls
            .iter()
            .map(|id| {
                format!(
                    r#"{{"id":"{id}","name":"read_file","args":{{}},"result":[{{"functionResponse":{{"id":"{id}","name":"read_file","response":{{"output":"ok"}}}}}}],"status":"success"}}"#
                )
            })
            .collect();
        format!(
            r#"{{"id":"m{n}","timestamp":"t","type":"gemini","content":"{text}","thoughts":[{}],"toolCalls":[{}]}}"#,
            thoughts.join(","),
            calls.join(",")
        )
    }

    #[test]
    fn a_turn_of_any_number_of_parts_is_one_message() {
        // 1: text; 2: a thought and text; 3: two thoughts and text; 5: two thoughts, text
        // and two calls.
        for (thoughts, calls) in [(0, 0), (1, 0), (2, 0), (2, 2)] {
            let ids = ["c1", "c2"];
            let lines = [
                user(0, "old question"),
                model(1, "old", 0, &[]),
                user(2, "the question"),
                model(3, "answer", thoughts, &ids[..calls]),
            ];
            check(&Gemini, &lines, &[0..1, 1..2, 2..3, 3..4]);
        }
    }

    #[test]
    fn parallel_calls_and_a_sub_agent_stay_in_their_turn() {
        let lines = [
            user(0, "read both"),
            model(1, "", 0, &["c1", "c2"]),
            model(2, "", 0, &["codebase_investigator"]),
            model(3, "done", 0, &[]),
        ];
        check(&Gemini, &lines, &[0..1, 1..2, 2..3, 3..4]);
    }
}
