//! opencode's ids (`packages/opencode/src/id/id.ts`, `Identifier.ascending` and
//! `.descending`): a prefix (`ses`, `msg`, `prt`), `_`, twelve hex digits of the low 48 bits of
//! the time in milliseconds times 4096 (plus a counter, which condense leaves at 0), inverted
//! for a session so that the newest sorts first, then fourteen random base-62 characters, which
//! condense takes from a UUID derived from its input so that a run is repeatable.

/// An id whose number ascends with time (messages, parts).
pub(super) fn ascending(prefix: &str, ms: u64, random: &str) -> String {
    id(prefix, (ms << 12) & MASK, random)
}

/// An id whose number descends with time (sessions).
pub(super) fn descending(prefix: &str, ms: u64, random: &str) -> String {
    id(prefix, !(ms << 12) & MASK, random)
}

/// The low 48 bits.
const MASK: u64 = 0xffff_ffff_ffff;

fn id(prefix: &str, number: u64, random: &str) -> String {
    let tail: String = random
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(14)
        .collect();
    format!("{prefix}_{number:012x}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_opencodes_shape() {
        // msg_2423cfa3e001… was created at 1796407622206 (the fixture's compaction).
        let id = ascending("msg", 1_796_407_622_206, "0123456789abcdef0123");
        assert_eq!(id, "msg_2423cfa3e0000123456789abcd");
        assert_eq!(id.len(), "msg_2423cfa3e001uHL5n2f5VAdY2a".len());
        // The fixture's session ids are the inverse (ses_dbdc40a00ffe… is ~0x2423bf5ff001).
        let session = descending("ses", 1_796_407_622_206, "11111111-2222-4333-8444-5555");
        assert_eq!(session, "ses_dbdc305c1fff11111111222243");
        assert!(descending("ses", 2, "a") < descending("ses", 1, "a"));
    }
}
