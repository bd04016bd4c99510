//! The plans of every mode, on small transcripts: the no-ops, the tail and the newest request,
//! kimi-code's kept user messages, ACF's budgets, `--upto`, and calls kept with their results.

use super::*;
use crate::transcript::kimi::Kimi;
use crate::transcript::{Entry, Message, Part};

use crate::transcript::model::testing::text_record as record;

fn tail(records: &[Record], preserve: i64) -> Plan {
    plan(records, Mode::Tail { preserve }, Tokenizer::Chars4, &Kimi).unwrap()
}

#[test]
fn v1_v2_d3_no_ops() {
    let one = [record(Role::User, "Only one message")];
    assert_eq!(tail(&one, 2).noop, Some(NoOp::TooFewMessages));
    let two = [record(Role::User, "q"), record(Role::Assistant, "a")];
    assert_eq!(tail(&two, 2).noop, Some(NoOp::NothingBeforeTail));
    assert_eq!(tail(&two, 0).noop, Some(NoOp::NothingPreserved));
    assert_eq!(tail(&[], 2).noop, Some(NoOp::Empty));
    let noop = tail(&two, 2);
    assert_eq!(noop.tail, 0..2);
}

#[test]
fn v3_keeps_the_last_two_and_leads_with_system() {
    let records = [
        record(Role::System, "System note"),
        record(Role::User, "Old question"),
        record(Role::Assistant, "Old answer"),
        record(Role::User, "Latest question"),
        record(Role::Assistant, "Latest answer"),
    ];
    let plan = tail(&records, 2);
    assert_eq!(
        (plan.lead.clone(), plan.compact.clone(), plan.tail.clone()),
        (0..1, 1..3, 3..5)
    );
    assert_eq!(plan.sent(&records).len(), 3);
}

#[test]
fn d2_a_leading_system_message_alone_is_compacted() {
    let records = [
        record(Role::System, "S"),
        record(Role::User, "q"),
        record(Role::Assistant, "a"),
    ];
    let plan = tail(&records, 2);
    assert_eq!(plan.noop, None);
    assert_eq!(plan.sent(&records).len(), 1);
    assert_eq!(plan.tail, 1..3);
}

#[test]
fn d1_tail_keeps_trailing_tool_messages() {
    let records = [
        record(Role::User, "do it"),
        record(Role::Assistant, "running"),
        record(Role::Tool, "a.txt"),
        record(Role::Assistant, "done"),
        record(Role::User, "thanks"),
        record(Role::Tool, "late"),
    ];
    let plan = tail(&records, 2);
    assert_eq!(plan.compact, 0..3);
    assert_eq!(plan.tail, 3..6);
}

fn kept(plan: &Plan) -> (Vec<String>, Vec<String>, u64) {
    let show = |k: &KeptUser| match &k.kept {
        Kept::Whole => format!("#{}", k.record),
        Kept::Text(t) => t.clone(),
    };
    (
        plan.kept_head.iter().map(show).collect(),
        plan.kept_tail.iter().map(show).collect(),
        plan.elided_tokens,
    )
}

fn user_mode(records: &[Record], max: u64, head: u64) -> Plan {
    let mode = Mode::User {
        keep_user_tokens: max,
        user_head_tokens: head,
    };
    plan(records, mode, Tokenizer::Chars4, &Kimi).unwrap()
}

#[test]
fn k1_everything_fits() {
    let records = [record(Role::User, "one"), record(Role::User, "two")];
    assert_eq!(
        kept(&user_mode(&records, 1000, 100)),
        (vec![], vec!["#0".into(), "#1".into()], 0)
    );
    assert_eq!(user_mode(&records, 1000, 100).elision_marker(), None);
}

#[test]
fn k2_whole_messages_head_and_tail() {
    let records: Vec<_> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|c| record(Role::User, &c.repeat(100)))
        .collect();
    assert_eq!(
        kept(&user_mode(&records, 78, 26)),
        (vec!["#0".into()], vec!["#3".into(), "#4".into()], 52)
    );
}

#[test]
fn k3_a_tail_message_cut_to_its_end() {
    let records = [
        record(Role::User, &"x".repeat(100)),
        record(
            Role::User,
            &format!("{}{}", "p".repeat(400), "s".repeat(400)),
        ),
    ];
    assert_eq!(
        kept(&user_mode(&records, 106, 26)),
        (vec!["#0".into()], vec!["s".repeat(320)], 120)
    );
}

#[test]
fn k4_one_message_split_into_head_and_tail() {
    let text = format!("{}{}{}", "h".repeat(400), "m".repeat(400), "t".repeat(400));
    let records = [record(Role::User, &text)];
    let plan = user_mode(&records, 100, 20);
    assert_eq!(
        kept(&plan),
        (vec!["h".repeat(80)], vec!["t".repeat(320)], 199)
    );
    assert!(plan
        .elision_marker()
        .unwrap()
        .contains("roughly 199 tokens"));
}

