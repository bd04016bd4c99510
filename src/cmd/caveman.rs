//! PLACEHOLDER: `condense caveman` is being written.

use std::io::Write;

use anyhow::{bail, Result};

use crate::Outcome;

/// Runs `caveman`.
pub fn run(_args: &crate::cli::CavemanArgs, _out: &mut dyn Write) -> Result<Outcome> {
    bail!("`condense caveman` is being written")
}
