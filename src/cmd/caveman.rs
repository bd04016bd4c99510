//! `condense caveman`: a summary of one transcript with no model — goal, decisions, current
//! task and state, unresolved errors, files, commands with their outcomes, next step, CI and the
//! names being changed — in paths, counts, labels and exact commands, never over `--budget`
//! tokens. The work is in [`crate::extract`].

use std::io::Write;

use anyhow::Result;

use crate::cli::{CavemanArgs, CavemanFormat};
use crate::cmd::options;
use crate::cmd::shared::transcript_warnings;
use crate::cmd::source::{instructions, read_source, single_source};
use crate::compaction::extract::live_extract;
use crate::extract::caveman;
use crate::input::Source;
use crate::output::{write_json_line, OrderedMap, Warnings};
use crate::transcript::load::Transcript;
use crate::Outcome;

/// Runs `caveman`.
pub fn run(args: &CavemanArgs, out: &mut dyn Write) -> Result<Outcome> {
    let estimator = args.tokens.estimator(None)?;
    let source = single_source(&args.input)?;
    let instructions = instructions(&args.input, args.instructions.as_deref());
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    let tokenizer = transcript.tokenizer(estimator);
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let extract = live_extract(&transcript).with_instructions(instructions.as_deref());
    let summary = caveman(&extract, args.budget, tokenizer);
    match args.format {
        CavemanFormat::Markdown => out.write_all(summary.as_bytes())?,
        // The object `inject --summary` unwraps, so the two pipe together with no model; the
        // session it summarises and when, so that a hook's log of such lines says whose each is.
        CavemanFormat::Jsonl => {
            let session = match &source {
                Source::File(path) => crate::sessions::id_of(path),
                Source::Stdin => None,
            };
            let time = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
            let mut fields = vec![
                ("summary", summary.as_str()),
                ("file", transcript.name.as_str()),
            ];
            fields.extend(session.as_deref().map(|id| ("session", id)));
            fields.push(("time", time.as_str()));
            let object: OrderedMap<&str> = fields.into_iter().collect();
            write_json_line(out, &object)?;
        }
    }
    out.flush()?;
    warnings.print();
    Ok(Outcome::Success)
}
