//! `condense split`: print the plan, or one region's original lines.

use std::io::Write;

use anyhow::Result;

use super::shared::{
    load_options, plan_for, plan_report, read_source, single_source, transcript_warnings,
};
use crate::cli::{Region, SplitArgs};
use crate::output::{write_json_line, Warnings};
use crate::transcript::load::region_lines;
use crate::transcript::load::Transcript;
use crate::Outcome;

/// Runs `split`.
pub fn run(args: &SplitArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    let (plan, tokenizer) = plan_for(&args.plan, &transcript)?;
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
