//! A whole transcript in memory, for the commands that need all of it at once (planning,
//! prompting, injecting, extracting). `estimate` streams instead.
//!
//! A [`Transcript`] borrows the input's bytes and keeps every line, blank ones included, so
//! that any stretch of it can be written back exactly as it was read. Beside the records in file
//! order it holds the live context: the records the agent sends its model, in the order it sends
//! them (see [`super::live`]), which is what the commands plan, render and extract from. The
//! context is read where it lies when it is a stretch of the records in file order, and copied
//! only when it is not ([`Transcript::context`]).

use std::ops::Range;

use anyhow::Result;
use rayon::prelude::*;

use super::format::session_tokenizer;
use super::line_records::LineRecords;
use super::live::{live, newest_void, Live, Node};
use super::model::Record;
use super::read::{detect_format, no_message_error, read_records, BadLine};
use super::registry::{Agent, FormatId};
use super::write::File;
use crate::input::{lines, Line};
use crate::tokens::{Estimator, Tokenizer};

/// The most lines one task reads into a list of their records: some 200 KiB of list, just above
/// the 128 KiB from which glibc gives a block pages of its own (see [`Transcript::parse_parts`]).
const STRETCH_LINES: usize = 1024;

/// How to read a transcript.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    /// The format, instead of detecting it.
    pub from: Option<FormatId>,
    /// Skip malformed lines instead of failing.
    pub skip_invalid: bool,
    /// Take every record, in file order, as the context (the agent's own rule ignored).
    pub whole_file: bool,
}

/// A transcript read into memory.
#[derive(Debug)]
pub struct Transcript<'a> {
    /// The input's name, for messages.
    pub name: String,
    /// Its format; `None` for an input with no non-blank line.
    pub format: Option<FormatId>,
    /// Every line of the input, in order.
    pub lines: Vec<Line<'a>>,
    /// The records, one per non-blank line that could be read, in order.
    pub records: Vec<Record<'a>>,
    /// For each record, the index of its line in `lines`.
    pub record_lines: Vec<usize>,
    /// Malformed lines skipped under `skip_invalid`, with their error (already located).
    pub skipped: Vec<String>,
    /// The index in `lines` of a cut-off last line (a session still being written).
    pub incomplete: Option<usize>,
    /// Which records are the live context, and in what order.
    pub live: Live,
    /// Where the records of the live context are (see [`Self::context`]).
    context: Context<'a>,
}

/// Where a transcript's live context is.
#[derive(Debug)]
enum Context<'a> {
    /// A stretch of [`Transcript::records`], in file order.
    Stretch(Range<usize>),
    /// Copies of the records, in the order the agent sends them.
    Copied(Vec<Record<'a>>),
}

impl<'a> Context<'a> {
    /// The context `live` picks from `records`: the stretch of them it is, if it is one.
    fn of(records: &[Record<'a>], live: &Live) -> Self {
        let first = live.order.first().copied().unwrap_or(0);
        let in_file_order = live.order.iter().enumerate().all(|(n, &i)| i == first + n);
        if in_file_order {
            Context::Stretch(first..first + live.order.len())
        } else {
            Context::Copied(live.order.iter().map(|&i| records[i].clone()).collect())
        }
    }
}

impl<'a> Transcript<'a> {
    /// The format's agent (what one message is, among its rules); an empty transcript, which
    /// has no format, gets the plain message list's.
    pub fn dialect(&self) -> &'static dyn Agent {
        self.format.unwrap_or(FormatId::Openai).format()
    }

    /// The estimator to count this transcript with: the one named, or when none was, its
    /// agent's own for the first model its lines name
    /// ([`default_tokenizer`](super::format::Format::default_tokenizer)).
    pub fn tokenizer(&self, estimator: Estimator) -> Tokenizer {
        match estimator {
            Estimator::Given(tokenizer) => tokenizer,
            Estimator::Session | Estimator::SessionFamily => {
                let agent = self.dialect();
                let model = self.lines.iter().find_map(|line| agent.model(line.text));
                session_tokenizer(agent, estimator, model.as_deref())
            }
        }
    }

