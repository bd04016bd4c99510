//! Editing JSON text in place: finding a value by its path (top-level key, or keys and
//! indexes), replacing or removing it, and shortening long strings, while every other byte of
//! the line stays as it was. Writers use these so that a kept line is never re-serialised, and
//! readers to pick a field out of a megabyte line without parsing the rest.

use std::ops::Range;

use serde_json::Value;

use super::scan::{skip_space, Scanner};

/// The string at `path` (keys, outermost first) of a JSON object line, found without parsing
/// the rest of the line.
pub fn str_at(raw: &[u8], path: &[&str]) -> Option<String> {
    let (last, outer) = path.split_last()?;
    let mut span = 0..raw.len();
    for key in outer {
        let inner = top_level_value(&raw[span.clone()], key)?;
        span = span.start + inner.start..span.start + inner.end;
    }
    top_level_str(&raw[span], last)
}

/// The string at `key` of a JSON object, if it is one.
pub fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
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
/// [`top_level_value`]'s) or an array index. A key is a name the agent's format defines, never
/// one read from the line: held as a static string, a path costs no allocation per key (a
/// 100 MiB session holds a path for each of a few hundred thousand prune sites, issue 33).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The value of this key of an object.
    Key(&'static str),
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

    fn key(name: &'static str) -> Step {
        Step::Key(name)
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
}
