//! Decisions and their reasons, the second thing a checkpoint must keep after the goal: the
//! user's turns along the way (each is a decision or a correction the agent must not undo), the
//! user's answers to the agent's questions, and the choices the agent stated with a reason or
//! the constraint behind them ("instead of", "because", "we should", "only exists after").
//!
//! Everything is a fixed-phrase match on a sentence, never a model: a sentence qualifies when
//! it holds one of the phrases below, in English or in Chinese, and is not a question.

use super::narration::is_narration;
use super::said::{sentences, weight};
use super::text::has;

/// Phrases that make an agent's sentence a stated choice, a reason or a constraint found on the
/// way. Lowercase; matched anywhere in the lowercased sentence.
const CHOICE_MARKS: [&str; 31] = [
    "instead of",
    "rather than",
    "because",
    "since ",
    "decided",
    "decide to",
    "i chose",
    "i'll use",
    "i will use",
    "we'll use",
    "let's use",
    "going with",
    "i'll go with",
    "we should",
    "we shouldn't",
    "shouldn't",
    "should not",
    "simplest approach",
    "best approach",
    "better to",
    "fall back",
    "falls back",
    "only exists",
    "only created",
    "doesn't exist yet",
    "didn't work",
    "does not work",
    "not supported",
    "因为",
    "而不是",
    "决定",
];

/// Words that make a user's turn a rule or a proposal rather than a one-off request or a
/// question: those outrank the other turns when the budget cannot hold them all.
const RULE_MARKS: [&str; 21] = [
    "should",
    "must",
    "never",
    "always",
    "don't",
    "do not",
    "instead",
    "no need",
    "make sure",
    "use ",
    "no,",
    // Proposals: "could we have a file watcher?" decides what comes next.
    "could we",
    "can we",
    "we need",
    "let's",
    "i want",
    "not ",
    "不要",
    "必须",
    "应该",
    "改成",
];

/// Turns that only say "go on": no decision in them.
const CONTINUATIONS: [&str; 9] = [
    "continue", "go on", "ok", "okay", "yes", "proceed", "go", "继续", "好",
];

/// Characters kept of a decision in the extract; the renderer cuts further.
pub(super) const DECISION_CHARS: usize = 240;

/// The agent's sentences in `text` that state a choice, a reason or a constraint, in order.
pub(super) fn choice_sentences(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for (start, end) in sentences(text) {
        let sentence = text[start..end].trim();
        if sentence.ends_with('?') || sentence.starts_with(['`', '|', '#', '{', '<']) {
            continue;
        }
        let lower = sentence.to_lowercase();
        // "Let me check X since Y" announces a step; it chooses nothing unless it says over what.
        let step = ["let me ", "now let me ", "let's ", "now let's "]
            .iter()
            .any(|p| lower.starts_with(p))
            && !["instead of", "rather than", "because"]
                .iter()
                .any(|m| has(&lower, m));
        if !step && !is_narration(&lower) && CHOICE_MARKS.iter().any(|m| has(&lower, m)) {
            found.push(sentence);
        }
    }
    found
}

/// True when a user's turn says something worth keeping as a decision: not a bare "continue",
/// and not a question unless it states a rule too ("we should bail out, or?").
pub(super) fn is_decision_turn(text: &str) -> bool {
    let t = text
        .trim()
        .trim_end_matches(['.', '!', ',', '。', '！'])
        .to_lowercase();
    // Chinese questions may end on a particle instead of a mark.
    let question = t.ends_with(['?', '？', '吗', '呢']);
    // One Latin word ("sleep") asks for an action, unless it is a value ("f0c674", "v2").
    let one_word = !t.contains(char::is_whitespace)
        && !t
            .chars()
            .any(|c| c.is_ascii_digit() || (c as u32) >= 0x2E80);
    weight(&t) >= 2
        && !one_word
        && !CONTINUATIONS.contains(&t.as_str())
        && (!question || is_rule(&t))
}

/// True when a user's turn states a rule (see [`RULE_MARKS`]).
pub(super) fn is_rule(text: &str) -> bool {
    let lower = text.to_lowercase();
    RULE_MARKS.iter().any(|m| has(&lower, m))
}

/// The user's answers in a tool result that carries them: Claude Code's `AskUserQuestion`
/// (`User has answered your questions: "question"="answer". You can now continue …`), as
/// `answer ← question` pairs joined by `; `: the answer first, since a line cut short must
/// keep what the user chose, and the agent's question (often a whole plan ending "Ready to
/// implement?") is the part that can go.
pub(super) fn answers(text: &str) -> Option<String> {
    const MARK: &str = "User has answered your questions:";
    let at = memchr::memmem::find(text.as_bytes(), MARK.as_bytes())?;
    let rest = &text[at + MARK.len()..];
    let rest = rest
        .find(". You can now continue")
        .map_or(rest, |end| &rest[..end])
        .trim();
    // `"q1"="a1", "q2"="a2"`: the answer is what follows each `"="`.
    let pairs: Vec<String> = rest
        .split("\", \"")
        .filter_map(|pair| {
            let (question, answer) = pair.split_once("\"=\"")?;
            let question = question.trim_matches('"').trim();
            let answer = answer.trim_matches('"').trim();
            (!answer.is_empty()).then(|| format!("{answer} ← {question}"))
        })
        .collect();
    if pairs.is_empty() {
        (!rest.is_empty()).then(|| rest.to_owned())
    } else {
        Some(pairs.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_sentences_with_a_reason_or_a_constraint() {
        let text = "You're right. We shouldn't silently continue with an empty `baseCommit`. \
                    Let me fix that:\nDone. It returns a proper error instead of silently \
                    continuing. Should I also add a test?";
        assert_eq!(
            choice_sentences(text),
            [
                "We shouldn't silently continue with an empty `baseCommit`.",
                "It returns a proper error instead of silently continuing."
            ]
        );
        assert!(choice_sentences("Let me read the file. All tests pass.").is_empty());
        assert!(choice_sentences("Let me check the files since some edits were made.").is_empty());
        assert!(choice_sentences("Let me verify rather than speculate.").is_empty());
        assert_eq!(
            choice_sentences("The `_remainder` attribute only exists after fit. So I check both."),
            ["The `_remainder` attribute only exists after fit."]
        );
    }

    #[test]
    fn user_turns_rules_and_answers() {
        assert!(!is_decision_turn("continue"));
        assert!(!is_decision_turn("OK."));
        assert!(!is_decision_turn("sleep"));
        assert!(is_decision_turn("f0c674"));
        assert!(is_decision_turn("Option A"));
        assert!(is_decision_turn("在另外的分支实现这个"));
        assert!(!is_decision_turn("这个打开新的页面是什么原理？"));
        assert!(!is_decision_turn(
            "这个加号和之前的有什么区别？是一个组件吗"
        ));
        assert!(is_decision_turn(
            "we should bail out and return an error, or?"
        ));
        assert!(is_rule(
            "omfg use rgb values in the themes, no rgb indices!"
        ));
        assert!(!is_rule("what happens if you delete the theme?"));
        assert!(is_decision_turn(
            "hmmmm could we havea file watcher for the custom themes?"
        ));
        assert_eq!(
            answers("User has answered your questions: \"Which view?\"=\"grouped\", \"Tab?\"=\"new tab\". You can now continue with the user's answers in mind.").as_deref(),
            Some("grouped ← Which view?; new tab ← Tab?")
        );
        assert_eq!(answers("no answers here"), None);
    }
}
