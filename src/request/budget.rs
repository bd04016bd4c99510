//! Fitting a compaction request into a token budget (pure): the sessions that most need
//! compacting are the ones whose request would not fit the summarizer's window.
//!
//! The request is shrunk deterministically, in this order, until it fits:
//!
//! 1. tool-result bodies, oldest first, results of protected tools last, each replaced by a
//!    short note of what was there;
//! 2. long message bodies (every text but the user's own words), longest first, each cut in
//!    its middle with a marker, halving what is kept at every pass;
//! 3. the user's own words, the same way, last of all.
//!
//! A previous compaction summary is never cut: it is the only memory of the epochs before.
//! When even that leaves the request too large, [`fit`] says by how much rather than send an
//! oversized request.

use std::collections::HashMap;

use super::{request_parts, SYSTEM_PROMPT};
use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_compaction_summary, is_real_user_request};
use crate::transcript::{Message, Part, Record};

/// Tools whose results are cut last: the agent's own plan and task list, small and what the
/// summary most needs to carry on (Claude Code `TodoWrite`, Codex `update_plan`, kimi-cli
/// `SetTodoList`, pi and others' `todo_write`; Claude Code's task tools, whose `TaskCreate`
/// results alone tie a task's id to its subject, so that a later `TaskUpdate {taskId}` says
/// which task moved, and whose `TaskList` results are the whole list).
pub const PROTECTED_TOOLS: [&str; 9] = [
    "TodoWrite",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
    "update_plan",
    "SetTodoList",
    "todo_write",
    "write_todos",
];

/// How a message of the request fared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cut {
    /// The message's number in the request (`## Message N`).
    pub message: usize,
    /// `tool_result` (a body replaced by a note) or `text` (cut in its middle).
    pub kind: String,
    /// Its estimated tokens before and after.
    pub tokens: [u64; 2],
}

/// A request that fits.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    /// The request's text parts, as [`request_parts`] makes them.
    pub parts: Vec<String>,
    /// What was cut, in the order it was cut.
    pub cuts: Vec<Cut>,
    /// The request's tokens (system prompt and user message).
    pub tokens: u64,
}

/// Why a request cannot fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// The smallest size reached.
    pub tokens: u64,
    /// The budget.
    pub max_tokens: u64,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "the request needs {} tokens even with every tool output and long text cut, {} over \
             --max-tokens {} (the previous summary is never cut)",
            self.tokens,
            self.tokens - self.max_tokens,
            self.max_tokens
        )
    }
}

impl std::error::Error for TooLarge {}

/// The size of a request: its system prompt and its user message.
pub fn request_tokens(parts: &[String], tokenizer: Tokenizer) -> u64 {
    tokenizer.text_tokens(&format!("{SYSTEM_PROMPT}{}", parts.concat()))
}

/// The request for the messages of `records`, shrunk to at most `max_tokens`.
pub fn fit(
    records: &[&Record],
    body: &str,
    instruction: Option<&str>,
    max_tokens: u64,
    tokenizer: Tokenizer,
) -> Result<Fitted, TooLarge> {
    let messages: Vec<Message> = records
        .iter()
        .filter_map(|r| r.message().cloned())
        .collect();
    let summaries: Vec<bool> = records
        .iter()
        .filter_map(|r| {
            r.message()
                .map(|m| r.compaction || is_compaction_summary(m))
        })
        .collect();
    let mut fitting = Fitting {
        messages,
        summaries,
        body,
        instruction,
        max_tokens,
        tokenizer,
        cuts: Vec::new(),
        units: 0,
        tokens: 0,
    };
    let parts = fitting.render();
    fitting.tokens = request_tokens(&parts, tokenizer);
    if fitting.tokens <= max_tokens {
        return Ok(fitting.fitted(parts));
    }
    fitting.units = tokenizer.text_units(&format!("{SYSTEM_PROMPT}{}", parts.concat()));

    // 1. Tool results, oldest first, protected tools last.
    for (m, p) in fitting.tool_results() {
        let Part::ToolResult { text, .. } = &fitting.messages[m].parts[p] else {
            continue;
        };
        let before = tokenizer.text_tokens(text);
        let note = format!("[tool output of about {before} tokens left out to fit the request]");
        if let Some(parts) = fitting.cut((m, p), note, "tool_result") {
            return Ok(fitting.fitted(parts));
        }
    }

    // 2. and 3. Long texts cut in the middle: everything but the user's own words first.
    let own: Vec<bool> = fitting.messages.iter().map(is_real_user_request).collect();
    for users in [false, true] {
        while let Some((chars, m, p)) = fitting.longest_text(&own, users) {
            let Part::Text(text) = &fitting.messages[m].parts[p] else {
                break;
            };
            let cut = cut_middle(text, chars / 2, tokenizer.text_tokens(text));
            if let Some(parts) = fitting.cut((m, p), cut, "text") {
                return Ok(fitting.fitted(parts));
            }
        }
    }
    let parts = fitting.render();
    fitting.tokens = request_tokens(&parts, tokenizer);
    if fitting.tokens <= max_tokens {
        return Ok(fitting.fitted(parts));
    }
    Err(TooLarge {
        tokens: fitting.tokens,
        max_tokens,
    })
}

