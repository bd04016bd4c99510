//! A deliberately broken writer, for the tests of `--verify` only: when the environment
//! variable `CONDENSE_TEST_CORRUPT` names a corruption, the commands apply it to what they
//! build before verifying it. It is documented as test-only and changes nothing when unset.
//!
//! Each corruption breaks what one check guards:
//!
//! | corruption | what the writer does wrong | the check |
//! |---|---|---|
//! | `cut` | its last line is cut off | `readable` |
//! | `no-summary` | the lines holding the summary are lost | `summary` |
//! | `keep-summarised` | it keeps a message the plan summarised | `summarised-gone` |
//! | `touch-newest` | the newest request's text changes | `newest-message` |
//! | `touch` | a prune changes a message it did not choose | `untouched` |

use crate::transcript::load::Transcript;
use crate::transcript::write::Compacted;
use crate::transcript::Part;

/// The variable's name.
pub const VARIABLE: &str = "CONDENSE_TEST_CORRUPT";

/// Applies the corruption `kind` to `built`, what a command made of `old` (a compaction with
/// `summary`, or a prune, which left the records `untouched` says unchanged):
///
/// - `cut`: the last line loses its second half and its line end, as a crash would leave it;
/// - `no-summary`: every line holding the summary's first line is dropped;
/// - `touch-newest`: the longest text of the newest request a person typed gets a word more,
///   wherever it is written;
/// - `touch`: the longest text of the oldest message the prune left untouched (the newest
///   request aside) gets a word more, in that message's line.
///
/// Other kinds change nothing here.
pub fn corrupt(
    kind: &str,
    old: &Transcript,
    built: &[u8],
    summary: &str,
    untouched: &dyn Fn(usize) -> bool,
) -> Vec<u8> {
    match kind {
        "cut" => {
            let body = built.strip_suffix(b"\n").unwrap_or(built);
            let start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            body[..start + (body.len() - start) / 2].to_vec()
        }
        "no-summary" => {
            let Some(first) = summary.lines().map(str::trim).find(|l| !l.is_empty()) else {
                return built.to_vec();
            };
            let needle = super::checks::escaped(first);
            built
                .split_inclusive(|&b| b == b'\n')
                .filter(|line| memchr::memmem::find(line, needle.as_bytes()).is_none())
                .flatten()
                .copied()
                .collect()
        }
        "touch-newest" => {
            let newest = super::checks::newest_request(old.context())
                .and_then(|p| longest_text(&old.context()[p]));
            match newest {
                Some(text) => replace_all(
                    built,
                    &super::checks::escaped(&text),
                    &super::checks::escaped(&format!("{text} (changed)")),
                ),
                None => built.to_vec(),
            }
        }
        "touch" => {
            // Not the newest request, which `touch-newest` is for.
            let newest = super::checks::newest_request(old.context()).map(|p| old.context()[p].raw);
            let oldest = (0..old.records.len())
                .filter(|&i| untouched(i) && Some(old.records[i].raw) != newest)
                .find_map(|i| Some((old.records[i].raw, longest_text(&old.records[i])?)));
            let Some((raw, text)) = oldest else {
                return built.to_vec();
            };
            let touched = replace_all(
                raw,
                &super::checks::escaped(&text),
                &super::checks::escaped(&format!("{text} (changed)")),
            );
            replace_first(built, raw, &touched)
        }
        _ => built.to_vec(),
    }
}

/// `keep-summarised`: the writer's input with the newest message the plan summarised kept
/// instead, first after the kept request (`None` for any other kind, or when nothing
/// summarised is a message).
pub fn compacted<'c, 'a>(kind: &str, compacted: &Compacted<'c, 'a>) -> Option<Compacted<'c, 'a>> {
    if kind != "keep-summarised" {
        return None;
    }
    let records = compacted.records();
    let (at, &record) = compacted
        .summarised
        .iter()
        .enumerate()
        .rev()
        .find(|&(_, &i)| records[i].message().is_some_and(|m| !m.sidechain))?;
    let mut summarised = compacted.summarised.clone();
    summarised.remove(at);
    let mut tail = compacted.tail.clone();
    tail.insert(compacted.request.len().min(tail.len()), record);
    Some(Compacted {
        file: compacted.file,
        lead: compacted.lead.clone(),
        head: compacted.head.clone(),
        summarised,
        tail,
        request: compacted.request.clone(),
        kept_user_texts: compacted.kept_user_texts.clone(),
        elision_marker: compacted.elision_marker.clone(),
        summary: compacted.summary,
        tokens_before: compacted.tokens_before,
        tokens_after: compacted.tokens_after,
        seed: compacted.seed.clone(),
    })
}

/// The longest non-empty text part of a message record.
fn longest_text(record: &crate::transcript::Record) -> Option<String> {
    record
        .message()?
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if !text.as_str().trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .max_by_key(|text| text.len())
        .map(str::to_owned)
}

fn replace_all(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, from.as_bytes()) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to.as_bytes());
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

fn replace_first(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    match memchr::memmem::find(bytes, from) {
        Some(at) => [&bytes[..at], to, &bytes[at + from.len()..]].concat(),
        None => bytes.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::load::LoadOptions;

    #[test]
    fn cuts_drops_and_touches() {
        let built = b"{\"role\":\"user\",\"content\":\"S here\"}\n{\"role\":\"user\",\"content\":\"ask\"}\n";
        let old = Transcript::parse("s", built, LoadOptions::default()).unwrap();
        let run = |kind| corrupt(kind, &old, built, "S here\nmore", &|i| i == 1);
        assert_eq!(
            run("cut"),
            b"{\"role\":\"user\",\"content\":\"S here\"}\n{\"role\":\"user\","
        );
        assert_eq!(
            run("no-summary"),
            b"{\"role\":\"user\",\"content\":\"ask\"}\n"
        );
        let changed = b"{\"role\":\"user\",\"content\":\"S here\"}\n{\"role\":\"user\",\"content\":\"ask (changed)\"}\n";
        assert_eq!(run("touch-newest"), changed);
        let first = b"{\"role\":\"user\",\"content\":\"S here (changed)\"}\n{\"role\":\"user\",\"content\":\"ask\"}\n";
        let all = |_| true;
        assert_eq!(corrupt("touch", &old, built, "", &all), first);
        assert_eq!(run("other"), built);
    }
}