    /// The file as a writer sees it (see [`File`]).
    pub fn file(&self) -> File<'_, 'a> {
        File {
            lines: &self.lines,
            records: &self.records,
            record_lines: &self.record_lines,
            skipped: self.skipped.len(),
        }
    }

    /// Reads `bytes` (named `name` in messages). A malformed line fails with its location
    /// unless `options.skip_invalid` is set.
    pub fn parse(name: &str, bytes: &'a [u8], options: LoadOptions) -> Result<Self> {
        Self::parse_parts(name, &[bytes], options)
    }

    /// Reads the input made of `parts` one after the other exactly as [`Self::parse`] reads
    /// them joined, without joining them: a session read before and the records a compaction
    /// appends to it are read back where they are. Every part but the last must be empty or
    /// end at a line end (`\n`), so that no line spans two.
    pub fn parse_parts(name: &str, parts: &[&'a [u8]], options: LoadOptions) -> Result<Self> {
        crate::trace::parsed(name, parts);
        let mut all: Vec<Line<'a>> = Vec::new();
        for (index, part) in parts.iter().enumerate() {
            debug_assert!(
                index + 1 == parts.len() || part.is_empty() || part.ends_with(b"\n"),
                "a part of an input ends inside a line"
            );
            all.extend(lines(part, all.len() + 1));
        }
        let format = match options.from {
            Some(format) => Some(format),
            None => detect_format(name, all.iter().copied())?,
        };
        let mut transcript = Transcript {
            name: name.to_owned(),
            format,
            lines: Vec::new(),
            // About one record a line: reserved, they are not copied as they grow.
            records: Vec::with_capacity(all.len()),
            record_lines: Vec::with_capacity(all.len()),
            skipped: Vec::new(),
            incomplete: None,
            live: Live::default(),
            context: Context::Stretch(0..0),
        };
        // Reading lines is independent work, done on all cores a stretch of lines at a time;
        // assembling stays in order. Each stretch's records are a list of their own, let go
        // once they moved into the transcript. One list for the whole file was a block of some
        // 20 MB on a 100 MiB session, and glibc, handed a block that large back, raises its
        // threshold for giving a block pages of its own as high: every list of the commands
        // that ran next was then carved from the heap and left holes in it (issue 33).
        let stretch = (all.len() / (4 * rayon::current_num_threads())).clamp(1, STRETCH_LINES);
        let read: Vec<Vec<Option<Result<LineRecords<'a>, BadLine>>>> = all
            .par_chunks(stretch)
            .map(|lines| {
                let read = |line: &Line<'a>| match format {
                    Some(format) if !line.is_blank() => Some(read_records(format, line)),
                    _ => None,
                };
                lines.iter().map(read).collect()
            })
            .collect();
        for (index, result) in read.into_iter().flatten().enumerate() {
            match result {
                None => {}
                Some(Ok(records)) => {
                    for record in records {
                        transcript.records.push(record);
                        transcript.record_lines.push(index);
                    }
                }
                Some(Err(BadLine::Incomplete)) => transcript.incomplete = Some(index),
                Some(Err(BadLine::Invalid(error))) => {
                    let located = error.context(format!("{name}:{}", all[index].number));
                    if !options.skip_invalid {
                        return Err(located);
                    }
                    transcript.skipped.push(format!("{located:#}"));
                }
            }
        }
        transcript.lines = all;
        if let Some(format) = options.from {
            let read_one = transcript
                .records
                .iter()
                .any(|r| r.message().is_some_and(|m| !m.parts.is_empty()));
            if !read_one && !transcript.records.is_empty() {
                return Err(no_message_error(name, format));
            }
        }
        transcript.live = match format {
            Some(format) if !options.whole_file => {
                let nodes: Vec<Node> = transcript.records.iter().map(Node::of).collect();
                readable(format, &transcript.records, &nodes)
            }
            _ => Live {
                // The whole file, but a usage figure before the newest marker is still void.
                marker: transcript.records.iter().rposition(|r| r.compaction),
                ..Live::whole(transcript.records.len())
            }
            .voiding_before(newest_void(transcript.records.iter().map(|r| &r.link))),
        };
        transcript.context = Context::of(&transcript.records, &transcript.live);
        Ok(transcript)
    }

