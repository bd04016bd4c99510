//! The compaction request a plan makes, in one copy for `prompt` (which prints it) and
//! `compact` (which sends it to `--llm`): the messages the plan sends, numbered, then the
//! prompt body with the user's instruction ([`request_parts`]), shrunk to `--max-tokens` when
//! given ([`fit`]).

use anyhow::{Context, Result};

use super::report::RequestReport;
use crate::plan::Plan;
use crate::request::budget::fit;
use crate::request::request_parts;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;

/// What goes into the request besides the messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestOptions {
    /// The prompt body: `--prompt-file`'s text, else `--style`'s body, else the config file's
    /// prompt, else the structured style's.
    pub body: String,
    /// The user's focus for the summary (`--instructions`).
    pub instructions: Option<String>,
    /// Shrink the request to at most this many tokens (`--max-tokens`).
    pub max_tokens: Option<u64>,
}

/// A request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The text parts of its user message.
    pub parts: Vec<String>,
    /// How `max_tokens` shrank it, when it was given (and the plan compacts something).
    pub report: Option<RequestReport>,
}

impl Request {
    /// The user message as one text.
    pub fn text(&self) -> String {
        self.parts.concat()
    }
}

/// The request compacting `transcript` by `plan` sends.
pub fn request(
    transcript: &Transcript,
    plan: &Plan,
    options: &RequestOptions,
    tokenizer: Tokenizer,
) -> Result<Request> {
    let records = plan.sent_records(transcript.context());
    let instructions = options.instructions.as_deref();
    match options.max_tokens {
        Some(max_tokens) if plan.noop.is_none() => {
            let fitted = fit(&records, &options.body, instructions, max_tokens, tokenizer)
                .with_context(|| transcript.name.clone())?;
            Ok(Request {
                parts: fitted.parts,
                report: Some(RequestReport {
                    max_tokens,
                    tokens: fitted.tokens,
                    cuts: fitted.cuts,
                }),
            })
        }
        _ => {
            let messages: Vec<_> = records.iter().filter_map(|r| r.message()).collect();
            Ok(Request {
                parts: request_parts(&messages, &options.body, instructions),
                report: None,
            })
        }
    }
}

/// The body alone, with the instruction, as an agent's own compaction prompt (`prompt
/// --body`): without the rule that separates it from the messages in a request, since the
/// agent supplies the messages itself; it ends with a newline.
pub fn body_alone(body: &str, instructions: Option<&str>) -> String {
    let last = request_parts(&[], body, instructions)
        .pop()
        .unwrap_or_default();
    let text = last.trim_start_matches('\n');
    let text = text.strip_prefix("---\n").unwrap_or(text).trim_start();
    let mut text = text.to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_alone_drops_the_rule_and_ends_with_a_newline() {
        let alone = body_alone("\n---\n\nSummarise.", Some("keep the SQL"));
        assert!(alone.starts_with("Summarise.\n"), "{alone:?}");
        assert!(alone.ends_with("keep the SQL\n"), "{alone:?}");
        assert_eq!(body_alone("\n---\n\nBODY\n", None), "BODY\n");
    }
}
