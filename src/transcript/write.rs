//! What every format's compacted-transcript writer shares: the [`Compacted`] input (the
//! transcript, which of its records the compaction keeps and which the summary replaces, and
//! the cleaned summary), and small tools for writing JSONL by hand without disturbing the bytes
//! of kept lines.
//!
//! The input names records, never a plan: how the cut was chosen is the planner's business, and
//! a writer only needs to know what to keep. Record lists are indexes into
//! [`Transcript::records`] in the order of the live context.
//!
//! Writers never re-serialise a kept record: its line is copied byte for byte. The one
//! exception a format may need (a field a kept line must no longer carry) goes through
//! [`replace_top_level`], which rewrites that one value and leaves every other byte as it was.

use std::ops::Range;

use crate::summary::WRAPPER;
use crate::transcript::load::Transcript;
use crate::transcript::scan::{skip_space, Scanner};
use crate::transcript::Record;

/// A transcript, what a compaction keeps of its live context, and the summary that replaces
/// the rest.
pub struct Compacted<'c, 'a> {
    /// The transcript: every line, history included.
    pub transcript: &'c Transcript<'a>,
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
        &self.transcript.records
    }

    /// The original lines (with terminators) of these records, in the order given.
    pub fn lines_of(&self, records: &[usize]) -> Vec<&'a [u8]> {
        records
            .iter()
            .map(|&index| self.transcript.record_full(index))
            .collect()
    }

    /// Every line of the input, blank ones included: what an append-only format keeps.
    pub fn all_lines(&self) -> Vec<&'a [u8]> {
        self.transcript
            .line_bytes(0, self.transcript.lines.len())
            .collect()
    }

    /// The summary as one text, behind kimi-cli's `<system>` wrapper.
    pub fn wrapped_summary(&self) -> String {
        format!("{WRAPPER}{}", self.summary)
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
/// reproducible, so the same inputs always give the same output.
pub fn derived_uuid(seed: &str, salt: &str) -> String {
    let high = fnv1a(seed.as_bytes(), salt.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let low = fnv1a(seed.as_bytes(), salt.as_bytes(), 0x8422_2325_cbf2_9ce4);
    let version = (high & 0xffff_ffff_ffff_0fff) | 0x4000;
    let variant = (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000;
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        version >> 32,
        (version >> 16) & 0xffff,
        version & 0xffff,
        variant >> 48,
        variant & 0xffff_ffff_ffff
    )
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

/// The byte range of the value of top-level key `key` in a JSON object line, if present.
/// Keys are compared as written (the keys formats use need no escapes).
pub fn top_level_value(line: &[u8], key: &str) -> Option<Range<usize>> {
    let scan = Scanner::new(line);
    let mut i = skip_space(line, 0);
    if line.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    loop {
        i = skip_space(line, i);
        if line.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = scan.skip_string(i)?;
        let this_key = &line[i + 1..key_end - 1];
        i = skip_space(line, key_end);
        if line.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_space(line, i + 1);
        let value_end = scan.skip_value(value_start)?;
        if this_key == key.as_bytes() {
            return Some(value_start..value_end);
        }
        i = skip_space(line, value_end);
        match line.get(i) {
            Some(b',') => i += 1,
            _ => return None,
        }
    }
}

/// `line` with the value of top-level key `key` replaced by `json`, every other byte kept.
pub fn replace_top_level(line: &[u8], key: &str, json: &str) -> Option<Vec<u8>> {
    let span = top_level_value(line, key)?;
    let mut out = Vec::with_capacity(line.len() + json.len());
    out.extend_from_slice(&line[..span.start]);
    out.extend_from_slice(json.as_bytes());
    out.extend_from_slice(&line[span.end..]);
    Some(out)
}

/// One step of a path into a JSON value: an object key (compared as written, like
/// [`top_level_value`]'s) or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The value of this key of an object.
    Key(String),
    /// The element at this index of an array.
    Index(usize),
}

/// The byte range of the value at `path` in the JSON text `line`, found by walking the
/// objects and arrays on the way by their spans (nothing is parsed beyond the path, so a
/// megabyte tool output is skipped, not decoded). An empty path is the whole value.
pub fn value_at(line: &[u8], path: &[Step]) -> Option<Range<usize>> {
    let scan = Scanner::new(line);
    let start = skip_space(line, 0);
    let mut span = start..scan.skip_value(start)?;
    for step in path {
        span = child(&scan, span, step)?;
    }
    Some(span)
}

/// The span of `step` inside the object or array spanning `within`.
fn child(scan: &Scanner, within: Range<usize>, step: &Step) -> Option<Range<usize>> {
    let line = scan.bytes();
    let open = *line.get(within.start)?;
    let mut i = skip_space(line, within.start + 1);
    if matches!(line.get(i), Some(b'}' | b']')) {
        return None;
    }
    let mut index = 0;
    loop {
        let key = match open {
            b'{' => {
                if line.get(i) != Some(&b'"') {
                    return None;
                }
                let key_end = scan.skip_string(i)?;
                let key = &line[i + 1..key_end - 1];
                i = skip_space(line, key_end);
                if line.get(i) != Some(&b':') {
                    return None;
                }
                i = skip_space(line, i + 1);
                Some(key)
            }
            b'[' => None,
            _ => return None,
        };
        let end = scan.skip_value(i)?;
        let found = match (step, key) {
            (Step::Key(wanted), Some(key)) => key == wanted.as_bytes(),
            (Step::Index(wanted), None) => *wanted == index,
            _ => return None,
        };
        if found {
            return Some(i..end);
        }
        index += 1;
        i = skip_space(line, end);
        match line.get(i) {
            Some(b',') if i < within.end => i = skip_space(line, i + 1),
            _ => return None,
        }
    }
}

/// `line` with each span replaced by its bytes, every other byte kept. Spans must not
/// overlap; they may come in any order.
pub fn replace_spans(line: &[u8], edits: &[(Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let mut sorted: Vec<&(Range<usize>, Vec<u8>)> = edits.iter().collect();
    sorted.sort_by_key(|(span, _)| span.start);
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0;
    for (span, bytes) in sorted {
        out.extend_from_slice(&line[at..span.start]);
        out.extend_from_slice(bytes);
        at = span.end;
    }
    out.extend_from_slice(&line[at..]);
    out
}

/// The span that removing the array element at `path` takes out: the element and the comma
/// (with its spaces) that separates it from a neighbour, so what remains is still a valid
/// array. `None` when `path` does not end at an array element.
pub fn element_removal(line: &[u8], path: &[Step]) -> Option<Range<usize>> {
    let (Step::Index(_), parent) = path.split_last()? else {
        return None;
    };
    let array = value_at(line, parent)?;
    let element = value_at(line, path)?;
    let after = skip_space(line, element.end);
    if line.get(after) == Some(&b',') {
        // Not the last element: take the comma after it and the spaces up to the next one.
        return Some(element.start..skip_space(line, after + 1));
    }
    // The last element: take the comma before it, if there is one.
    let mut before = element.start;
    while before > array.start + 1 && line[before - 1].is_ascii_whitespace() {
        before -= 1;
    }
    if before > array.start + 1 && line[before - 1] == b',' {
        return Some(before - 1..element.end);
    }
    Some(element.start..element.end)
}

/// The JSON text `json` with every string value (never a key) longer than `max_chars`
/// characters replaced by the JSON string of what `shrink` makes of its text (a string it
/// returns `None` for stays), every other byte kept; `None` when no string was replaced.
pub fn shrink_long_strings(
    json: &[u8],
    max_chars: usize,
    shrink: &dyn Fn(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    let scan = Scanner::new(json);
    let mut edits = Vec::new();
    let mut i = 0;
    while i < json.len() {
        if json[i] != b'"' {
            i += 1;
            continue;
        }
        let end = scan.skip_string(i)?;
        let is_key = json.get(skip_space(json, end)) == Some(&b':');
        // The raw length bounds the decoded one from above: most strings are skipped undecoded.
        if !is_key && end - i - 2 > max_chars {
            let text: String = serde_json::from_slice(&json[i..end]).ok()?;
            if text.chars().count() > max_chars {
                if let Some(short) = shrink(&text) {
                    edits.push((i..end, serde_json::to_vec(&short).ok()?));
                }
            }
        }
        i = end;
    }
    (!edits.is_empty()).then(|| replace_spans(json, &edits))
}

/// The string value of top-level key `key`, if it is a string.
pub fn top_level_str(line: &[u8], key: &str) -> Option<String> {
    let span = top_level_value(line, key)?;
    serde_json::from_slice(&line[span]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_one_top_level_value_and_nothing_else() {
        let line = br#"{"parentUuid":"a","message":{"parentUuid":"inner"},"x":[1,"}"] , "n":null}"#;
        let out = replace_top_level(line, "parentUuid", "\"b\"").unwrap();
        assert_eq!(
            out,
            br#"{"parentUuid":"b","message":{"parentUuid":"inner"},"x":[1,"}"] , "n":null}"#
        );
        let nulled = replace_top_level(line, "n", "\"z\"").unwrap();
        assert!(nulled.ends_with(br#""n":"z"}"#));
        assert_eq!(top_level_value(line, "missing"), None);
        assert_eq!(
            top_level_str(br#"{"t":"2026\"x","u":1}"#, "t").unwrap(),
            "2026\"x"
        );
    }

    fn key(name: &str) -> Step {
        Step::Key(name.to_owned())
    }

    #[test]
    fn value_at_walks_objects_and_arrays_by_spans() {
        let line = br#"{"a": {"b": [1, {"c": "x\"]"}, [2, 3]], "d": null}, "e": "}"}"#;
        let at = |path: &[Step]| value_at(line, path).map(|span| &line[span]);
        assert_eq!(at(&[key("a"), key("d")]), Some(&b"null"[..]));
        assert_eq!(
            at(&[key("a"), key("b"), Step::Index(1), key("c")]),
            Some(&br#""x\"]""#[..])
        );
        assert_eq!(
            at(&[key("a"), key("b"), Step::Index(2), Step::Index(1)]),
            Some(&b"3"[..])
        );
        assert_eq!(at(&[key("e")]), Some(&br#""}""#[..]));
        assert_eq!(at(&[]), Some(&line[..]));
        for missing in [
            vec![key("z")],
            vec![key("a"), key("b"), Step::Index(3)],
            vec![key("a"), Step::Index(0)],
            vec![key("a"), key("b"), key("c")],
            vec![key("e"), key("x")],
        ] {
            assert_eq!(at(&missing), None, "{missing:?}");
        }
        assert_eq!(value_at(b"{\"a\": []}", &[key("a"), Step::Index(0)]), None);
    }

    #[test]
    fn replacing_spans_keeps_every_other_byte() {
        let line = br#"{"content": "long", "n": [1, 2], "x": 1}"#;
        let content = value_at(line, &[key("content")]).unwrap();
        let two = value_at(line, &[key("n"), Step::Index(1)]).unwrap();
        let out = replace_spans(line, &[(two, b"\"b\"".to_vec()), (content, b"[]".to_vec())]);
        assert_eq!(out, br#"{"content": [], "n": [1, "b"], "x": 1}"#);
    }

    #[test]
    fn removing_an_element_leaves_a_valid_array() {
        let remove = |line: &[u8], index: usize| {
            let span = element_removal(line, &[key("a"), Step::Index(index)]).unwrap();
            let out = replace_spans(line, &[(span, Vec::new())]);
            let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
            value["a"].clone()
        };
        let line = br#"{"a": [{"t": 1}, {"t": 2} , {"t": 3}]}"#;
        assert_eq!(remove(line, 0), serde_json::json!([{"t": 2}, {"t": 3}]));
        assert_eq!(remove(line, 1), serde_json::json!([{"t": 1}, {"t": 3}]));
        assert_eq!(remove(line, 2), serde_json::json!([{"t": 1}, {"t": 2}]));
        assert_eq!(remove(br#"{"a": [ 7 ]}"#, 0), serde_json::json!([]));
        assert_eq!(element_removal(line, &[key("a")]), None);
    }

    #[test]
    fn derived_uuids_are_stable_unique_and_v4_shaped() {
        let a = derived_uuid("seed", "boundary");
        assert_eq!(a, derived_uuid("seed", "boundary"));
        assert_ne!(a, derived_uuid("seed", "summary"));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
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