    /// The records of the live context, in the order the agent sends them: what the commands
    /// plan, render and extract from, while [`Self::records`] keeps every line for writing
    /// back. When they are a stretch of the file in its order (a session never compacted, or
    /// compacted by an agent that starts its file over) they are read where they are: a copy
    /// of every record was some 27 MB on a 100 MiB kimi-cli context (issue 33).
    pub fn context(&self) -> &[Record<'a>] {
        match &self.context {
            Context::Stretch(stretch) => &self.records[stretch.clone()],
            Context::Copied(records) => records,
        }
    }

    /// The index in `records` of the record at `position` of the live context.
    pub fn record_index(&self, position: usize) -> usize {
        self.live.order[position]
    }

    /// The exact bytes of the input lines from `first` up to (not including) `end`, blank
    /// lines and terminators included.
    pub fn line_bytes(&self, first: usize, end: usize) -> impl Iterator<Item = &'a [u8]> + '_ {
        self.lines[first..end].iter().map(|line| line.full)
    }

    /// The full bytes (with terminator) of record `index`'s line; for a record that is one of
    /// several on its line, the bytes of its own object.
    pub fn record_full(&self, index: usize) -> &'a [u8] {
        self.file().record_full(index)
    }
}

/// The live context of `records`, with the records an opaque summary stands for in its place:
/// when the newest compaction's summary is one the agent cannot read back (Codex's remote
/// compaction, [`super::format::Format::opaque_summary`]), the context is what the agent's rule
/// held just before that marker, then what it holds after it. The agent sends the encrypted
/// summary instead, but a summary condense writes must cover what it covered, and the records
/// are still in the file; Codex's own instructions, which open such a marker's history, are
/// never taken for a summary. Any other context is the agent's rule's.
fn readable(format: FormatId, records: &[Record], nodes: &[Node]) -> Live {
    let rule = format.format();
    let context = live(rule, nodes);
    let Some(marker) = context.marker.filter(|&marker| {
        records[marker].compaction && rule.opaque_summary(records[marker].raw).is_some()
    }) else {
        return context;
    };
    let before = live(rule, &nodes[..marker]);
    let mut order = before.order;
    order.extend(context.order.iter().copied().filter(|&i| i > marker));
    Live {
        order,
        marker: before.marker,
    }
}

