//! What the commands say of a transcript's unusable lines: a cut-off last line (refused where
//! a write would lose it, else warned about) and malformed lines skipped.

use std::path::Path;

use anyhow::{bail, Result};

use crate::output::Warnings;
use crate::transcript::load::Transcript;

/// Refuses a transcript whose last line is cut off: writing a compaction now would lose the
/// rest of that line, which the agent is still writing.
pub fn refuse_cut_off(transcript: &Transcript, verb: &str) -> Result<()> {
    if let Some(index) = transcript.incomplete {
        if crate::persist::journal::left_beside(Path::new(&transcript.name)) {
            bail!(
                "{}:{}: the last line is the start of condense's own compaction records, left by \
                 a run that was killed while writing them; any --in-place run on the session \
                 removes it first",
                transcript.name,
                transcript.lines[index].number
            );
        }
        bail!(
            "{}:{}: the last line is cut off (a session still being written?); {verb} now \
             would lose it, so wait until the agent has finished writing",
            transcript.name,
            transcript.lines[index].number
        );
    }
    Ok(())
}

/// Warnings about lines a transcript could not use.
pub fn transcript_warnings(transcript: &Transcript, warnings: &mut Warnings) {
    if let Some(index) = transcript.incomplete {
        let whose = if crate::persist::journal::left_beside(Path::new(&transcript.name)) {
            "condense's own records, left by a killed run; an --in-place run removes them"
        } else {
            "a session still being written?"
        };
        warnings.push(format!(
            "{}:{}: the last line is cut off ({whose}); not read",
            transcript.name, transcript.lines[index].number
        ));
    }
    if let Some(first) = transcript.skipped.first() {
        warnings.push(format!(
            "{}: skipped {} malformed line(s); the first: {first}",
            transcript.name,
            transcript.skipped.len()
        ));
    }
}