#[test]
fn multibyte_text_is_never_split_inside_a_character() {
    let records = [record(Role::User, &"🦀".repeat(300))];
    let plan = user_mode(&records, 100, 20);
    for k in plan.kept_head.iter().chain(&plan.kept_tail) {
        if let Kept::Text(t) = &k.kept {
            assert!(t.chars().all(|c| c == '🦀'));
        }
    }
}

#[test]
fn budgets_keep_the_first_request_and_the_latest_output() {
    let records = [
        record(Role::User, "build the parser"),
        record(Role::Assistant, &"x".repeat(4000)),
        record(Role::User, "now the tests"),
        record(Role::Assistant, &"y".repeat(400)),
    ];
    let mode = Mode::Budgets {
        head_tokens: 500,
        tail_tokens: 200,
    };
    let plan = plan(&records, mode, Tokenizer::Chars4, &Kimi).unwrap();
    // The newest records that fit 200 tokens: the last answer (100) and the request before it.
    assert_eq!(
        (plan.head.clone(), plan.compact.clone(), plan.tail.clone()),
        (0..1, 1..2, 2..4)
    );
    let small = plan_for_budgets(&records[..1]);
    assert_eq!(small.noop, Some(NoOp::FitsInBudgets));
}

fn plan_for_budgets(records: &[Record]) -> Plan {
    let mode = Mode::Budgets {
        head_tokens: 500,
        tail_tokens: 1000,
    };
    plan(records, mode, Tokenizer::Chars4, &Kimi).unwrap()
}

fn call(id: &str) -> Record<'static> {
    let part = Part::ToolCall {
        id: Some(id.to_owned().into()),
        name: "Shell".into(),
        arguments: "{}".into(),
    };
    Record::new(
        0,
        b"",
        Entry::Message(Message::new(Role::Assistant, vec![part])),
    )
}

fn result(id: &str) -> Record<'static> {
    let part = Part::ToolResult {
        call_id: Some(id.to_owned().into()),
        text: "ok".into(),
    };
    Record::new(0, b"", Entry::Message(Message::new(Role::User, vec![part])))
}

#[test]
fn a_call_and_its_result_count_as_one_message() {
    // The result (a user-role record) is not a message of its own: preserve 2 keeps the
    // call with its result and the answer, and the request they serve beside the summary.
    let records = [
        record(Role::User, "old"),
        record(Role::Assistant, "old answer"),
        record(Role::User, "go"),
        call("c1"),
        result("c1"),
        record(Role::Assistant, "done"),
    ];
    let plan = tail(&records, 2);
    assert_eq!(
        (
            plan.compact.clone(),
            plan.request.clone(),
            plan.tail.clone()
        ),
        (0..3, Some(2..3), 3..6)
    );
    assert_eq!(plan.kept_after().collect::<Vec<_>>(), [2, 3, 4, 5]);
    assert_eq!(plan.summarised().collect::<Vec<_>>(), [0, 1]);
    // Only the request would be summarised: nothing to do.
    assert_eq!(tail(&records[2..], 2).noop, Some(NoOp::NothingBeforeTail));
    let records = [
        record(Role::User, "go"),
        call("c1"),
        result("c1"),
        record(Role::Assistant, "done"),
    ];
    let upto = super::plan(&records, Mode::Upto { index: 2 }, Tokenizer::Chars4, &Kimi);
    assert!(matches!(upto, Err(PlanError::UptoSplitsToolCall { .. })));
}

#[test]
fn the_newest_request_is_kept_apart_only_when_the_tail_misses_it() {
    let records = [
        record(Role::User, "first"),
        record(Role::Assistant, "one"),
        record(Role::User, "second"),
        record(Role::Assistant, "two"),
        record(Role::Assistant, "three"),
    ];
    let one = tail(&records, 1);
    assert_eq!((one.request.clone(), one.tail.clone()), (Some(2..3), 4..5));
    let three = tail(&records, 3);
    assert_eq!((three.request.clone(), three.tail.clone()), (None, 2..5));
    // A summary or a reminder is no request: the newest real one is kept.
    let records = [
        record(Role::User, "the task"),
        record(Role::Assistant, "working"),
        record(Role::User, "<system-reminder>\nkeep going"),
        record(Role::Assistant, "done"),
    ];
    assert_eq!(tail(&records, 2).request, Some(0..1));
}

#[test]
fn a_reused_call_id_links_to_the_nearest_call() {
    // A replayed session reuses ids: the second result answers the second call only.
    let records = [
        record(Role::User, "a"),
        call("c1"),
        result("c1"),
        record(Role::User, "b"),
        call("c1"),
        result("c1"),
        record(Role::Assistant, "done"),
    ];
    assert_eq!(tail(&records, 2).tail, 4..7);
}

#[test]
fn upto_compacts_exactly_the_records_before_it() {
    let records = [
        record(Role::User, "a"),
        record(Role::Assistant, "b"),
        record(Role::User, "c"),
    ];
    let plan = plan(&records, Mode::Upto { index: 2 }, Tokenizer::Chars4, &Kimi).unwrap();
    assert_eq!((plan.compact.clone(), plan.tail.clone()), (0..2, 2..3));
    let past = super::plan(&records, Mode::Upto { index: 9 }, Tokenizer::Chars4, &Kimi);
    assert!(past.is_err());
}
