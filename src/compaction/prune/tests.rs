//! The plan on a crafted OpenAI-chat list: every value is found where it was, and each is
//! measured from what was taken of its text when it was found, as from the text itself.

use super::*;
use crate::prune::result_placeholder;
use crate::transcript::load::LoadOptions;
use crate::transcript::prune::{replacement, Shape};

/// A task, a call (its result names no tool), a result as a list of parts, a call whose
/// result is a plain string, and a last turn.
const LIST: &str = concat!(
    r#"{"role":"user","content":"fix the build"}"#,
    "\n",
    r#"{"role":"assistant","content":"","reasoning_content":"look first","tool_calls":[{"id":"c1","type":"function","function":{"name":"Shell","arguments":"{\"command\":\"cargo build\"}"}}]}"#,
    "\n",
    r#"{"role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"Compiling a\nerror: no\n\nexit code: 101"},{"type":"text","text":"tail"}]}"#,
    "\n",
    r#"{"role":"assistant","content":"","tool_calls":[{"id":"c2","type":"function","function":{"name":"ReadFile","arguments":"{\"path\":\"src/lib.rs\"}"}}]}"#,
    "\n",
    r#"{"role":"tool","tool_call_id":"c2","content":"fn main() {}\n"}"#,
    "\n",
    r#"{"role":"user","content":"thanks"}"#,
    "\n",
);

#[test]
fn results_are_measured_and_named_as_from_their_text() {
    let transcript = Transcript::parse("t", LIST.as_bytes(), LoadOptions::default()).unwrap();
    let options = Options {
        keep: 0,
        keep_turns: 0,
        min_tokens: 0,
        ..Options::default()
    };
    let plan = plan(&transcript, Tokenizer::Chars4, &options).unwrap();
    let results: Vec<&Measured> = plan
        .measured
        .iter()
        .filter(|m| m.site.kind == Kind::Result)
        .collect();
    let expected = [
        (
            2,
            "Shell",
            "Compiling a\nerror: no\n\nexit code: 101\ntail",
            Shape::Parts("text"),
        ),
        (4, "ReadFile", "fn main() {}\n", Shape::String),
    ];
    assert_eq!(results.len(), expected.len());
    for (measured, (record, tool, text, shape)) in results.into_iter().zip(expected) {
        assert_eq!(measured.record, record);
        // The site the agent's reader found, as it found it, but for its text.
        let mut found = sites(FormatId::Openai.format(), transcript.records[record].raw)
            .into_iter()
            .next()
            .unwrap();
        assert_eq!(found.text, text);
        assert!(measured.site.text.is_empty(), "the text is not kept");
        found.text.clear();
        found.tool = Some(tool.to_owned());
        assert_eq!(measured.site, found);
        // The placeholder is the text's own, the tool named through its call.
        let tokens = Tokenizer::Chars4.tokens(Tokenizer::Chars4.text_units(text));
        let candidate = plan
            .candidates
            .iter()
            .find(|c| c.position == record && c.target == Target::Result)
            .unwrap();
        assert_eq!(candidate.tokens, tokens);
        assert_eq!(
            measured.json.as_deref(),
            Some(&replacement(shape, &result_placeholder(Some(tool), tokens, text))[..])
        );
    }
    assert!(
        plan.measured.iter().any(|m| m.site.kind == Kind::Thinking),
        "the reasoning is found too"
    );
}

#[test]
fn a_call_id_is_named_by_its_first_call() {
    // The same id twice (an agent may reuse one): the first call in context order names it.
    let list = LIST.replace(r#""id":"c2""#, r#""id":"c1""#);
    let transcript = Transcript::parse("t", list.as_bytes(), LoadOptions::default()).unwrap();
    let names = call_names(&transcript, FormatId::Openai);
    assert_eq!(names.len(), 1);
    assert_eq!(names["c1"], "Shell");
    let transcript = Transcript::parse("t", LIST.as_bytes(), LoadOptions::default()).unwrap();
    let names = call_names(&transcript, FormatId::Openai);
    assert_eq!(names.len(), 2);
    assert_eq!((&names["c1"][..], &names["c2"][..]), ("Shell", "ReadFile"));
}
