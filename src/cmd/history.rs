//! `condense history`: the compactions of a session, what each summarised, and the originals
//! back, byte for byte (acp-kernel's decompress and search, for files).
//!
//! Append-only sessions (Claude Code, Codex, pi) keep every epoch in the file itself, closed by
//! its compaction marker ([`crate::history`]). Sessions whose format is rewritten by a
//! compaction (kimi-cli `context.jsonl`, OpenAI and Anthropic lists, Gemini) keep their earlier
//! versions only in the backups `inject --in-place` made beside them (`FILE.bak`,
//! `FILE.bak.N`): each backup is an epoch of its own, oldest first.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use super::options;
use super::shared::transcript_warnings;
use super::source::{read_source, single_source};
use crate::cli::{HistoryArgs, ReportFormat};
use crate::compaction::context_size;
use crate::history::epochs;
use crate::input::Source;
use crate::output::{sanitize, write_json_line, Table, Warnings};
use crate::summary::WRAPPER;
use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_compaction_summary, text_of};
use crate::transcript::load::{LoadOptions, Transcript};
use crate::Outcome;

/// Runs `history`.
pub fn run(args: &HistoryArgs, out: &mut dyn Write) -> Result<Outcome> {
    let tokenizer = args.tokens.tokenizer()?;
    let source = single_source(&args.input)?;
    let bytes = read_source(&source)?;
    let transcript = Transcript::parse(&source.name(), &bytes, options::load(&args.input.read))?;
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
        let mut found = false;
        for (number, epoch) in epochs.iter().enumerate() {
            for &index in &epoch.records {
                let record = &epoch.source.records[index];
                let Some(message) = record.message() else {
                    continue;
                };
                let text = text_of(message);
                let Some(at) = text.find(needle.as_str()) else {
                    continue;
                };
                found = true;
                write_json_line(
                    out,
                    &Found {
                        epoch: number + 1,
                        file: &epoch.source.name,
                        line: record.line,
                        role: message.role.as_str(),
                        excerpt: excerpt(&text, at, needle.len()),
                    },
                )?;
            }
        }
        if !found {
            // As grep: no match is exit 1, with nothing printed.
            return Ok(Outcome::NoMatch);
        }
    } else {
        let rows: Vec<Row> = epochs
            .iter()
            .enumerate()
            .map(|(i, e)| e.row(i + 1))
            .collect();
        match args.format {
            ReportFormat::Json => {
                for row in &rows {
                    write_json_line(out, row)?;
                }
            }
            ReportFormat::Markdown => {
                let mut table = Table::new(&[
                    "epoch", "file", "marker", "lines", "records", "before", "after", "summary",
                ]);
                for row in &rows {
                    table.row(vec![
                        row.epoch.to_string(),
                        row.file.clone(),
                        row.marker_line.map_or("-".to_owned(), |l| l.to_string()),
                        row.lines
                            .map_or("-".to_owned(), |[a, b]| format!("{a}-{b}")),
                        row.records.to_string(),
                        row.tokens_before.to_string(),
                        row.tokens_after.to_string(),
                        sanitize(&row.summary),
                    ]);
                }
                table.write(out)?;
            }
        }
    }
    out.flush()?;
    warnings.print();
    Ok(Outcome::Success)
}

/// One epoch: the records it summarised, in the transcript that holds them.
struct Listed<'t, 'a> {
    source: &'t Transcript<'a>,
    /// The marker's record index, for epochs closed in the file itself.
    marker: Option<usize>,
    records: Vec<usize>,
    tokens_before: u64,
    tokens_after: u64,
    summary: String,
}

impl Listed<'_, '_> {
    fn row(&self, epoch: usize) -> Row {
        let lines = self.source.records.as_slice();
        Row {
            epoch,
            file: self.source.name.clone(),
            marker_line: self.marker.map(|m| lines[m].line),
            lines: match (self.records.first(), self.records.last()) {
                (Some(&first), Some(&last)) => Some([lines[first].line, lines[last].line]),
                _ => None,
            },
            records: self.records.len(),
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            summary: self.summary.clone(),
        }
    }
}

/// The epochs of the backups (each one whole, oldest first), then those closed by markers in
/// the file.
fn list_epochs<'t, 'a>(
    transcript: &'t Transcript<'a>,
    backups: &'t [Transcript<'a>],
    tokenizer: Tokenizer,
) -> Vec<Listed<'t, 'a>> {
    let mut listed = Vec::new();
    let versions: Vec<&Transcript> = backups.iter().chain([transcript]).collect();
    for pair in versions.windows(2) {
        let (backup, next) = (pair[0], pair[1]);
        listed.push(Listed {
            source: backup,
            marker: None,
            records: (0..backup.records.len()).collect(),
            tokens_before: context_size(backup, tokenizer),
            tokens_after: context_size(next, tokenizer),
            summary: next
                .context
                .iter()
                .filter_map(|r| r.message())
                .find(|m| is_compaction_summary(m))
                .map(|m| first_line(&text_of(m)))
                .unwrap_or_default(),
        });
    }
    if let Some(format) = transcript.format {
        for epoch in epochs(format, &transcript.records, tokenizer) {
            listed.push(Listed {
                source: transcript,
                marker: Some(epoch.marker),
                records: epoch.summarised,
                tokens_before: epoch.tokens_before,
                tokens_after: epoch.tokens_after,
                summary: epoch.summary,
            });
        }
    }
    listed
}

/// The first non-blank line of a summary, after the wrapper kimi-cli (and condense) put it in.
fn first_line(text: &str) -> String {
    let text = text.trim_start();
    let text = text.strip_prefix(WRAPPER).unwrap_or(text);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    line.chars().filter(|c| !c.is_control()).take(200).collect()
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

/// Up to 80 characters either side of a match, on one line.
fn excerpt(text: &str, at: usize, len: usize) -> String {
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(80)
        .map_or(0, |(i, _)| i);
    let end = text[at + len..]
        .char_indices()
        .nth(80)
        .map_or(text.len(), |(i, _)| at + len + i);
    sanitize(&text[start..end].replace(['\n', '\r'], " "))
}

/// One epoch, as `history` lists it.
#[derive(Serialize)]
struct Row {
    epoch: usize,
    file: String,
    marker_line: Option<usize>,
    lines: Option<[usize; 2]>,
    records: usize,
    tokens_before: u64,
    tokens_after: u64,
    summary: String,
}

/// A record of a compacted epoch that holds the searched text.
#[derive(Serialize)]
struct Found<'a> {
    epoch: usize,
    file: &'a str,
    line: usize,
    role: &'static str,
    excerpt: String,
}
