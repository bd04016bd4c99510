//! `condense eval`: grades summaries at every compaction of the sessions given (the work is
//! in [`crate::eval`]). This file reads the sessions and the probe files, makes the built-in
//! summaries in-process, runs the `--cmd` ones, and writes the rows.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use super::options;
use super::shared::transcript_warnings;
use super::source::{read_source, sources};
use crate::cli::{Builtin, EvalArgs, EvalFormat};
use crate::compaction::extract::live_extract;
use crate::eval::cuts::{at_cuts, real_cuts, Cut};
use crate::eval::grade::{grade, reused, Prefix, Summary};
use crate::eval::pieces::{context_pieces, written_pieces};
use crate::eval::probes::{self, Probe, ProbeFile};
use crate::eval::report::{markdown, Row, RowOf};
use crate::extract::{bare, caveman};
use crate::input::Source;
use crate::output::{sanitize, write_json_line, Warnings};
use crate::tokens::Tokenizer;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::{Outcome, UsageError};

/// bare's default budget, which `eval` runs it at.
const BARE_BUDGET: u64 = 100;

/// A `--cmd` summariser.
struct Shell {
    name: String,
    command: String,
}

/// Runs `eval`.
pub fn run(args: &EvalArgs, out: &mut dyn Write) -> Result<Outcome> {
    let tokenizer = args.tokens.tokenizer()?;
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
            Ok(source) => eval_source(source, args, &shells, &probe_files, tokenizer),
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

/// The rows of one session.
fn eval_source(
    source: &Source,
    args: &EvalArgs,
    shells: &[Shell],
    probe_files: &[(PathBuf, ProbeFile)],
    tokenizer: Tokenizer,
) -> Result<(Vec<Row>, Warnings)> {
    let name = source.name();
    let bytes = read_source(source)?;
    let options = options::load(&args.input.read);
    let transcript = Transcript::parse(&name, &bytes, options)?;
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let Some(format) = transcript.format else {
        return Ok((Vec::new(), warnings));
    };
    let records = &transcript.records;
    let mut cuts = real_cuts(format, records, args.horizon);
    if cuts.is_empty() {
        cuts = at_cuts(records, &args.at, args.horizon);
        if cuts.is_empty() {
            warnings.push(format!(
                "{name}: no compaction to grade{}",
                if args.at.is_empty() {
                    " (--at N|P% cuts a session with none)"
                } else {
                    ", and no --at place within its messages"
                }
            ));
        }
    }
    let path = match source {
        Source::File(path) => path.to_string_lossy().replace('\\', "/"),
        Source::Stdin => String::new(),
    };
    let mut rows = Vec::new();
    for cut in &cuts {
        let prefix_bytes = whole_lines(&bytes, cut.prefix_lines);
        let prefix_options = LoadOptions {
            from: Some(format),
            ..options
        };
        let prefix = Transcript::parse(&name, prefix_bytes, prefix_options)?;
        if !prefix.context.iter().any(|r| r.message().is_some()) {
            warnings.push(format!(
                "{name}:{}: nothing before this compaction in the file (kimi-cli keeps it in \
                 the rotated context_N.jsonl); not graded",
                cut.line
            ));
            continue;
        }
        let mut pieces = Vec::new();
        for record in &prefix.context {
            context_pieces(record, &mut pieces);
        }
        let model = Prefix::new(&pieces);
        let mut suffix = Vec::new();
        for record in &records[cut.suffix.clone()] {
            written_pieces(record, &mut suffix);
        }
        let needed = reused(&model, &suffix);
        let summaries = summaries(cut, &prefix, &model, prefix_bytes, args, shells, tokenizer)
            .with_context(|| format!("{name}:{}", cut.line))?;
        let probes: Vec<Probe> = probe_files
            .iter()
            .filter(|(_, file)| file.is_for(&path, cut.line))
            .flat_map(|(_, file)| file.probes.iter().cloned())
            .collect();
        let has_probes = probe_files.iter().any(|(_, f)| f.is_for(&path, cut.line));
        for (summary_name, text) in &summaries {
            let graded = grade(&model, &needed, &Summary::new(text));
            rows.push(Row::new(RowOf {
                file: &name,
                cut: (cut.line, cut.kind),
                summary: (summary_name, text, tokenizer.text_tokens(text)),
                needed: &needed,
                grade: &graded,
                probes: has_probes.then_some(probes.as_slice()),
                show_lost: args.show_lost,
            }));
        }
    }
    Ok((rows, warnings))
}

/// The summaries of one cut, by name, in the order native, caveman, bare, baseline, then the
/// `--cmd` ones.
fn summaries(
    cut: &Cut,
    prefix: &Transcript,
    model: &Prefix,
    prefix_bytes: &[u8],
    args: &EvalArgs,
    shells: &[Shell],
    tokenizer: Tokenizer,
) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let extract = live_extract(prefix);
    for builtin in [
        Builtin::Native,
        Builtin::Caveman,
        Builtin::Bare,
        Builtin::Baseline,
    ] {
        if !args.builtin.contains(&builtin) {
            continue;
        }
        let (name, text) = match builtin {
            Builtin::Native => match &cut.native {
                Some(text) => ("native", text.clone()),
                None => continue,
            },
            Builtin::Caveman => ("caveman", caveman(&extract, args.budget, tokenizer)),
            Builtin::Bare => ("bare", bare(&extract, BARE_BUDGET, tokenizer).lines()),
            Builtin::Baseline => ("baseline", model.baseline(args.budget, tokenizer)),
        };
        out.push((name.to_owned(), text));
    }
    if !shells.is_empty() {
        let file = PrefixFile::write(prefix_bytes)?;
        for shell in shells {
            out.push((shell.name.clone(), file.run(shell)?));
        }
    }
    Ok(out)
}

