//! `condense prompt`: the compaction request for an LLM, as text, JSONL, or an OpenAI or
//! Anthropic request body; or the compactor's system prompt, or the prompt body alone.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::options;
use super::settings;
use super::shared::transcript_warnings;
use super::source::{instructions, read_source, single_source};
use crate::cli::{PromptArgs, RequestFormat};
use crate::compaction::report::plan_report;
use crate::compaction::request::{body_alone, request, RequestOptions};
use crate::input::Source;
use crate::output::{write_json_line, Warnings};
use crate::persist::guard;
use crate::request::body::{anthropic_body, chat_messages, openai_body};
use crate::request::SYSTEM_PROMPT;
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
    let body = options::body(args.prompt_file.as_deref(), args.style, &settings)?;
    if args.body {
        out.write_all(body_alone(&body, args.instructions.as_deref()).as_bytes())?;
        return Ok(Outcome::Success);
    }
    let source = single_source(&args.input)?;
    let instructions = instructions(&args.input, args.instructions.as_deref());
    if let Some(path) = &args.plan_file {
        refuse_plan_over_input(path, &source)?;
    }
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    let planning = options::plan(&args.plan, &settings, &transcript)?;
    let plan = planning.plan(&transcript)?;
    let tokenizer = planning.tokenizer;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let asked = RequestOptions {
        body,
        instructions,
        max_tokens: args.request_tokens,
    };
    let request = request(&transcript, &plan, &asked, tokenizer)?;
    if let Some(path) = &args.plan_file {
        let mut report = plan_report(&plan, &transcript, tokenizer);
        report.request = request.report.clone();
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
    let model = |default| {
        args.model
            .as_deref()
            .or(settings.compaction_model.as_deref())
            .unwrap_or(default)
    };
    let overrides = settings.settings_overrides.as_ref();
    let parts = &request.parts;
    match args.format {
        RequestFormat::Text => out.write_all(request.text().as_bytes())?,
        RequestFormat::Jsonl => {
            for message in chat_messages(parts) {
                write_json_line(out, &message)?;
            }
        }
        RequestFormat::Openai => {
            write_json_line(out, &openai_body(model("gpt-4o-mini"), parts, overrides))?
        }
        RequestFormat::Anthropic => {
            let model = model("claude-haiku-4-5");
            let body = anthropic_body(model, args.summary_tokens, parts, overrides);
            write_json_line(out, &body)?
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
