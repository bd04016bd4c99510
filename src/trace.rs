//! `CONDENSE_TRACE`: a debugging aid that says on stderr what a run reads and parses, so that
//! work done twice shows (and a test can count it).
//!
//! `CONDENSE_TRACE=parses` prints one line for every transcript parsed into memory, every
//! session found by `--latest`, `--session` or `--hook`, and every config file read:
//!
//! ```text
//! condense: trace: parse NAME: 1234 bytes, fnv1a 89abcdef01234567
//! condense: trace: found /home/me/.claude/projects/-src/0b1c.jsonl
//! condense: trace: config .condense.toml
//! ```
//!
//! The hash tells a session parsed twice (the same bytes) from the sessions a command writes and
//! reads back to measure (other bytes under the same name). The variable is looked at once per
//! run; unset, a parse costs one load of a flag. It is not an interface: the lines may change.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

/// The variable.
pub const VARIABLE: &str = "CONDENSE_TRACE";

/// Whether `CONDENSE_TRACE` asks for `parses` (a comma-separated list may name more).
fn parses() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os(VARIABLE).is_some_and(|value| {
            value
                .to_string_lossy()
                .split(',')
                .any(|word| word.trim() == "parses")
        })
    })
}

/// Notes that the transcript `name` is being parsed from `parts`, its bytes one after the other.
pub fn parsed(name: &str, parts: &[&[u8]]) {
    if parses() {
        let hash = parts
            .iter()
            .fold(FNV_START, |hash, part| fnv1a_more(hash, part));
        say(&format!(
            "parse {}: {} bytes, fnv1a {hash:016x}",
            crate::output::sanitize(name),
            parts.iter().map(|part| part.len()).sum::<usize>(),
        ));
    }
}

/// Notes that the session `path` was found by `--latest`, `--session` or `--hook`.
pub fn found(path: &Path) {
    if parses() {
        say(&format!(
            "found {}",
            crate::output::sanitize(&path.display().to_string())
        ));
    }
}

/// Notes that the config file `path` is being read.
pub fn config_read(path: &Path) {
    if parses() {
        say(&format!(
            "config {}",
            crate::output::sanitize(&path.display().to_string())
        ));
    }
}

fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "condense: trace: {line}");
}

/// FNV-1a's (64 bits) hash of no bytes.
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_more(FNV_START, bytes)
}

/// FNV-1a (64 bits) carried on from `hash`, that of the bytes before, over `bytes`.
fn fnv1a_more(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_more(fnv1a(b"a"), b"bc"), fnv1a(b"abc"));
    }
}
