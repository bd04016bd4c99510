//! The names condense gives the files it keeps beside a session (temporary files, backups,
//! journals): the session's own name with something before and after it. A directory entry
//! holds at most 255 bytes, so for a long session name (agents name sessions after a title or
//! a path) the sibling would not fit, and the in-place write would fail with "file name too
//! long". Such a name is cut and a hash of the whole name put after it: two long names that
//! share their first bytes still get different siblings, and the same name always the same.

/// The longest name one directory entry holds (`NAME_MAX` on Linux and the BSDs).
pub const NAME_MAX: usize = 255;

/// The part of a sibling's name that stands for the file name `name`, when `room` bytes more
/// go around it: the name itself when it fits, else its first bytes (cut at a character
/// boundary when the name is UTF-8), `~` and 16 hex digits of a hash of the whole name.
pub fn stem(name: &[u8], room: usize) -> Vec<u8> {
    if name.len() + room <= NAME_MAX {
        return name.to_vec();
    }
    let tag = format!("~{:016x}", crate::undo::hash(name));
    let mut cut = NAME_MAX.saturating_sub(room + tag.len()).min(name.len());
    if let Ok(text) = std::str::from_utf8(name) {
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
    }
    let mut stem = name[..cut].to_vec();
    stem.extend_from_slice(tag.as_bytes());
    stem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_fits_is_kept_and_a_long_one_cut_and_told_apart() {
        assert_eq!(stem(b"s.jsonl", 30), b"s.jsonl");
        let long = "é".repeat(150);
        let other = format!("{}x", "é".repeat(149));
        let (a, b) = (stem(long.as_bytes(), 31), stem(other.as_bytes(), 31));
        assert_eq!(
            a.len() + 31,
            NAME_MAX - 1,
            "cut before a two-byte character"
        );
        assert!(std::str::from_utf8(&a).is_ok());
        assert_ne!(a, b);
        assert_eq!(a, stem(long.as_bytes(), 31));
    }
}
