//! The epochs of a session, across its backups and the markers in the file: what each
//! compaction summarised, in the transcript that holds it, with its sizes and summary line.

use serde::Serialize;

use crate::compaction::context_size;
use crate::history::epochs;
use crate::tokens::Tokenizer;
use crate::transcript::classify::{is_compaction_summary, text_of};
use crate::transcript::load::Transcript;
use crate::transcript::write::WRAPPER;

/// One epoch: the records it summarised, in the transcript that holds them.
pub struct Listed<'t, 'a> {
    /// The transcript (the file, or one of its backups) that holds the records.
    pub source: &'t Transcript<'a>,
    /// The marker's record index, for epochs closed in the file itself.
    marker: Option<usize>,
    /// The records it summarised (indexes into `source`'s records).
    pub records: Vec<usize>,
    tokens_before: u64,
    tokens_after: u64,
    summary: String,
}

impl Listed<'_, '_> {
    /// The row `history` lists for it, as epoch number `epoch`.
    pub fn row(&self, epoch: usize) -> Row {
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
pub fn list_epochs<'t, 'a>(
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
                .context()
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

/// One epoch, as `history` lists it.
#[derive(Serialize)]
pub struct Row {
    pub epoch: usize,
    pub file: String,
    pub marker_line: Option<usize>,
    pub lines: Option<[usize; 2]>,
    pub records: usize,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub summary: String,
}
