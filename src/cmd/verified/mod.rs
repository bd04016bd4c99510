//! `--verify` for the commands that write a session in place (`inject`, `compact`, `prune`): the
//! result is made in memory (what it keeps of the session held where the session is, see
//! [`Held`]), checked by [`crate::verify`], and handed to the writer only when every check
//! passes. A failed check is an error naming it, and the session is not touched.
//! Here, too, the broken writer of the tests ([`crate::verify::corrupt`]) is let in when its
//! variable is set.

mod held;

use std::io::Write;

use anyhow::Result;

pub use held::Held;

use crate::compaction::writer;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::transcript::prune::rewrite::Pruned;
use crate::transcript::write::Compacted;
use crate::transcript::FormatId;
use crate::verify::{check_against, check_pruned, corrupt, read_before, Failed, Planned};

/// The corruption the tests ask for, if any (see [`corrupt`]).
fn corruption() -> Option<String> {
    std::env::var_os(corrupt::VARIABLE).map(|kind| kind.to_string_lossy().into_owned())
}

fn refuse(name: &str, failed: &Failed) -> anyhow::Error {
    anyhow::anyhow!("{name}: --verify: {failed}; the session was not written")
}

/// Writes the compaction `compacted` describes, in its transcript's own format (through the
/// tests' broken writer, when it keeps what the plan summarised).
pub fn write_compaction(
    format: Option<FormatId>,
    compacted: &Compacted,
    out: &mut dyn Write,
) -> Result<()> {
    let broken = corruption().and_then(|kind| corrupt::compacted(&kind, compacted));
    writer::write(format, broken.as_ref().unwrap_or(compacted), out)
}

/// What a verified compaction checks against.
pub struct Verify<'a> {
    /// False with `--no-verify`: the build is written unchecked.
    pub enabled: bool,
    /// The session's name, for messages.
    pub name: &'a str,
    /// Its format, when the command was told it.
    pub from: Option<FormatId>,
    /// What the file held, which the build compacted.
    pub before: &'a [u8],
    /// The same, as the build read it, when that was by the agent's rule (not `--whole-file`):
    /// then it is not read again.
    pub read: Option<&'a Transcript<'a>>,
    /// The summary the build wrote.
    pub summary: &'a str,
}

impl Verify<'_> {
    /// Runs `build`, verifies what it wrote against what `planned` says of its value the plan
    /// did (unless verification is off, or nothing was compacted: `None`), and writes it to
    /// `out`. What the build writes is [`Held`] over `before`: a compaction appended to the
    /// session is held as its new records, not as the session again.
    pub fn build<T>(
        &self,
        out: &mut dyn Write,
        build: impl FnOnce(&mut dyn Write) -> Result<T>,
        planned: impl FnOnce(&T) -> Option<&Planned>,
    ) -> Result<T> {
        let mut held = Held::over(self.before);
        let value = build(&mut held)?;
        let corruption = corruption();
        if let Some(planned) = planned(&value).filter(|_| self.enabled || corruption.is_some()) {
            let parsed;
            let old = match self.read {
                Some(read) => read,
                None => {
                    parsed = read_before(self.name, self.from, self.before)
                        .map_err(|failed| refuse(self.name, &failed))?;
                    &parsed
                }
            };
            if let Some(kind) = corruption {
                let whole = held.parts().concat();
                let broken = corrupt::corrupt(&kind, old, &whole, self.summary, &|_| true);
                held = Held::whole(broken);
            }
            if self.enabled {
                if let Err(failed) = check_against(old, &held.parts(), self.summary, planned) {
                    return Err(refuse(self.name, &failed));
                }
            }
        }
        held.write_to(out)?;
        Ok(value)
    }
}

/// `--verify` for a prune: `built`, the session `pruned` describes as written (the tests'
/// broken writer let in), checked unless `enabled` is false. `before` is what the file held,
/// read as `load` says into `pruned.transcript`. The bytes to write, or the error naming the
/// check that failed.
pub fn verify_pruned<'b>(
    enabled: bool,
    pruned: &Pruned,
    before: &[u8],
    load: LoadOptions,
    built: Held<'b>,
) -> Result<Held<'b>> {
    let corruption = corruption();
    if !enabled && corruption.is_none() {
        return Ok(built);
    }
    let name = &pruned.transcript.name;
    let parsed;
    let old = if load.whole_file {
        parsed = read_before(name, pruned.transcript.format, before)
            .map_err(|failed| refuse(name, &failed))?;
        &parsed
    } else {
        pruned.transcript
    };
    let built = match corruption {
        Some(kind) => {
            let untouched = |record: usize| !pruned.edits.contains_key(&record);
            let whole = built.parts().concat();
            Held::whole(corrupt::corrupt(&kind, old, &whole, "", &untouched))
        }
        None => built,
    };
    if enabled {
        if let Err(failed) = check_pruned(pruned, old, &built.parts()) {
            return Err(refuse(name, &failed));
        }
    }
    Ok(built)
}