/// The first `count` lines of `bytes`, terminators included.
fn whole_lines(bytes: &[u8], count: usize) -> &[u8] {
    let mut end = 0;
    for _ in 0..count {
        match memchr::memchr(b'\n', &bytes[end..]) {
            Some(i) => end += i + 1,
            None => return bytes,
        }
    }
    &bytes[..end]
}

/// The prefix, written to a file of its own in the temporary directory for the `--cmd`
/// summarisers, and removed when dropped.
struct PrefixFile(PathBuf);

impl PrefixFile {
    fn write(bytes: &[u8]) -> Result<Self> {
        static SERIAL: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir();
        loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(
                "condense-eval-{}-{serial}.jsonl",
                std::process::id()
            ));
            // create_new: a file someone else left there is never written over.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let file_path = PrefixFile(path);
                    file.write_all(bytes).with_context(|| {
                        format!("{}: cannot write the prefix", file_path.0.display())
                    })?;
                    return Ok(file_path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => bail!("{}: cannot write the prefix: {e}", path.display()),
            }
        }
    }

    /// Runs a summariser on the prefix and returns its standard output.
    fn run(&self, shell: &Shell) -> Result<String> {
        let stdin = std::fs::File::open(&self.0)
            .with_context(|| format!("{}: cannot read the prefix", self.0.display()))?;
        let output = Command::new("sh")
            .arg("-c")
            .arg(&shell.command)
            .env("CONDENSE_PREFIX", &self.0)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .with_context(|| format!("--cmd {}: cannot run sh", shell.name))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or("").trim();
            bail!(
                "--cmd {} failed ({}){}",
                shell.name,
                output.status,
                if first.is_empty() {
                    String::new()
                } else {
                    format!(": {}", sanitize(first))
                }
            );
        }
        String::from_utf8(output.stdout)
            .map_err(|_| anyhow::anyhow!("--cmd {}: its output is not UTF-8", shell.name))
    }
}

impl Drop for PrefixFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