/// The range of `transcript.lines` a range of records covers: from the line of its first
/// record up to the line of the next record after it, so consecutive ranges tile the input
/// (blank lines before the first record belong to the first range, and lines after the last
/// record to the last).
pub fn region_lines(transcript: &Transcript, records: &Range<usize>) -> Range<usize> {
    let line_of = |record: usize| {
        if record == 0 {
            0
        } else if record >= transcript.records.len() {
            transcript.lines.len()
        } else {
            transcript.record_lines[record]
        }
    };
    let start = line_of(records.start);
    start..line_of(records.end).max(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stretch_of_lines_is_read_into_a_list_with_pages_of_its_own() {
        let list = STRETCH_LINES * std::mem::size_of::<Option<Result<LineRecords, BadLine>>>();
        assert!(list > 128 << 10, "{list} bytes");
    }

    #[test]
    fn lines_read_a_stretch_at_a_time_keep_their_order_and_indexes() {
        let mut bytes = Vec::new();
        for n in 0..3 * STRETCH_LINES + 7 {
            bytes.extend_from_slice(
                format!("{{\"role\":\"user\",\"content\":\"{n}\"}}\n").as_bytes(),
            );
            if n % 5 == 0 {
                bytes.push(b'\n');
            }
        }
        let transcript = Transcript::parse("t", &bytes, LoadOptions::default()).unwrap();
        assert_eq!(transcript.records.len(), 3 * STRETCH_LINES + 7);
        for (n, (record, &line)) in transcript
            .records
            .iter()
            .zip(&transcript.record_lines)
            .enumerate()
        {
            assert_eq!(record.raw, transcript.lines[line].text);
            let text = format!("{{\"role\":\"user\",\"content\":\"{n}\"}}");
            assert_eq!(record.raw, text.as_bytes());
        }
        let all: Vec<u8> = transcript
            .line_bytes(0, transcript.lines.len())
            .flatten()
            .copied()
            .collect();
        assert_eq!(all, bytes);
    }

    #[test]
    fn the_context_is_the_live_order_whether_read_in_place_or_copied() {
        let mut in_place = 0;
        let mut copied = 0;
        for path in [
            "pi/pi-mono-large-session.jsonl",
            "claude-code/entireio-cli-7f78a542-queued.jsonl",
            "claude-code/claude-code-viewer-fe5e1c67.jsonl",
            "codex/agent-sessions-small.jsonl",
            "openai-chat/kimi-cli-swebench-531d195b.jsonl",
        ] {
            let bytes = crate::transcript::model::testing::corpus_bytes(path);
            let transcript = Transcript::parse(path, &bytes, LoadOptions::default()).unwrap();
            let context = transcript.context();
            let expected: Vec<&[u8]> = transcript
                .live
                .order
                .iter()
                .map(|&i| transcript.records[i].raw)
                .collect();
            let got: Vec<&[u8]> = context.iter().map(|r| r.raw).collect();
            assert_eq!(got, expected, "{path}");
            let records = transcript.records.as_ptr_range();
            if records.contains(&context.as_ptr()) {
                in_place += 1;
            } else {
                copied += 1;
            }
        }
        // Both ways are taken on the corpus.
        assert!(
            in_place > 0 && copied > 0,
            "{in_place} in place, {copied} copied"
        );
    }

    #[test]
    fn keeps_every_line_and_indexes_records() {
        let bytes = b"{\"role\":\"user\",\"content\":\"a\"}\n\n{\"role\":\"assistant\",\"content\":\"b\"}\n";
        let transcript = Transcript::parse("t", bytes, LoadOptions::default()).unwrap();
        assert_eq!(transcript.format, Some(FormatId::Openai));
        assert_eq!(transcript.lines.len(), 3);
        assert_eq!(transcript.records.len(), 2);
        assert_eq!(transcript.record_lines, vec![0, 2]);
        let all: Vec<u8> = transcript.line_bytes(0, 3).flatten().copied().collect();
        assert_eq!(all, bytes);
    }

    #[test]
    fn a_bad_line_fails_with_its_location_unless_skipped() {
        let bytes = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\n{\"role\":\"user\",\"content\":\"c\"}\n";
        let error = Transcript::parse("t.jsonl", bytes, LoadOptions::default()).unwrap_err();
        assert!(format!("{error:#}").starts_with("t.jsonl:2: invalid JSON"));
        let options = LoadOptions {
            skip_invalid: true,
            ..LoadOptions::default()
        };
        let transcript = Transcript::parse("t.jsonl", bytes, options).unwrap();
        assert_eq!(transcript.records.len(), 2);
        assert_eq!(transcript.skipped.len(), 1);
    }

    #[test]
    fn an_input_in_parts_reads_as_the_parts_joined() {
        use crate::transcript::model::testing::corpus_bytes;
        for file in [
            "claude-code/kimi-cli-5b2c427a42e0.jsonl",
            "pi/pi-mono-large-session.jsonl",
            "openai-chat/kimi-cli-swebench-531d195b.jsonl",
        ] {
            let bytes = corpus_bytes(file);
            let whole = Transcript::parse(file, &bytes, LoadOptions::default()).unwrap();
            // Cut after the line end nearest the middle, at the start, and at the end.
            let middle = bytes.len() / 2;
            let cut = middle + memchr::memchr(b'\n', &bytes[middle..]).unwrap() + 1;
            for at in [cut, 0, bytes.len()] {
                let (before, after) = bytes.split_at(at);
                let parts = Transcript::parse_parts(file, &[before, after], LoadOptions::default());
                assert_eq!(
                    format!("{:?}", parts.unwrap()),
                    format!("{whole:?}"),
                    "{file} cut at {at}"
                );
            }
        }
    }

    #[test]
    fn notes_a_cut_off_last_line() {
        let bytes = b"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"us";
        let transcript = Transcript::parse("t", bytes, LoadOptions::default()).unwrap();
        assert_eq!(transcript.incomplete, Some(1));
        assert_eq!(transcript.records.len(), 1);
    }
}
