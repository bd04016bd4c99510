//! PLACEHOLDER: `condense bare` is being written.

use std::io::Write;

use anyhow::{bail, Result};

use crate::Outcome;

/// Runs `bare`.
pub fn run(_args: &crate::cli::BareArgs, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`condense bare` is being written")
}
