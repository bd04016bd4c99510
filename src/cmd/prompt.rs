//! `condense prompt`: the compaction request for an LLM, as text, JSONL, or an OpenAI or
//! Anthropic request body; or the compactor's system prompt, or the prompt body alone.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::shared::{
    load_options, plan_for, plan_report, read_source, single_source, transcript_warnings,
    RequestReport,
};
use crate::cli::{PromptArgs, RequestFormat, Style};
use crate::cmd::settings;
use crate::input::Source;
use crate::output::{write_json_line, Warnings};
use crate::persist::guard;
use crate::prompts;
use crate::request::budget::fit;
use crate::request::{request_parts, SYSTEM_PROMPT};
use crate::settings::Flags;
use crate::transcript::load::Transcript;
use crate::Outcome;

/// Runs `prompt`.
pub fn run(args: &PromptArgs, out: &mut dyn Write) -> Result<Outcome> {
    if args.system {
        writeln!(out, "{SYSTEM_PROMPT}")?;
        return Ok(Outcome::Success);
    }
    let settings = settings::load(&args.plan.settings, Flags::default())?;
    let chosen = match (&args.prompt_file, args.style) {
        (Some(path), _) => Some(settings::read_prompt_file(path)?),
        (None, None) => settings::config_prompt(&settings)?,
        (None, Some(_)) => None,
    };
    let body =
        chosen.unwrap_or_else(|| prompts::body(args.style.unwrap_or(Style::Structured)).to_owned());
    if args.body {
        // The body alone, as an agent's own compaction prompt: without the rule that separates
        // it from the messages in a request, since the agent supplies the messages itself.
        let last = request_parts(&[], &body, args.instructions.as_deref())
            .pop()
            .unwrap_or_default();
        let text = last.trim_start_matches('\n');
        let text = text.strip_prefix("---\n").unwrap_or(text).trim_start();
        out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        return Ok(Outcome::Success);
    }
    let source = single_source(&args.input)?;
    if let Some(path) = &args.plan_file {
        refuse_plan_over_input(path, &source)?;
    }
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    let (plan, tokenizer) = plan_for(&args.plan, &transcript)?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);

    let records = plan.sent_records(&transcript.context);
    let (parts, request) = match args.max_tokens {
        Some(max_tokens) if plan.noop.is_none() => {
            let fitted = fit(
                &records,
                &body,
                args.instructions.as_deref(),
                max_tokens,
                tokenizer,
            )
            .with_context(|| transcript.name.clone())?;
            let report = RequestReport {
                max_tokens,
                tokens: fitted.tokens,
                cuts: fitted.cuts,
            };
            (fitted.parts, Some(report))
        }
        _ => {
            let messages: Vec<_> = records.iter().filter_map(|r| r.message()).collect();
            let parts = request_parts(&messages, &body, args.instructions.as_deref());
            (parts, None)
        }
    };
    if let Some(path) = &args.plan_file {
        let mut report = plan_report(&plan, &transcript, tokenizer);
        report.request = request;
        let report = serde_json::to_vec(&report)?;
        std::fs::write(path, [report, b"\n".to_vec()].concat())
            .with_context(|| format!("{}: cannot write the plan", path.display()))?;
    }
    if let Some(noop) = plan.noop {
        warnings.note(format!(
            "{}: nothing to compact: {}",
            transcript.name,
            noop.reason()
        ));
        warnings.print();
        return Ok(Outcome::NothingToCompact);
    }

    let system = ChatMessage {
        role: "system",
        content: Content::Text(SYSTEM_PROMPT),
    };
    let user = ChatMessage {
        role: "user",
        content: Content::Parts(
            parts
                .iter()
                .map(|text| TextPart { kind: "text", text })
                .collect(),
        ),
    };
    match args.format {
        RequestFormat::Text => out.write_all(parts.concat().as_bytes())?,
        RequestFormat::Jsonl => {
            write_json_line(out, &system)?;
            write_json_line(out, &user)?;
        }
        RequestFormat::Openai => {
            let model = args
                .model
                .as_deref()
                .or(settings.compaction_model.as_deref())
                .unwrap_or("gpt-4o-mini");
            write_json_line(
                out,
                &RequestBody {
                    model,
                    messages: [system, user],
                    overrides: settings.settings_overrides.as_ref(),
                },
            )?
        }
        RequestFormat::Anthropic => {
            let model = args
                .model
                .as_deref()
                .or(settings.compaction_model.as_deref())
                .unwrap_or("claude-haiku-4-5");
            write_json_line(
                out,
                &AnthropicBody {
                    model,
                    max_tokens: args.reply_tokens,
                    system: SYSTEM_PROMPT,
                    messages: [AnthropicMessage {
                        role: "user",
                        // The Messages API refuses empty text blocks.
                        content: parts
                            .iter()
                            .filter(|text| !text.is_empty())
                            .map(|text| TextPart { kind: "text", text })
                            .collect(),
                    }],
                    overrides: settings.settings_overrides.as_ref(),
                },
            )?
        }
    }
    warnings.print();
    Ok(Outcome::Success)
}

/// The plan is written, so it must not be the transcript it is made from (by any name: a hard
/// link, a symlink, `/dev/stdin`), or the session would be replaced by its own plan.
fn refuse_plan_over_input(plan: &Path, source: &Source) -> Result<()> {
    let same = match source {
        Source::File(transcript) => guard::same_file(plan, transcript),
        Source::Stdin => guard::is_stdin(plan),
    };
    if same {
        bail!(
            "{}: the plan file is the transcript; --plan takes a new file to write the plan to",
            plan.display()
        );
    }
    Ok(())
}

/// A chat message as OpenAI-style APIs take it (the user message keeps kimi-cli's list of text
/// parts).
#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    content: Content<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(Vec<TextPart<'a>>),
}

#[derive(Serialize)]
struct TextPart<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// A chat-completions request body with no tools, and the config file's settings overrides
/// (temperature, max_tokens …) beside `model` and `messages`.
#[derive(Serialize)]
struct RequestBody<'a> {
    model: &'a str,
    messages: [ChatMessage<'a>; 2],
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    overrides: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

/// An Anthropic Messages request body with no tools: the system prompt at the top level, the
/// request as one user message of text blocks.
#[derive(Serialize)]
struct AnthropicBody<'a> {
    model: &'a str,
    max_tokens: u64,
    system: &'a str,
    messages: [AnthropicMessage<'a>; 1],
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    overrides: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

#[derive(Serialize)]
struct AnthropicMessage<'a> {
    role: &'static str,
    content: Vec<TextPart<'a>>,
}
