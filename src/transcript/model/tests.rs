//! Messages' call and answered ids, the tool-result links the format tests check, and a record
//! read once.

use std::borrow::Cow;

use super::*;

fn call(id: Option<&'static str>) -> Part<'static> {
    Part::ToolCall {
        id: id.map(Cow::Borrowed),
        name: "Shell".into(),
        arguments: "{}".into(),
    }
}

fn result(call_id: Option<&'static str>) -> Part<'static> {
    Part::ToolResult {
        call_id: call_id.map(Cow::Borrowed),
        text: "ok".into(),
    }
}

#[test]
fn new_answers_nothing_and_answering_sets_the_call() {
    let message = Message::new(Role::Tool, vec![Part::Text("ok".into())]);
    assert_eq!(message.call_id, None);
    assert!(!message.sidechain);
    let answer = message.answering(Some("call_1".into()));
    assert_eq!(answer.call_id.as_deref(), Some("call_1"));
    assert_eq!(answer.answering(None).call_id, None);
}

#[test]
fn call_ids_are_the_calls_made_in_order() {
    let message = Message::new(
        Role::Assistant,
        vec![
            Part::Text("Running.".into()),
            call(Some("a")),
            call(None),
            result(Some("x")),
            call(Some("b")),
        ],
    )
    .answering(Some("y".into()));
    assert_eq!(message.call_ids().collect::<Vec<_>>(), ["a", "b"]);
    let text = Message::new(Role::User, vec![Part::Text("hi".into())]);
    assert_eq!(text.call_ids().count(), 0);
}

#[test]
fn answered_ids_are_the_message_id_then_each_result_id() {
    let keyed = Message::new(Role::Tool, vec![Part::Text("ok".into())]).answering(Some("m".into()));
    assert_eq!(keyed.answered_ids().collect::<Vec<_>>(), ["m"]);
    let parts = Message::new(
        Role::User,
        vec![
            result(Some("a")),
            Part::Media(MediaKind::Image),
            result(None),
            call(Some("c")),
            result(Some("b")),
        ],
    );
    assert_eq!(parts.answered_ids().collect::<Vec<_>>(), ["a", "b"]);
    let both = Message::new(Role::Tool, vec![result(Some("p"))]).answering(Some("m".into()));
    assert_eq!(both.answered_ids().collect::<Vec<_>>(), ["m", "p"]);
    let none = Message::new(Role::Tool, vec![result(None)]);
    assert_eq!(none.answered_ids().count(), 0);
}

#[test]
fn links_count_results_and_orphans() {
    let messages = [
        Message::new(Role::Assistant, vec![call(Some("a")), result(Some("a"))]),
        Message::new(Role::Tool, vec![Part::Text("ok".into())]).answering(Some("a".into())),
        // Answers a call made only later, and a call never made.
        Message::new(Role::User, vec![result(Some("b")), result(Some("z"))]),
        Message::new(Role::Assistant, vec![call(Some("b"))]),
        // Keyed at the message level: its parts are not results of their own.
        Message::new(Role::Tool, vec![result(None)]).answering(Some("b".into())),
        // No id at all.
        Message::new(Role::Tool, vec![Part::Text("?".into())]),
        Message::new(Role::User, vec![result(None)]),
    ];
    assert_eq!(
        testing::links(&messages),
        testing::Links {
            results: 7,
            orphans: 4
        }
    );
}

#[test]
fn a_record_read_once_is_a_copy_only_while_a_text_of_it_is_escaped() {
    let escaped = r#""line one\nline two""#;
    let plain = r#""no escapes""#;
    let message = |raw| {
        let text = crate::transcript::scan::json_text(raw).unwrap();
        Entry::Message(Message::new(Role::Assistant, vec![Part::Text(text)]))
    };
    let record = Record::new(1, b"", message(escaped));
    let copy = record.to_read_once();
    assert!(matches!(copy, Cow::Owned(_)));
    let Some(Part::Text(read)) = copy.message().and_then(|m| m.parts.first()) else {
        panic!("the copy holds the text");
    };
    assert_eq!(read.as_str(), "line one\nline two");
    // What the copy decoded went with it; the record's own text is still escaped.
    drop(copy);
    let Some(Part::Text(own)) = record.message().and_then(|m| m.parts.first()) else {
        panic!("the record holds the text");
    };
    assert!(own.escaped_body().is_some());
    // Decoded in place (or never escaped), a record is read as it is.
    assert_eq!(own.as_str(), "line one\nline two");
    assert!(matches!(record.to_read_once(), Cow::Borrowed(_)));
    let plain = Record::new(2, b"", message(plain));
    assert!(matches!(plain.to_read_once(), Cow::Borrowed(_)));
    let bookkeeping = Record::new(3, b"", Entry::Bookkeeping("_checkpoint".into()));
    assert!(matches!(bookkeeping.to_read_once(), Cow::Borrowed(_)));
}
