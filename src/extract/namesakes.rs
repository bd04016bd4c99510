//! The file names a session shows in more than one directory (`state.go` in `session/` and in
//! `cli/`): a bare name is no way to point at one of them, so caveman writes those files with
//! their parent directory (see `file_names`).
//!
//! Every main-chain text counts, tool results included: a name a listing or a search printed
//! under two directories is one the next reader will meet under both.

use std::collections::{BTreeSet, HashMap};

use crate::transcript::{Part, Record};

/// The file names (with an extension) that the session's paths put under two or more
/// different parent directories, compared as the last two components of each path.
pub(super) fn namesakes(records: &[Record]) -> BTreeSet<String> {
    let mut parents: HashMap<&str, &str> = HashMap::new();
    let mut shared = BTreeSet::new();
    for message in records.iter().filter_map(Record::message) {
        if message.sidechain {
            continue;
        }
        for part in &message.parts {
            let text = match part {
                Part::Text(text) | Part::Thinking(text) | Part::ToolResult { text, .. } => text,
                Part::ToolCall { arguments, .. } => arguments.as_ref(),
                _ => continue,
            };
            for (parent, name) in slashed_paths(text) {
                match parents.get(name) {
                    None => {
                        parents.insert(name, parent);
                    }
                    Some(&seen) if seen != parent => {
                        shared.insert(name.to_owned());
                    }
                    Some(_) => {}
                }
            }
        }
    }
    shared
}

/// The (parent directory, file name) of each path in `text` that has both, the name with an
/// extension. Only the slashes are visited, so prose costs next to nothing.
fn slashed_paths(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let bytes = text.as_bytes();
    let in_path = |b: u8| b.is_ascii_alphanumeric() || b"._-/~@+".contains(&b);
    let mut next = 0;
    memchr::memchr_iter(b'/', bytes).filter_map(move |slash| {
        if slash < next {
            return None;
        }
        let mut start = bytes[..slash]
            .iter()
            .rposition(|&b| !in_path(b))
            .map_or(0, |at| at + 1);
        // In a tool call's JSON arguments a path may follow an escape (`\ncmd/a.go`): the
        // escape's letter is no part of it.
        if start > 0 && bytes[start - 1] == b'\\' && b"ntr".contains(&bytes[start]) {
            start += 1;
        }
        let end = bytes[slash..]
            .iter()
            .position(|&b| !in_path(b))
            .map_or(bytes.len(), |at| slash + at);
        next = end;
        let word = text[start..end].trim_end_matches(['.', '/']);
        let mut parts = word.rsplit('/').filter(|p| !p.is_empty());
        let (name, parent) = (parts.next()?, parts.next()?);
        let extension = name
            .trim_start_matches('.')
            .split_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty());
        (extension && parent.bytes().any(|b| b.is_ascii_alphanumeric())).then_some((parent, name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn a_name_under_two_directories_is_a_namesake_and_one_under_one_is_not() {
        let records = [
            user("look at cmd/cli/state.go and session/state.go"),
            assistant("also /repo/cmd/cli/setup.go, then cli/setup.go again"),
            result(
                "x",
                "src/a/mod.rs:12: fn x\nsrc/b/mod.rs:3: fn y\nnotes/2024/plan",
            ),
            // One file, after an escape in JSON arguments and after a space.
            call(
                "e",
                "Edit",
                r#"{"new_string":"x\nsrc/one.go and src/one.go"}"#,
            ),
        ];
        let shared = namesakes(&records);
        assert_eq!(
            shared.into_iter().collect::<Vec<_>>(),
            ["mod.rs", "state.go"]
        );
    }

    #[test]
    fn paths_are_read_between_delimiters() {
        let found: Vec<_> =
            slashed_paths("see `src/lib.rs:4`, (a/b.txt) and a/b/c and x/.env").collect();
        assert_eq!(found, [("src", "lib.rs"), ("a", "b.txt")]);
    }
}
