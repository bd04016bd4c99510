//! The commands whose issues are still open: they exist in `--help` from the start and say
//! plainly that they are not built yet.

use anyhow::{bail, Result};

use crate::Outcome;

/// Fails with a message naming the command that is not built yet.
pub fn run(command: &str) -> Result<Outcome> {
    bail!("`condense {command}` is not built yet; this release has `estimate` only")
}
