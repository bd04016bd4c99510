//! `condense eval`: grades summaries at every compaction of the sessions given (the work is
//! in [`crate::eval`]). This file reads the probe files and writes the rows; each session's
//! rows are made in `cut` (the built-in summaries in-process), the `--cmd` ones run in `shell`.

mod cut;
mod shell;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use self::cut::eval_source;
use self::shell::Shell;
use super::source::sources;
use crate::cli::{EvalArgs, EvalFormat};
use crate::eval::probes::{self, ProbeFile};
use crate::eval::report::{markdown, Row};
use crate::output::{sanitize, write_json_line, Warnings};
use crate::{Outcome, UsageError};

/// Runs `eval`.
pub fn run(args: &EvalArgs, out: &mut dyn Write) -> Result<Outcome> {
    let estimator = args.tokens.estimator(None)?;
    let shells = args
        .cmd
        .iter()
        .map(|spec| match spec.split_once('=') {
            Some((name, command)) if !name.is_empty() && !command.trim().is_empty() => Ok(Shell {
                name: name.to_owned(),
                command: command.to_owned(),
            }),
            _ => Err(UsageError(format!(
                "--cmd takes NAME=COMMAND, not `{}`",
                sanitize(spec)
            ))),
        })
        .collect::<Result<Vec<Shell>, UsageError>>()?;
    let probe_files = match &args.probes {
        Some(path) => read_probes(path)?,
        None => Vec::new(),
    };
    let inputs = sources(&args.input)?;
    let results: Vec<Result<(Vec<Row>, Warnings)>> = inputs
        .par_iter()
        .map(|input| match input {
            Ok(source) => eval_source(source, args, &shells, &probe_files, estimator),
            Err(error) => Err(anyhow::anyhow!("{error:#}")),
        })
        .collect();
    // The first failure in argument order is the error, and nothing is printed.
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for result in results {
        let (mut more, warned) = result?;
        rows.append(&mut more);
        warnings.push(warned);
    }
    match args.format {
        EvalFormat::Jsonl => {
            for row in &rows {
                write_json_line(out, row)?;
            }
        }
        EvalFormat::Markdown => out.write_all(markdown(&rows).as_bytes())?,
    }
    out.flush()?;
    for warned in &warnings {
        warned.print();
    }
    Ok(Outcome::Success)
}

/// The probe files at `path`: the file, or a directory's `*.txt` files in name order.
fn read_probes(path: &Path) -> Result<Vec<(PathBuf, ProbeFile)>> {
    let paths = if path.is_dir() {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("{}: cannot list the probes", path.display()))?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}: cannot list the probes", path.display()))?;
        paths.retain(|p| p.extension().is_some_and(|e| e == "txt") && p.is_file());
        paths.sort();
        paths
    } else {
        vec![path.to_owned()]
    };
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("{}: cannot read the probes", path.display()))?;
            match probes::parse(&text) {
                Ok(file) => Ok((path, file)),
                Err(why) => bail!("{}: {why}", path.display()),
            }
        })
        .collect()
}
