//! What `condense undo` needs: the entries of the journal of condense's in-place writes
//! (`SESSION.condense-undo`, kept by [`crate::persist::journal`]), and the content that undoes
//! the newest of them.
//!
//! - An **append** (Claude Code, Codex, pi) is recorded as the offset and length of the bytes
//!   condense appended and their hash. Undoing it removes exactly those bytes and keeps every
//!   line the agent wrote after them, unless one of those lines hangs under a record of the
//!   compaction (a `parentUuid` or `parentId` naming its id): then undo refuses and says so.
//! - A **replace** (kimi-cli, Gemini CLI, `--rewrite`) is recorded as the backup's path and the
//!   length and hash of the file condense left. Undoing it puts the backup's bytes back, if the
//!   file is still what condense left; if the agent wrote since, undo refuses (the backup holds
//!   none of it).
//!
//! The hash is FNV-1a over 64 bits: stable across versions and platforms, and enough to tell
//! that bytes are the ones recorded (the length is compared too).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One in-place write condense made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    /// Bytes appended at `offset`.
    Append {
        /// Where they start.
        offset: u64,
        /// How many.
        length: u64,
        /// Their [`hash`].
        hash: u64,
    },
    /// The file replaced, its original kept at `backup`.
    Replace {
        /// The backup's path.
        backup: PathBuf,
        /// The length of the file condense left.
        length: u64,
        /// Its [`hash`].
        hash: u64,
    },
}

/// FNV-1a, 64 bits.
pub fn hash(bytes: &[u8]) -> u64 {
    hash_more(HASH_START, bytes)
}

/// Where [`hash_more`] starts: the hash of no bytes.
pub const HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

/// [`hash`] of what `hash` is the hash of, followed by `bytes`: a long file is hashed a block
/// at a time.
pub fn hash_more(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The ids of the records on these lines (Claude Code `uuid`, pi `id`).
fn ids(lines: &[u8]) -> Vec<String> {
    lines
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .filter_map(|v| {
            v.get("uuid")
                .or_else(|| v.get("id"))
                .and_then(|id| id.as_str().map(str::to_owned))
        })
        .collect()
}

/// Whether a line of `later` names one of `ids` as its parent.
fn hangs_under(later: &[u8], ids: &[String]) -> Option<usize> {
    later
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice::<serde_json::Value>(line).ok())
        .position(|v| {
            ["parentUuid", "parentId", "logicalParentUuid"]
                .iter()
                .filter_map(|key| v.get(*key).and_then(|p| p.as_str()))
                .any(|p| ids.iter().any(|id| id == p))
        })
}

/// The content that undoes `entry` on a file holding `current` (and `backup`, the backup's
/// bytes, for a replace), or why it cannot be undone.
pub fn undone(entry: &Entry, current: &[u8], backup: Option<&[u8]>) -> Result<Vec<u8>, String> {
    match entry {
        Entry::Append {
            offset,
            length,
            hash: expected,
        } => {
            let (start, end) = (*offset as usize, (*offset + *length) as usize);
            let Some(appended) = current.get(start..end) else {
                return Err("the file is shorter than when condense appended to it".into());
            };
            if hash(appended) != *expected {
                return Err("the bytes condense appended are no longer where it put them".into());
            }
            let later = &current[end..];
            if let Some(n) = hangs_under(later, &ids(appended)) {
                return Err(format!(
                    "the agent wrote after the compaction, and its line {} after it hangs under \
                     the compaction's records; undoing would cut it off",
                    n + 1
                ));
            }
            let mut bytes = current[..start].to_vec();
            bytes.extend_from_slice(later);
            Ok(bytes)
        }
        Entry::Replace {
            length,
            hash: expected,
            ..
        } => {
            if current.len() as u64 != *length || hash(current) != *expected {
                return Err(
                    "the file changed since condense replaced it (the agent wrote to \
                            it?); the backup holds none of that"
                        .into(),
                );
            }
            backup
                .map(<[u8]>::to_vec)
                .ok_or_else(|| "the backup is gone".to_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(current: &[u8], start: usize, end: usize) -> Entry {
        Entry::Append {
            offset: start as u64,
            length: (end - start) as u64,
            hash: hash(&current[start..end]),
        }
    }

    #[test]
    fn an_append_is_removed_and_later_independent_lines_kept() {
        let before = b"{\"uuid\":\"a\"}\n".to_vec();
        let added = b"{\"uuid\":\"c\",\"parentUuid\":null}\n";
        let mut current = before.clone();
        current.extend_from_slice(added);
        let entry = append(&current, before.len(), current.len());
        assert_eq!(undone(&entry, &current, None).unwrap(), before);
        current.extend_from_slice(b"{\"type\":\"custom-title\"}\n");
        let mut expected = before.clone();
        expected.extend_from_slice(b"{\"type\":\"custom-title\"}\n");
        assert_eq!(undone(&entry, &current, None).unwrap(), expected);
        current.extend_from_slice(b"{\"uuid\":\"d\",\"parentUuid\":\"c\"}\n");
        assert!(undone(&entry, &current, None)
            .unwrap_err()
            .contains("hangs under"));
    }

    #[test]
    fn a_replace_is_undone_only_while_the_file_is_what_condense_left() {
        let left = b"compacted\n";
        let entry = Entry::Replace {
            backup: "s.bak".into(),
            length: left.len() as u64,
            hash: hash(left),
        };
        assert_eq!(
            undone(&entry, left, Some(b"original\n")).unwrap(),
            b"original\n"
        );
        assert!(undone(&entry, b"compacted\nmore\n", Some(b"original\n")).is_err());
        assert!(undone(&entry, left, None).is_err());
    }

    #[test]
    fn the_hash_is_fnv1a() {
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash_more(hash(b"ab"), b"cd"), hash(b"abcd"));
    }
}