/// A request being shrunk: its messages as cut so far, and what was cut.
struct Fitting<'b> {
    messages: Vec<Message<'b>>,
    /// Whether each message is a previous compaction's summary (never cut).
    summaries: Vec<bool>,
    body: &'b str,
    instruction: Option<&'b str>,
    max_tokens: u64,
    tokenizer: Tokenizer,
    cuts: Vec<Cut>,
    /// The running estimate of the request's units.
    units: u64,
    /// The request's tokens when last counted whole.
    tokens: u64,
}

impl Fitting<'_> {
    /// The request's parts as the messages stand.
    fn render(&self) -> Vec<String> {
        let refs: Vec<&Message> = self.messages.iter().collect();
        request_parts(&refs, self.body, self.instruction)
    }

    fn fitted(self, parts: Vec<String>) -> Fitted {
        Fitted {
            parts,
            cuts: self.cuts,
            tokens: self.tokens,
        }
    }

    /// The tool results that may be cut, in the order they are: protected tools last, oldest
    /// first.
    fn tool_results(&self) -> Vec<(usize, usize)> {
        let names = tool_names(&self.messages);
        let mut results: Vec<(bool, usize, usize)> = Vec::new();
        for (m, message) in self.messages.iter().enumerate() {
            if self.summaries[m] {
                continue;
            }
            for (p, part) in message.parts.iter().enumerate() {
                if let Part::ToolResult { call_id, .. } = part {
                    let id = call_id.as_deref().or(message.call_id.as_deref());
                    let protected = id
                        .and_then(|id| names.get(id))
                        .is_some_and(|name| PROTECTED_TOOLS.contains(name));
                    results.push((protected, m, p));
                }
            }
        }
        results.sort_by_key(|&(protected, m, p)| (protected, m, p));
        results.into_iter().map(|(_, m, p)| (m, p)).collect()
    }

    /// The longest text part still worth cutting, of the user's own words (`users`) or of
    /// everything else: its characters and place (the earliest of equals).
    fn longest_text(&self, own: &[bool], users: bool) -> Option<(usize, usize, usize)> {
        self.messages
            .iter()
            .enumerate()
            .filter(|&(m, _)| !self.summaries[m] && own[m] == users)
            .flat_map(|(m, message)| {
                message
                    .parts
                    .iter()
                    .enumerate()
                    .filter_map(move |(p, part)| match part {
                        Part::Text(text) => Some((text.chars().count(), m, p)),
                        _ => None,
                    })
            })
            .filter(|&(chars, _, _)| chars > MIN_CUT_CHARS)
            .max_by_key(|&(chars, m, p)| (chars, std::cmp::Reverse((m, p))))
    }

    /// Cuts part `p` of message `m` to `text`; the request's parts when it fits now. Each cut
    /// changes the estimate by what it removed; the request is counted whole again only when
    /// the running estimate says it fits (estimates of parts and of their concatenation can
    /// differ a little), which keeps a long session's fit linear.
    fn cut(&mut self, at: (usize, usize), text: String, kind: &str) -> Option<Vec<String>> {
        let tokenizer = self.tokenizer;
        cut_part(
            &mut self.messages,
            at,
            text,
            kind,
            tokenizer,
            &mut self.cuts,
            &mut self.units,
        );
        if tokenizer.tokens(self.units) > self.max_tokens {
            return None;
        }
        let parts = self.render();
        self.tokens = request_tokens(&parts, tokenizer);
        self.units = tokenizer.text_units(&format!("{SYSTEM_PROMPT}{}", parts.concat()));
        (self.tokens <= self.max_tokens).then_some(parts)
    }
}

/// Replaces the text of part `p` of message `m` (a tool result stays one, with its call id),
/// notes the cut, and moves the running estimate `units` by the difference.
fn cut_part(
    messages: &mut [Message],
    (m, p): (usize, usize),
    text: String,
    kind: &str,
    tokenizer: Tokenizer,
    cuts: &mut Vec<Cut>,
    units: &mut u64,
) {
    let new_units = tokenizer.text_units(&text);
    let (Part::Text(old) | Part::ToolResult { text: old, .. }) = &mut messages[m].parts[p] else {
        return;
    };
    let old_units = tokenizer.text_units(old);
    *old = text.into();
    cuts.push(Cut {
        message: m + 1,
        kind: kind.to_owned(),
        tokens: [tokenizer.tokens(old_units), tokenizer.tokens(new_units)],
    });
    *units = (*units + new_units).saturating_sub(old_units);
}

