//! `condense split`: print the plan, or one region's original lines.

use std::io::Write;

use anyhow::Result;

use super::options;
use super::settings;
use super::shared::transcript_warnings;
use super::source::{read_source, single_source};
use crate::cli::{Region, SplitArgs};
use crate::compaction::report::plan_report;
use crate::output::{write_json_line, Warnings};
use crate::settings::Flags;
use crate::transcript::load::region_lines;
use crate::transcript::load::Transcript;
use crate::Outcome;

/// Runs `split`.
pub fn run(args: &SplitArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    let settings = settings::load(&args.plan.settings, Flags::default())?;
    let planning = options::plan(&args.plan, &settings, &transcript)?;
    let plan = planning.plan(&transcript)?;
    let tokenizer = planning.tokenizer;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    match args.emit {
        None => write_json_line(out, &plan_report(&plan, &transcript, tokenizer))?,
        Some(region) => {
            let positions = match region {
                Region::Lead => &plan.lead,
                Region::Head => &plan.head,
                Region::Compact => &plan.compact,
                Region::Tail => &plan.tail,
            };
            if transcript
                .live
                .order
                .iter()
                .copied()
                .eq(0..transcript.records.len())
            {
                // The context is the file as it is: regions tile it, blank and cut-off lines
                // included. With no record every region is 0..0, which names no line; the plan
                // is then a no-op that keeps everything, so the tail is every line, as inject
                // writes it.
                let lines = if transcript.records.is_empty() && region == Region::Tail {
                    0..transcript.lines.len()
                } else {
                    region_lines(&transcript, positions)
                };
                for bytes in transcript.line_bytes(lines.start, lines.end) {
                    out.write_all(bytes)?;
                }
            } else {
                for position in positions.clone() {
                    let bytes = transcript.record_full(transcript.record_index(position));
                    out.write_all(bytes)?;
                    // A message of a Gemini `$set` list is an object within its line, with no
                    // terminator of its own: it is printed as a line.
                    if !bytes.ends_with(b"\n") {
                        out.write_all(b"\n")?;
                    }
                }
            }
        }
    }
    warnings.print();
    Ok(Outcome::Success)
}
