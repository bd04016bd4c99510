//! `condense completions SHELL`: the shell completion script, generated from the CLI itself by
//! clap_complete, so it always offers exactly the commands and flags `--help` shows.

use std::io::Write;

use anyhow::Result;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::Outcome;

/// Runs `completions`.
pub fn run(args: &CompletionsArgs, out: &mut dyn Write) -> Result<Outcome> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "condense", out);
    Ok(Outcome::Success)
}