/// Texts this short (in characters) are not cut further: the marker would be most of them.
const MIN_CUT_CHARS: usize = 400;

/// `text` with its middle left out: about `keep` characters kept, half from each end, around a
/// marker saying how much went.
fn cut_middle(text: &str, keep: usize, tokens: u64) -> String {
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..keep / 2].iter().collect();
    let tail: String = chars[chars.len() - keep / 2..].iter().collect();
    format!("{head}\n[... the middle of this message, of about {tokens} tokens in all, was cut to fit the request ...]\n{tail}")
}

/// The tool name of each call id the messages make.
fn tool_names<'m>(messages: &'m [Message]) -> HashMap<&'m str, &'m str> {
    messages
        .iter()
        .flat_map(|message| &message.parts)
        .filter_map(|part| match part {
            Part::ToolCall {
                id: Some(id), name, ..
            } => Some((id.as_ref(), name.as_ref())),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Entry, Role};

    fn record(message: Message<'static>) -> Record<'static> {
        Record::new(1, b"", Entry::Message(message))
    }

    fn text(role: Role, text: String) -> Record<'static> {
        record(Message::new(role, vec![Part::Text(text.into())]))
    }

    fn call(id: &'static str, name: &'static str) -> Record<'static> {
        record(Message::new(
            Role::Assistant,
            vec![Part::ToolCall {
                id: Some(id.into()),
                name: name.into(),
                arguments: "{}".into(),
            }],
        ))
    }

    fn result(id: &'static str, text: String) -> Record<'static> {
        record(Message::new(
            Role::Tool,
            vec![Part::ToolResult {
                call_id: Some(id.into()),
                text: text.into(),
            }],
        ))
    }

    fn session() -> Vec<Record<'static>> {
        vec![
            text(Role::User, format!("the goal {}", "g".repeat(2000))),
            call("t1", "Read"),
            result("t1", "a".repeat(8000)),
            call("t2", "TodoWrite"),
            result("t2", "todo ".repeat(400)),
            call("t3", "Bash"),
            result("t3", "b".repeat(8000)),
            text(Role::Assistant, "c".repeat(6000)),
        ]
    }

    fn fitted(records: &[Record], max: u64) -> Result<Fitted, TooLarge> {
        let refs: Vec<&Record> = records.iter().collect();
        fit(&refs, "BODY", None, max, Tokenizer::Chars4)
    }

    #[test]
    fn a_request_that_fits_is_untouched() {
        let records = session();
        let all = fitted(&records, 1_000_000).unwrap();
        assert!(all.cuts.is_empty());
        let refs: Vec<&Message> = records.iter().filter_map(Record::message).collect();
        assert_eq!(all.parts, request_parts(&refs, "BODY", None));
    }

    #[test]
    fn tool_output_goes_first_oldest_first_protected_last() {
        let records = session();
        let full = fitted(&records, u64::MAX).unwrap().tokens;
        let one = fitted(&records, full - 1000).unwrap();
        assert_eq!(one.cuts.len(), 1);
        assert_eq!(
            (one.cuts[0].message, one.cuts[0].kind.as_str()),
            (3, "tool_result")
        );
        let two = fitted(&records, full - 3000).unwrap();
        assert_eq!(
            two.cuts.iter().map(|c| c.message).collect::<Vec<_>>(),
            [3, 7],
            "the TodoWrite result (message 5) is cut after the others"
        );
        assert!(two.tokens <= full - 3000);
    }

    #[test]
    fn long_texts_are_cut_in_the_middle_the_users_words_last() {
        let records = session();
        let fitted = fitted(&records, 1200).unwrap();
        assert!(fitted.tokens <= 1200);
        let text_cuts: Vec<usize> = fitted
            .cuts
            .iter()
            .filter(|c| c.kind == "text")
            .map(|c| c.message)
            .collect();
        assert_eq!(
            text_cuts.first(),
            Some(&8),
            "the assistant's text before the user's"
        );
        let joined = fitted.parts.concat();
        assert!(
            joined.contains("the goal g"),
            "the start of the user's words stays"
        );
        assert!(joined.contains("was cut to fit the request"));
    }

    #[test]
    fn the_previous_summary_is_never_cut_and_too_little_room_is_an_error() {
        let mut records = vec![text(
            Role::User,
            format!(
                "<system>Previous context has been compacted. Here is the compaction output:</system>{}",
                "s".repeat(4000)
            ),
        )];
        records.extend(session());
        let error = fitted(&records, 900).unwrap_err();
        assert!(error.tokens > 900);
        assert!(
            error.to_string().contains("over --max-tokens 900"),
            "{error}"
        );
        let roomy = fitted(&records, 1500).unwrap();
        assert!(roomy.cuts.iter().all(|c| c.message != 1));
    }
}
