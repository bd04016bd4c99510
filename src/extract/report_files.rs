//! The files a sub-agent's report names (pure): an Explore or Task agent's report lists the
//! files it looked at, and those are the files the agent that started it opens next. The report
//! is no read of them, so without this rule they weigh nothing in the files list.
//!
//! Each file counts once per report, as one weak read, and only when the session already knows
//! it (read, edited or named by a command before): a report's name for it (`checkpoint_test.go`,
//! `strategy/auto_commit.go`) is the known file whose path ends with it, when exactly one does.
//! A file the session never touched is left out: on the eval corpus, adding those (with the
//! report's shorter spelling) lengthened the files lines and cost 3 caveman probes, while
//! weighting known files only is neutral for caveman and carries one more bare probe.

use std::collections::HashMap;

use super::model::FileUse;
use super::paths::clean_path;

/// The known files the report names, as the session's paths, in order of first mention, each
/// once.
pub(super) fn report_files(report: &str, known: &[FileUse]) -> Vec<String> {
    let mut by_name: Option<KnownNames> = None;
    let mut found: Vec<String> = Vec::new();
    for word in report.split_whitespace() {
        let word = word.trim_matches(|c: char| {
            matches!(
                c,
                '`' | '*' | '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | ':' | '<' | '>'
            )
        });
        let word = word.trim_end_matches('.');
        let Some(name) = clean_path(word) else {
            continue;
        };
        // Built on the first path-like word only: most reports name none.
        let by_name = by_name.get_or_insert_with(|| KnownNames::new(known));
        if let Some(path) = by_name
            .path(&name)
            .filter(|p| !found.iter().any(|f| f == p))
        {
            found.push(path.to_owned());
        }
    }
    found
}

/// Every name a report may give a known live file (its path, and each tail of it after a `/`),
/// mapped to that file, or to none when several files answer to it. One pass over the known
/// files per report, instead of one per word. A deleted file stays deleted: a report naming it
/// is no read of it.
struct KnownNames<'a> {
    by_tail: HashMap<&'a str, Option<&'a str>>,
}

impl<'a> KnownNames<'a> {
    fn new(known: &'a [FileUse]) -> Self {
        let mut by_tail: HashMap<&'a str, Option<&'a str>> = HashMap::new();
        for path in known.iter().filter(|f| !f.gone).map(|f| f.path.as_str()) {
            let tails = path.match_indices('/').map(|(at, _)| &path[at + 1..]);
            // A path's own tails differ in length, so a second entry is always another file.
            for tail in std::iter::once(path).chain(tails) {
                by_tail
                    .entry(tail)
                    .and_modify(|owner| *owner = None)
                    .or_insert(Some(path));
            }
        }
        KnownNames { by_tail }
    }

    /// The one known live file whose path is `name` or ends with `/name`.
    fn path(&self, name: &str) -> Option<&'a str> {
        self.by_tail.get(name).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(path: &str) -> FileUse {
        FileUse {
            path: path.to_owned(),
            read: 1,
            ..FileUse::default()
        }
    }

    #[test]
    fn known_files_by_any_tail_of_their_path_each_once() {
        let report = "## Findings\n- `cli/checkpoint/checkpoint_test.go` - main tests\n\
                      - `auto_commit.go` (lines 10-40) wires it; see **strategy.go**.\n\
                      - unknown_test.go, and checkpoint_test.go again: \
                      `cmd/cli/checkpoint/checkpoint_test.go:12`.";
        let known = [
            known("cmd/cli/checkpoint/checkpoint_test.go"),
            known("cmd/cli/strategy/auto_commit.go"),
            known("a/strategy.go"),
            known("b/strategy.go"),
        ];
        // strategy.go is two known files, unknown_test.go none: both left out.
        assert_eq!(
            report_files(report, &known),
            vec![
                "cmd/cli/checkpoint/checkpoint_test.go",
                "cmd/cli/strategy/auto_commit.go"
            ]
        );
    }

    #[test]
    fn a_report_naming_no_known_file_names_none() {
        let gone = FileUse {
            gone: true,
            ..known("src/old.rs")
        };
        let known = [known("src/main.rs"), gone];
        let report = "All done in 3.5 s; see https://x.io/main.rs, other/main.rs and old.rs.";
        assert!(report_files(report, &known).is_empty());
        assert!(report_files("", &known).is_empty());
    }

    #[test]
    fn a_name_two_known_files_answer_to_is_no_file() {
        // `lib.rs` is a whole path and the tail of another; `b/lib.rs` is one of them only.
        let known = [known("lib.rs"), known("a/b/lib.rs")];
        assert!(report_files("see lib.rs", &known).is_empty());
        assert_eq!(report_files("see b/lib.rs", &known), vec!["a/b/lib.rs"]);
        assert_eq!(report_files("see a/b/lib.rs", &known), vec!["a/b/lib.rs"]);
    }
}
