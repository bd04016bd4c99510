//! What every agent's compacted-transcript writer shares: the [`Compacted`] input (the
//! session file as read, which of its records the compaction keeps and which the summary
//! replaces, and the cleaned summary), the [`WriteBack`] trait each agent implements, and a
//! [`Sink`] with the small tools for writing JSONL by hand without disturbing the bytes of kept
//! lines.
//!
//! The input names records, never a plan: how the cut was chosen is the planner's business, and
//! a writer only needs to know what to keep. Record lists are indexes into [`File::records`] in
//! the order of the live context.
//!
//! Writers never re-serialise a kept record: its line is copied byte for byte. The one
//! exception a format may need (a field a kept line must no longer carry) goes through
//! [`super::json::replace_top_level`], which rewrites that one value and leaves every other
//! byte as it was.

use anyhow::Result;

use super::model::Record;
use crate::input::Line;

/// kimi-cli's opening of an injected summary (`COMPACTION_OUTPUT_PREFIX`), as its `<system>`
/// part. condense opens the summaries it writes into message lists (kimi-cli, OpenAI,
/// Anthropic) and Gemini CLI sessions with it, and kimi-cli's reader knows it as a summary.
pub const WRAPPER: &str =
    "<system>Previous context has been compacted. Here is the compaction output:</system>";

/// One agent's way of writing a compacted session back.
pub trait WriteBack {
    /// Writes the compacted transcript: what the plan keeps, byte for byte, and the summary in
    /// the place and shape this agent uses for its own compactions, so the agent can resume.
    fn write_compacted(&self, compacted: &Compacted, out: &mut Sink) -> Result<()>;
}

/// The session file as a writer sees it: every line of the input, the records read from them,
/// and where each record sits. (A [`super::load::Transcript`] hands it out with `file()`.)
#[derive(Debug, Clone, Copy)]
pub struct File<'c, 'a> {
    /// Every line of the input, blank ones included, in order.
    pub lines: &'c [Line<'a>],
    /// The records, in file order.
    pub records: &'c [Record<'a>],
    /// For each record, the index of its line in `lines`.
    pub record_lines: &'c [usize],
    /// How many lines were skipped as unreadable (`--skip-invalid`).
    pub skipped: usize,
}

impl<'c, 'a> File<'c, 'a> {
    /// The full bytes (with terminator) of record `index`'s line; for a record that is one of
    /// several on its line, the bytes of its own object.
    pub fn record_full(&self, index: usize) -> &'a [u8] {
        let line = &self.lines[self.record_lines[index]];
        let raw = self.records[index].raw;
        if raw.len() == line.text.len() {
            line.full
        } else {
            raw
        }
    }
}

/// A transcript, what a compaction keeps of its live context, and the summary that replaces
/// the rest.
pub struct Compacted<'c, 'a> {
    /// The session file: every line, history included.
    pub file: File<'c, 'a>,
    /// Records kept before the summary as they are: leading bookkeeping and system prompts.
    pub lead: Vec<usize>,
    /// Records kept verbatim before the summary (the first request, in ACF's budgets mode).
    pub head: Vec<usize>,
    /// Records the summary replaces.
    pub summarised: Vec<usize>,
    /// Records kept after the summary: the user's newest request when the plan keeps it apart
    /// (`request`), then the plan's tail.
    pub tail: Vec<usize>,
    /// The records of the user's newest request, when the plan keeps it apart from its tail
    /// (see [`crate::plan::Plan::request`]); they lead `tail`. A format that keeps only one
    /// stretch of the session after its summary (pi) carries the request's text in the summary
    /// instead.
    pub request: Vec<usize>,
    /// User messages kept beside the summary (kimi-code's user mode), oldest first, with the
    /// elision marker where messages were left out.
    pub kept_user_texts: Vec<String>,
    /// That elision marker, when there is one among `kept_user_texts`.
    pub elision_marker: Option<String>,
    /// The cleaned summary, without any wrapper.
    pub summary: &'c str,
    /// The context size before compaction, for formats that record it.
    pub tokens_before: u64,
    /// The estimated context size after it, for formats that record it (kimi `_usage`).
    pub tokens_after: u64,
    /// A seed that identifies this compaction, for deterministic ids.
    pub seed: String,
}

impl<'c, 'a> Compacted<'c, 'a> {
    /// Every record of the file, in file order.
    pub fn records(&self) -> &'c [Record<'a>] {
        self.file.records
    }

    /// The original lines (with terminators) of these records, in the order given.
    pub fn lines_of(&self, records: &[usize]) -> Vec<&'a [u8]> {
        records
            .iter()
            .map(|&index| self.file.record_full(index))
            .collect()
    }

    /// Every line of the input, blank ones included: what an append-only format keeps.
    pub fn all_lines(&self) -> Vec<&'a [u8]> {
        self.file.lines.iter().map(|line| line.full).collect()
    }

    /// Whether the kept tail opens with a model message: a writer that puts an acknowledgement
    /// from the model after its summary (Gemini CLI, Qwen Code) leaves it out then, so that
    /// user and model messages still alternate.
    pub fn tail_opens_with_model(&self) -> bool {
        self.tail
            .iter()
            .find_map(|&i| self.file.records[i].message())
            .is_some_and(|m| m.role == super::model::Role::Assistant)
    }

    /// The summary as one text, behind kimi-cli's `<system>` wrapper.
    pub fn wrapped_summary(&self) -> String {
        format!("{WRAPPER}{}", self.summary)
    }
}

