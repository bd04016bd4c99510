//! `condense man DIR`: writes the man pages, generated from the command line itself
//! ([`crate::manual`]), so an installed `condense` (`cargo install` copies no other file) can
//! install its own documentation.

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::Outcome;

/// Runs `man`: writes every page into the directory and names each written file on stdout.
pub fn run(args: &ManArgs, out: &mut dyn Write) -> Result<Outcome> {
    if args.parents {
        std::fs::create_dir_all(&args.dir)
            .with_context(|| format!("{}: cannot create the directory", args.dir.display()))?;
    } else if !args.dir.is_dir() {
        anyhow::bail!(
            "{}: no such directory; create it, or pass --parents (-p)",
            args.dir.display()
        );
    }
    for page in crate::manual::pages(Cli::command())? {
        let path = args.dir.join(&page.file);
        std::fs::write(&path, page.text)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        writeln!(out, "{}", path.display())?;
    }
    Ok(Outcome::Success)
}
