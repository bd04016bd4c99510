//! `condense man DIR`: writes the man pages of `man/`, compiled into the binary, so an installed
//! `condense` (`cargo install` copies no other file) can install its own documentation.

use std::io::Write;

use anyhow::{Context, Result};

use crate::cli::ManArgs;
use crate::Outcome;

/// Every man page, by file name. (A page added to `man/` and not here fails the `man` test.)
pub const PAGES: [(&str, &str); 17] = [
    ("condense.1", include_str!("../../man/condense.1")),
    (
        "condense-estimate.1",
        include_str!("../../man/condense-estimate.1"),
    ),
    (
        "condense-split.1",
        include_str!("../../man/condense-split.1"),
    ),
    (
        "condense-prompt.1",
        include_str!("../../man/condense-prompt.1"),
    ),
    (
        "condense-inject.1",
        include_str!("../../man/condense-inject.1"),
    ),
    (
        "condense-caveman.1",
        include_str!("../../man/condense-caveman.1"),
    ),
    ("condense-bare.1", include_str!("../../man/condense-bare.1")),
    (
        "condense-history.1",
        include_str!("../../man/condense-history.1"),
    ),
    ("condense-eval.1", include_str!("../../man/condense-eval.1")),
    (
        "condense-compact.1",
        include_str!("../../man/condense-compact.1"),
    ),
    (
        "condense-prune.1",
        include_str!("../../man/condense-prune.1"),
    ),
    (
        "condense-sessions.1",
        include_str!("../../man/condense-sessions.1"),
    ),
    (
        "condense-completions.1",
        include_str!("../../man/condense-completions.1"),
    ),
    ("condense-man.1", include_str!("../../man/condense-man.1")),
    (
        "condense-recipes.1",
        include_str!("../../man/condense-recipes.1"),
    ),
    (
        "condense-doctor.1",
        include_str!("../../man/condense-doctor.1"),
    ),
    ("condense-undo.1", include_str!("../../man/condense-undo.1")),
];

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
    for (name, text) in PAGES {
        let path = args.dir.join(name);
        std::fs::write(&path, text).with_context(|| format!("{}: cannot write", path.display()))?;
        writeln!(out, "{}", path.display())?;
    }
    Ok(Outcome::Success)
}