/// Where a writer's lines go: any `Write`, remembering whether the last byte ended a line (so a
/// generated line never joins an input's unterminated last line) and holding on to the first
/// I/O error, which [`Sink::finish`] reports, so writers need not check every line.
pub struct Sink<'w> {
    out: &'w mut dyn std::io::Write,
    at_line_start: bool,
    /// Whether any byte has been written (a byte-order mark belongs only before the first).
    started: bool,
    error: Option<std::io::Error>,
}

impl<'w> Sink<'w> {
    /// A sink writing to `out`.
    pub fn new(out: &'w mut dyn std::io::Write) -> Self {
        Sink {
            out,
            at_line_start: true,
            started: false,
            error: None,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_some() || bytes.is_empty() {
            return;
        }
        match self.out.write_all(bytes) {
            Ok(()) => {
                self.at_line_start = bytes.ends_with(b"\n");
                self.started = true;
            }
            Err(error) => self.error = Some(error),
        }
    }

    fn end_line(&mut self) {
        if !self.at_line_start {
            self.write(b"\n");
        }
    }

    /// Ends an unterminated last line (so the agent's next append starts a line of its own)
    /// and returns the first error any write met.
    pub fn finish(mut self) -> std::io::Result<()> {
        if self.started {
            self.end_line();
        }
        self.error.map_or(Ok(()), Err)
    }
}

/// Appends a generated line, first ending the previous line if the input's last line had no
/// newline.
pub fn push_line(out: &mut Sink, line: &[u8]) {
    out.end_line();
    out.write(line);
    out.write(b"\n");
}

/// Appends kept lines as they were, but for a UTF-8 byte-order mark (no part of any record):
/// it stays only while nothing has been written yet. After a generated line it would sit
/// mid-file, where no reader (condense, Python's json) skips it.
pub fn push_kept(out: &mut Sink, lines: &[&[u8]]) {
    for line in lines {
        let line = match line.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) if out.started => rest,
            _ => line,
        };
        out.end_line();
        out.write(line);
    }
}

/// A chat-style user message line, `{"role":"user","content":…}`: a bare string for one text,
/// a list of text parts for several (as kimi-cli serialises messages, and as the Anthropic and
/// OpenAI APIs accept them).
pub fn chat_user_line(texts: &[&str]) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct TextPart<'t> {
        #[serde(rename = "type")]
        kind: &'static str,
        text: &'t str,
    }
    #[derive(serde::Serialize)]
    #[serde(untagged)]
    enum Content<'t> {
        One(&'t str),
        Parts(Vec<TextPart<'t>>),
    }
    #[derive(serde::Serialize)]
    struct Line<'t> {
        role: &'static str,
        content: Content<'t>,
    }
    let content = match texts {
        [one] => Content::One(one),
        _ => Content::Parts(
            texts
                .iter()
                .map(|text| TextPart { kind: "text", text })
                .collect(),
        ),
    };
    serde_json::to_vec(&Line {
        role: "user",
        content,
    })
    .unwrap_or_default()
}

/// A version-4-shaped UUID derived from `seed` and `salt`: unique per compaction and
/// reproducible, so the same inputs always give the same output. Its 128 bits are two hashes
/// of the inputs, given the version and variant bits of a random UUID.
pub fn derived_uuid(seed: &str, salt: &str) -> String {
    let high = fnv1a(seed.as_bytes(), salt.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let low = fnv1a(seed.as_bytes(), salt.as_bytes(), 0x8422_2325_cbf2_9ce4);
    let bytes = (u128::from(high) << 64 | u128::from(low)).to_be_bytes();
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

/// FNV-1a of `a`, a NUL and `b`, finished with MurmurHash3's mixer so that inputs differing in
/// their last byte differ in every output bit.
fn fnv1a(a: &[u8], b: &[u8], offset: u64) -> u64 {
    let hash = a.iter().chain(b"\0").chain(b).fold(offset, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut mixed = hash ^ (hash >> 33);
    mixed = mixed.wrapping_mul(0xff51_afd7_ed55_8ccd);
    mixed ^= mixed >> 33;
    mixed = mixed.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    mixed ^ (mixed >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_uuids_are_stable_unique_and_v4_shaped() {
        let a = derived_uuid("seed", "boundary");
        assert_eq!(a, derived_uuid("seed", "boundary"));
        assert_ne!(a, derived_uuid("seed", "summary"));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
        // The ids of sessions written before the uuid crate formatted them: the same inputs
        // must keep giving the same ids.
        assert_eq!(a, "c88ae33f-4eb2-4fbb-9345-5fbfa84e7d1e");
        assert_eq!(
            derived_uuid("", "session"),
            "8cb045c6-bbdb-4dea-83fc-8fc45ef7345b"
        );
    }

    #[test]
    fn a_byte_order_mark_is_kept_only_at_the_start() {
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out);
        push_kept(&mut sink, &[b"\xEF\xBB\xBF{\"a\":1}\n"]);
        sink.finish().unwrap();
        assert_eq!(out, b"\xEF\xBB\xBF{\"a\":1}\n");
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out);
        push_line(&mut sink, b"{\"b\":2}");
        push_kept(&mut sink, &[b"\xEF\xBB\xBF{\"a\":1}\n"]);
        sink.finish().unwrap();
        assert_eq!(out, b"{\"b\":2}\n{\"a\":1}\n");
    }

    #[test]
    fn generated_lines_never_join_an_unterminated_line() {
        let mut out = Vec::new();
        let mut sink = Sink::new(&mut out);
        push_kept(&mut sink, &[b"{\"a\":1}"]);
        push_line(&mut sink, b"{\"b\":2}");
        sink.finish().unwrap();
        assert_eq!(out, b"{\"a\":1}\n{\"b\":2}\n");
    }
}
