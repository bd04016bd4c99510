//! `condense history`: the compactions of a session, what each summarised, and the originals
//! back, byte for byte (acp-kernel's decompress and search, for files).
//!
//! Append-only sessions (Claude Code, Codex, pi) keep every epoch in the file itself, closed by
//! its compaction marker ([`crate::history`]). Sessions whose format is rewritten by a
//! compaction (kimi-cli `context.jsonl`, OpenAI and Anthropic lists, Gemini) keep their earlier
//! versions only in the backups `inject --in-place` made beside them (`FILE.bak`,
//! `FILE.bak.N`): each backup is an epoch of its own, oldest first.

mod epochs;
mod write;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use self::epochs::list_epochs;
use super::options;
use super::shared::transcript_warnings;
use super::source::{read_source, single_source};
use crate::cli::{HistoryArgs, ReportFormat};
use crate::input::Source;
use crate::output::Warnings;
use crate::transcript::load::{LoadOptions, Transcript};
use crate::Outcome;

/// Runs `history`.
pub fn run(args: &HistoryArgs, out: &mut dyn Write) -> Result<Outcome> {
    let estimator = args.tokens.estimator(None)?;
    let source = single_source(&args.input)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
    let tokenizer = transcript.tokenizer(estimator);
    let mut warnings = Warnings::default();
    transcript_warnings(&transcript, &mut warnings);
    let backups = match &source {
        Source::File(path) => read_backups(path)?,
        Source::Stdin => Vec::new(),
    };
    let mut views = Vec::new();
    for (path, bytes) in &backups {
        let name = path.display().to_string();
        let options = LoadOptions {
            from: transcript.format,
            ..options::load(&args.input.read)
        };
        views.push(Transcript::parse(&name, bytes, options)?);
    }
    let epochs = list_epochs(&transcript, &views, tokenizer);

    if let Some(number) = args.show {
        let Some(epoch) = number.checked_sub(1).and_then(|i| epochs.get(i)) else {
            bail!(
                "{}: there is no epoch {number}; the session has {}",
                transcript.name,
                epochs.len()
            );
        };
        for &index in &epoch.records {
            out.write_all(epoch.source.record_full(index))?;
        }
    } else if let Some(needle) = &args.search {
        if !write::search(out, &epochs, needle)? {
            // As grep: no match is exit 1, with nothing printed.
            return Ok(Outcome::NoMatch);
        }
    } else {
        write::list(out, &epochs, ReportFormat::chosen(args.format))?;
    }
    out.flush()?;
    warnings.print();
    Ok(Outcome::Success)
}

/// The backups `inject --in-place` made of `path`, oldest first: `NAME.bak` and
/// `NAME.bak.N`, ordered by N (the plain one first).
fn read_backups(path: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(Vec::new());
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefix = format!("{name}.bak");
    let mut found: Vec<(u64, PathBuf)> = Vec::new();
    for entry in
        std::fs::read_dir(&dir).with_context(|| format!("{}: cannot list", dir.display()))?
    {
        let entry = entry?;
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let number = match rest.strip_prefix('.') {
            None if rest.is_empty() => 0,
            Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                digits.parse::<u64>().unwrap_or(u64::MAX)
            }
            _ => continue,
        };
        found.push((number, entry.path()));
    }
    found.sort();
    found
        .into_iter()
        .map(|(_, path)| {
            let bytes = std::fs::read(&path)
                .with_context(|| format!("{}: cannot read the backup", path.display()))?;
            Ok((path, bytes))
        })
        .collect()
}
