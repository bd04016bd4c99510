//! `@ <file>, <other file>`: the file the current request changed just before the one NOW's
//! place names. A request often has the agent change two files together (a helper, then the
//! tests that call it), and the next turn opens both; NOW named only the last. The other file
//! joins the place only in the room of the bracketed names it displaces: NOW with it, and one
//! name or more, is at most [`LEEWAY`] tokens longer than NOW without it, so the task's words
//! keep their room and NOW's other lines theirs.
//!
//! Measured on the eval corpus (bare at 100 tokens) against NOW without the other file: within
//! 2 tokens, bare 276 -> 282 (now 57 -> 58, file 43 -> 49, decision 23 -> 22). Before the
//! merge of `asked_where` (bare 272): 278 at 2 tokens; with no leeway 276 (next 39 -> 38); at 3
//! or 4 tokens the task's words lose a now probe; two other files, a file from before the
//! request, or NOW with the file and all its names whenever it fits whole cost now or next
//! probes.

use super::subject::SubjectOrHash;
use crate::extract::model::Extract;
use crate::extract::paths::file_name;
use crate::tokens::Tokenizer;

/// Tokens NOW with the other file may take beyond NOW without it: the `, ` that joins it and
/// the rounding of a name that splits into more tokens than its characters suggest.
const LEEWAY: u64 = 2;

/// The name of the newest file the current request changed besides the file NOW's place
/// names (`focus`), when its name differs from that file's.
pub(super) fn other_request_file(ex: &Extract, focus: &str) -> Option<String> {
    ex.request_edits
        .iter()
        .map(|path| file_name(path))
        .find(|other| *other != file_name(focus))
        .map(str::to_owned)
}

/// NOW with the other file, from `with_names(n)` (NOW with the file and at most `n` names)
/// for `n` from `names` down to 1: the first within [`LEEWAY`] tokens of `without`, NOW as it
/// is without the file; none when even one name leaves it longer.
pub(super) fn with_request_file(
    without: &SubjectOrHash,
    names: usize,
    with_names: impl Fn(usize) -> SubjectOrHash,
    tokenizer: Tokenizer,
) -> Option<SubjectOrHash> {
    let room = tokenizer.text_tokens(&without.with_subject.full) + LEEWAY;
    (1..=names)
        .rev()
        .map(with_names)
        .find(|now| tokenizer.text_tokens(&now.with_subject.full) <= room)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::shorten::Shortening;

    fn now(text: &str) -> SubjectOrHash {
        SubjectOrHash {
            with_subject: Shortening::plain(text.to_owned()),
            state: String::new(),
            with_hash: Shortening::plain(text.to_owned()),
        }
    }

    #[test]
    fn the_other_file_is_the_newest_the_request_changed_under_another_name() {
        let ex = Extract {
            request_edits: vec![
                "e2e/scenario_test.go".into(),
                "other/scenario_test.go".into(),
                "e2e/testenv.go".into(),
                "e2e/old.go".into(),
            ],
            ..Extract::default()
        };
        assert_eq!(
            other_request_file(&ex, "e2e/scenario_test.go").as_deref(),
            Some("testenv.go")
        );
        let alone = Extract {
            request_edits: vec!["e2e/scenario_test.go".into()],
            ..Extract::default()
        };
        assert_eq!(other_request_file(&alone, "e2e/scenario_test.go"), None);
    }

    #[test]
    fn the_file_takes_the_room_of_the_last_names_and_never_of_the_first() {
        let tokenizer = Tokenizer::Chars4;
        let names = ["alphaName", "betaName", "gammaName"];
        let line = |file: &str, n: usize| {
            now(&format!(
                "add the helper @ scenario_test.go{file} [{}]",
                names[..n].join(" ")
            ))
        };
        let without = line("", 3);
        let with = with_request_file(&without, 3, |n| line(", testenv.go", n), tokenizer)
            .expect("one name's room is enough");
        assert_eq!(
            with.with_subject.full,
            "add the helper @ scenario_test.go, testenv.go [alphaName betaName]"
        );
        // A file longer than every name but the first leaves NOW as it is.
        let long = ", a_much_longer_file_name_than_the_names.go";
        assert!(with_request_file(&without, 3, |n| line(long, n), tokenizer).is_none());
    }
}
