//! A session measured as it is written: a [`Write`] that measures each stretch of complete lines
//! it is handed, on all cores, and folds them as [`super::file`] folds a file's blocks, so the
//! figures are those `estimate` reports for the file written. Only the records' measures are
//! kept, never the session: `compact --budget` sizes each rung of its ladder this way
//! at the cost of a stretch of lines, with no thread, pipe or block of its own (issue 33: a
//! rung measured through a pipe held some 30 MiB while it ran, more than a tenth of the input).

use std::io::{self, Write};

use anyhow::Result;

use super::file::{measure_lines, FileOptions, FileReport};
use super::kept::Expected;
use crate::input::lines;
use crate::tokens::{Estimator, Tokenizer};
use crate::transcript::read::detect_format;
use crate::transcript::FormatId;

/// How many bytes are gathered before the complete lines among them are measured: enough lines
/// for every core to share, few enough to stay in cache.
pub const STRETCH: usize = 1 << 20;

/// A session's bytes measured as they are written (see the module docs); [`Self::finish`]
/// gives the report.
pub struct WrittenMeasure {
    options: FileOptions,
    report: FileReport,
    tokenizer: Tokenizer,
    /// Bytes written and not measured yet: complete lines up to a stretch, then the start of
    /// an unfinished one.
    pending: Vec<u8>,
    /// The number of the first line in `pending`.
    next_line: usize,
    /// The first error of the measure: nothing more is measured after it, and
    /// [`Self::finish`] returns it (a write is never refused, so a writer's own error comes
    /// first).
    failed: Option<anyhow::Error>,
}

impl WrittenMeasure {
    /// A measure of the session named `name`, in format `from` (detected from its first lines
    /// when `None`), by `tokenizer`. A malformed line is skipped under `skip_invalid`, else the
    /// measure fails on it.
    pub fn new(
        name: &str,
        from: Option<FormatId>,
        tokenizer: Tokenizer,
        skip_invalid: bool,
    ) -> Self {
        WrittenMeasure {
            options: FileOptions {
                from,
                skip_invalid,
                estimator: Estimator::Given(tokenizer),
                per_message: false,
                whole_file: false,
                model: false,
                explain: false,
            },
            report: FileReport::new(name, from, tokenizer),
            tokenizer,
            pending: Vec::new(),
            next_line: 1,
            failed: None,
        }
    }

    /// Room for the measures of the records `expected`, reserved at once (a session written
    /// again record by record, as prune writes it, holds as many records as its input).
    pub fn expecting(mut self, expected: Expected) -> Self {
        self.report.reserve(expected);
        self
    }

    /// Measures the lines of `pending` up to `end` (just past a terminator, or its end), and
    /// drops them.
    fn measure_up_to(&mut self, end: usize) {
        if self.failed.is_none() {
            if let Err(error) = self.measure(end) {
                self.failed = Some(error);
            }
        }
        self.next_line += lines(&self.pending[..end], self.next_line).count();
        self.pending.drain(..end);
    }

    fn measure(&mut self, end: usize) -> Result<()> {
        let stretch = || lines(&self.pending[..end], self.next_line);
        if self.report.format.is_none() {
            self.report.format = detect_format(&self.report.name, stretch())?;
        }
        // Only blank lines so far.
        let Some(format) = self.report.format else {
            return Ok(());
        };
        let measured = measure_lines(format, stretch(), self.tokenizer);
        self.report.fold_block(measured, &self.options)
    }

    /// The report of everything written, its live context folded; the first error of the
    /// measure, if there was one.
    pub fn finish(mut self) -> Result<FileReport> {
        // The last line, terminated or not.
        self.measure_up_to(self.pending.len());
        if let Some(error) = self.failed {
            return Err(error);
        }
        self.report.finish(&self.options)?;
        Ok(self.report)
    }
}

impl Write for WrittenMeasure {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= STRETCH {
            if let Some(last) = memchr::memrchr(b'\n', &self.pending) {
                self.measure_up_to(last + 1);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::measure::file::measure_file;

    /// Every file of the corpus, measured as `estimate` measures the file and as written in
    /// small pieces, and again as one write over several stretches: the same figures.
    #[test]
    fn the_corpus_measures_as_the_files_do() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/corpus");
        let mut measured = 0;
        for folder in std::fs::read_dir(&corpus).unwrap() {
            let folder = folder.unwrap().path();
            if !folder.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&folder).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                let name = path.display().to_string();
                let options = FileOptions {
                    from: None,
                    skip_invalid: true,
                    estimator: Estimator::Given(Tokenizer::Chars4),
                    per_message: false,
                    whole_file: false,
                    model: false,
                    explain: false,
                };
                let file = measure_file(&name, &bytes[..], &options).unwrap();
                // Small pieces, and the file repeated past several stretches in one write.
                let mut pieces = WrittenMeasure::new(&name, None, Tokenizer::Chars4, true);
                bytes
                    .chunks(777)
                    .for_each(|piece| pieces.write_all(piece).unwrap());
                let mut repeated = WrittenMeasure::new(&name, None, Tokenizer::Chars4, true);
                let times = 3 * STRETCH / bytes.len().max(1) + 1;
                let mut long = bytes.repeat(times);
                // A file cut off mid-line joins the next copy: end each copy with a newline.
                if bytes.last() != Some(&b'\n') {
                    long = bytes
                        .iter()
                        .chain(b"\n")
                        .copied()
                        .collect::<Vec<_>>()
                        .repeat(times);
                }
                repeated.write_all(&long).unwrap();
                let long_file = measure_file(&name, &long[..], &options).unwrap();
                for (streamed, file) in [(pieces.finish(), file), (repeated.finish(), long_file)] {
                    let streamed = streamed.unwrap();
                    assert_eq!(streamed.format, file.format, "{name}");
                    assert_eq!(streamed.measure, file.measure, "{name}");
                    assert_eq!(streamed.file, file.file, "{name}");
                    assert_eq!(streamed.skipped, file.skipped, "{name}");
                    assert_eq!(streamed.incomplete_line, file.incomplete_line, "{name}");
                }
                measured += 1;
            }
        }
        assert!(measured >= 9, "only {measured} corpus files");
    }

    #[test]
    fn an_unreadable_session_is_the_measures_error() {
        let mut measure =
            WrittenMeasure::new("s", Some(FormatId::Openai), Tokenizer::Chars4, false);
        measure
            .write_all(b"{\"role\":\"user\",\"content\":\"a\"}\nnot json\n")
            .unwrap();
        let error = measure.finish().err().unwrap();
        assert!(format!("{error:#}").starts_with("s:2"), "{error:#}");
    }
}
