//! What `history` prints: the records of compacted epochs that hold a text (`--search`), or the
//! list of epochs as JSON lines or a Markdown table.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use super::epochs::{Listed, Row};
use crate::cli::ReportFormat;
use crate::output::{sanitize, write_json_line, Table};
use crate::transcript::classify::text_of;

/// Writes each record of `epochs` whose text holds `needle`; false when none does.
pub fn search(out: &mut dyn Write, epochs: &[Listed], needle: &str) -> Result<bool> {
    let mut found = false;
    for (number, epoch) in epochs.iter().enumerate() {
        for &index in &epoch.records {
            let record = &epoch.source.records[index];
            let Some(message) = record.message() else {
                continue;
            };
            let text = text_of(message);
            let Some(at) = text.find(needle) else {
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
    Ok(found)
}

/// Writes the list of `epochs`.
pub fn list(out: &mut dyn Write, epochs: &[Listed], format: ReportFormat) -> Result<()> {
    let rows: Vec<Row> = epochs
        .iter()
        .enumerate()
        .map(|(i, e)| e.row(i + 1))
        .collect();
    match format {
        ReportFormat::Jsonl => {
            for row in &rows {
                write_json_line(out, row)?;
            }
        }
        ReportFormat::Markdown | ReportFormat::Text => {
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
            if format == ReportFormat::Text {
                table.write_text(out)?;
            } else {
                table.write(out)?;
            }
        }
    }
    Ok(())
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

/// A record of a compacted epoch that holds the searched text.
#[derive(Serialize)]
struct Found<'a> {
    epoch: usize,
    file: &'a str,
    line: usize,
    role: &'static str,
    excerpt: String,
}
