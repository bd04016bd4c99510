//! A deliberately broken writer, for the tests of `--verify` only: when the environment
//! variable `CONDENSE_TEST_CORRUPT` names a corruption, the commands apply it to what they built
//! before verifying it. It is documented as test-only and changes nothing when unset.

/// The variable's name.
pub const VARIABLE: &str = "CONDENSE_TEST_CORRUPT";

/// Applies the corruption `kind` to `built`, the result of a compaction with `summary`:
///
/// - `cut`: the last line loses its second half and its line end, as a crash would leave it;
/// - `no-summary`: every line holding the summary's first line is dropped.
///
/// An unknown kind changes nothing.
pub fn corrupt(kind: &str, built: &[u8], summary: &str) -> Vec<u8> {
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
            let quoted = serde_json::to_string(first).unwrap_or_default();
            let needle = &quoted.as_bytes()[1..quoted.len() - 1];
            built
                .split_inclusive(|&b| b == b'\n')
                .filter(|line| memchr::memmem::find(line, needle).is_none())
                .flatten()
                .copied()
                .collect()
        }
        _ => built.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_the_last_line_and_drops_the_summary_lines() {
        let built = b"{\"a\":1}\n{\"summary\":\"S here\"}\n{\"b\":22}\n";
        assert_eq!(
            corrupt("cut", built, "S"),
            b"{\"a\":1}\n{\"summary\":\"S here\"}\n{\"b\""
        );
        assert_eq!(
            corrupt("no-summary", built, "S here\nmore"),
            b"{\"a\":1}\n{\"b\":22}\n"
        );
        assert_eq!(corrupt("other", built, "S"), built);
    }
}
