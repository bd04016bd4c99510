//! `condense inject`: the compacted transcript (or ACF handoff document), to stdout or, with
//! `--in-place`, atomically over the input file.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::compaction::compaction;
use super::shared::{
    load_options, plan_for, read_source, single_source, transcript_warnings, PlanReport,
};
use crate::cli::{InjectArgs, InjectFormat};
use crate::handoff::{self, Handoff};
use crate::input::Source;
use crate::output::Warnings;
use crate::plan::{fingerprint, plan, Plan};
use crate::summary;
use crate::tokens::Tokenizer;
use crate::transcript::load::Transcript;
use crate::transcript::write::Sink;
use crate::transcript::Record;
use crate::Outcome;

/// Runs `inject`.
pub fn run(args: &InjectArgs, out: &mut dyn Write) -> Result<Outcome> {
    let source = single_source(&args.input)?;
    let in_place = in_place_target(args, &source)?;
    let summary = read_summary(&args.summary, &source)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, load_options(&args.input))?;
    if let Some(index) = transcript.incomplete {
        bail!(
            "{}:{}: the last line is cut off (a session still being written?); injecting now \
             would lose it, so wait until the agent has finished writing",
            transcript.name,
            transcript.lines[index].number
        );
    }
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let (plan, tokenizer) = match &args.plan_file {
        Some(path) => checked_plan(path, &transcript)?,
        None => plan_for(&args.plan, &transcript)?,
    };

    if let Some(noop) = plan.noop {
        warnings.push(format!(
            "{}: nothing to compact ({}); the transcript is written unchanged",
            transcript.name,
            noop.reason()
        ));
        if in_place.is_none() {
            out.write_all(&bytes)?;
        }
        warnings.print();
        return Ok(Outcome::NothingToCompact);
    }

    let compacted = compaction(&transcript, &plan, &summary, tokenizer);
    let write = |out: &mut dyn Write| -> Result<()> {
        match args.format {
            InjectFormat::Jsonl => {
                let format = transcript
                    .format
                    .context("an empty transcript has no format")?;
                let mut sink = Sink::new(out);
                format.format().write_compacted(&compacted, &mut sink)?;
                Ok(sink.finish()?)
            }
            InjectFormat::Markdown => Ok(out.write_all(
                handoff_document(args, &transcript, &plan, &summary, tokenizer).as_bytes(),
            )?),
        }
    };
    // A dry run first: a writer that finds the input unusable fails before any byte reaches
    // the real output, and the result is streamed rather than held in memory a second time.
    write(&mut std::io::sink())?;
    match in_place {
        Some(path) => replace_atomically(&path, &args.backup_suffix, write)?,
        None => write(out)?,
    }
    warnings.print();
    Ok(Outcome::Success)
}

/// The file `--in-place` rewrites: the one FILE argument, which must be a file.
fn in_place_target(args: &InjectArgs, source: &Source) -> Result<Option<PathBuf>> {
    if !args.in_place {
        return Ok(None);
    }
    match source {
        Source::File(path) => Ok(Some(path.clone())),
        Source::Stdin => bail!("--in-place needs the transcript as a FILE, not standard input"),
    }
}

fn read_summary(path: &Path, transcript: &Source) -> Result<String> {
    let raw = if path.as_os_str() == "-" {
        if *transcript == Source::Stdin {
            bail!("--summary - reads standard input, so the transcript must be given as a FILE");
        }
        let mut raw = Vec::new();
        std::io::stdin()
            .read_to_end(&mut raw)
            .context("<stdin>: cannot read the summary")?;
        raw
    } else {
        if let Source::File(transcript) = transcript {
            let same = matches!(
                (fs::canonicalize(path), fs::canonicalize(transcript)),
                (Ok(a), Ok(b)) if a == b
            );
            if same {
                bail!(
                    "{}: the summary and the transcript are the same file; --summary takes the \
                     file the LLM wrote",
                    path.display()
                );
            }
        }
        fs::read(path).with_context(|| format!("{}: cannot read the summary", path.display()))?
    };
    let name = if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    summary::clean(&raw).with_context(|| name)
}

