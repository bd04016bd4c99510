//! `--verify` for the commands that write a compaction in place (`inject`, `compact`): the build
//! is made in memory, checked by [`crate::verify::check`], and handed to the writer only when
//! every check passes. A failed check is an error naming it, and the session is not touched.

use std::io::Write;

use anyhow::{bail, Result};

use crate::transcript::FormatId;
use crate::verify::{check, corrupt};

/// What a verified build checks against.
pub struct Verify<'a> {
    /// False with `--no-verify`: the build is written unchecked.
    pub enabled: bool,
    /// The session's name, for messages.
    pub name: &'a str,
    /// Its format, when the command was told it.
    pub from: Option<FormatId>,
    /// What the file held, which the build compacted.
    pub before: &'a [u8],
    /// The summary the build wrote.
    pub summary: &'a str,
}

impl Verify<'_> {
    /// Runs `build` into `built` (emptied first), verifies what it wrote (unless verification
    /// is off or `compacted` says of its value that nothing was compacted), and writes it to
    /// `out`. `built` is the caller's buffer, reused when the build runs again.
    pub fn build<T>(
        &self,
        built: &mut Vec<u8>,
        out: &mut dyn Write,
        build: impl FnOnce(&mut dyn Write) -> Result<T>,
        compacted: impl FnOnce(&T) -> bool,
    ) -> Result<T> {
        built.clear();
        let value = build(&mut *built)?;
        if compacted(&value) {
            // The broken writer of the tests (see `verify::corrupt`).
            if let Some(kind) = std::env::var_os(corrupt::VARIABLE) {
                *built = corrupt::corrupt(&kind.to_string_lossy(), built, self.summary);
            }
            if self.enabled {
                if let Err(failed) = check(self.name, self.from, self.before, built, self.summary) {
                    bail!(
                        "{}: --verify: {failed}; the session was not written",
                        self.name
                    );
                }
            }
        }
        out.write_all(built)?;
        Ok(value)
    }
}
