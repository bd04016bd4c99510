//! `condense bare`: four lines, `NOW:`, `NEXT:`, `TEST:`, `CI:`, within `--budget` tokens, for
//! scripts that `grep ^NEXT:` and for the last resort when even caveman is too big. The work is
//! in [`crate::extract`].

use std::io::Write;

use anyhow::Result;

use crate::cli::{BareArgs, BareFormat};
use crate::cmd::options;
use crate::cmd::shared::transcript_warnings;
use crate::cmd::source::{instructions, read_source, single_source};
use crate::compaction::extract::live_extract;
use crate::extract::bare;
use crate::output::{write_json_line, OrderedMap, Warnings};
use crate::transcript::load::Transcript;
use crate::Outcome;

/// Runs `bare`.
pub fn run(args: &BareArgs, out: &mut dyn Write) -> Result<Outcome> {
    let estimator = args.tokens.estimator(None)?;
    let source = single_source(&args.input)?;
    let instructions = instructions(&args.input, args.instructions.as_deref());
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    let tokenizer = transcript.tokenizer(estimator);
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let extract = live_extract(&transcript).with_instructions(instructions.as_deref());
    let lines = bare(&extract, args.budget, tokenizer);
    match args.format {
        BareFormat::Text => out.write_all(lines.lines().as_bytes())?,
        // The same values as the lines, `none` included, so `jq -r .test` prints what
        // `grep ^TEST:` finds.
        BareFormat::Jsonl => {
            let object: OrderedMap<&str> = [
                ("now", lines.now.as_str()),
                ("next", lines.next.as_str()),
                ("test", lines.test.as_str()),
                ("ci", lines.ci.as_str()),
            ]
            .into_iter()
            .collect();
            write_json_line(out, &object)?;
        }
    }
    out.flush()?;
    warnings.print();
    Ok(Outcome::Success)
}