/// The plan a `prompt --plan` file describes, checked against the transcript as it is now: the
/// records it compacted must be unchanged; records appended since join the tail.
fn checked_plan(path: &Path, transcript: &Transcript) -> Result<(Plan, Tokenizer)> {
    let text =
        fs::read(path).with_context(|| format!("{}: cannot read the plan", path.display()))?;
    let report: PlanReport = serde_json::from_slice(&text).with_context(|| {
        format!(
            "{}: not a plan written by condense prompt --plan",
            path.display()
        )
    })?;
    let tokenizer = Tokenizer::from_name(&report.tokenizer)
        .with_context(|| format!("{}: unknown tokenizer in the plan", path.display()))?;
    let records = &transcript.context;
    if records.len() < report.records {
        bail!(
            "{}: the plan was made for {} records but the transcript now has {}; run prompt again",
            transcript.name,
            report.records,
            records.len()
        );
    }
    let mut plan = plan(&records[..report.records], report.mode, tokenizer)
        .with_context(|| transcript.name.clone())?;
    let before_tail = &records[..plan.tail.start];
    let now = fingerprint(before_tail);
    if plan.tail.start != report.fingerprint.records || now != report.fingerprint.hash {
        bail!(
            "{}: the records the plan compacts changed since the plan was made (plan {} over {} \
             records, now {} over {}); run prompt again",
            transcript.name,
            report.fingerprint.hash,
            report.fingerprint.records,
            now,
            plan.tail.start
        );
    }
    // Everything written after the plan was made is kept.
    plan.records = records.len();
    if plan.noop.is_none() {
        plan.tail.end = records.len();
    } else {
        plan.tail = 0..records.len();
    }
    Ok((plan, tokenizer))
}

fn handoff_document(
    args: &InjectArgs,
    transcript: &Transcript,
    plan: &Plan,
    summary: &str,
    tokenizer: Tokenizer,
) -> String {
    let records = &transcript.context;
    let compacted_tokens = tokenizer.messages_tokens(
        records[plan.compact.clone()]
            .iter()
            .filter_map(Record::message),
    );
    handoff::render(&Handoff {
        records,
        tail: plan.tail.clone(),
        compacted_tokens,
        summary,
        head_tokens: args.plan.head_tokens.unwrap_or(500),
        tail_tokens: args.plan.tail_tokens.unwrap_or(1000),
        tokenizer,
    })
}

/// Replaces `path` with what `write` writes so that at every instant `path` holds either the
/// original or the complete new transcript: the new text goes to a temporary file in the same
/// directory and is synced; the original is hard-linked to the backup name; then the temporary
/// file is renamed over `path`. `prune --in-place` uses it too.
pub(crate) fn replace_atomically(
    path: &Path,
    backup_suffix: &str,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?
        .to_string_lossy()
        .into_owned();
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let pid = std::process::id();
    let temporary = dir.join(format!(".{name}.condense-{pid}.tmp"));
    let backup = dir.join(format!("{name}{backup_suffix}"));
    let backup_link = dir.join(format!(".{name}.condense-{pid}.bak"));
    let result = (|| -> Result<()> {
        let permissions = fs::metadata(path)
            .with_context(|| format!("{}: cannot read", path.display()))?
            .permissions();
        let file = File::create(&temporary)
            .with_context(|| format!("{}: cannot write in this directory", dir.display()))?;
        let mut buffered = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut buffered)?;
        let file = buffered.into_inner().map_err(|e| e.into_error())?;
        file.set_permissions(permissions)?;
        file.sync_all()?;
        drop(file);
        // A hard link keeps the original's bytes under the backup name without copying; a
        // file system without links gets a copy.
        if fs::hard_link(path, &backup_link).is_err() {
            fs::copy(path, &backup_link)?;
        }
        fs::rename(&backup_link, &backup)?;
        fs::rename(&temporary, path)?;
        if let Ok(directory) = File::open(&dir) {
            let _ = directory.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
        let _ = fs::remove_file(&backup_link);
    }
    result.with_context(|| format!("{}: cannot replace in place", path.display()))
}
