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

use super::model::FileUse;
use super::paths::clean_path;

/// The known files the report names, as the session's paths, in order of first mention, each
/// once.
pub(super) fn report_files(report: &str, known: &[FileUse]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    if known.is_empty() {
        return found;
    }
    for word in report.split_whitespace() {
        let word = word.trim_matches(|c: char| {
            matches!(
                c,
                '`' | '*' | '"' | '\'' | '(' | ')' | '[' | ']' | ',' | ';' | ':' | '<' | '>'
            )
        });
        let word = word.trim_end_matches('.');
        let path = clean_path(word).and_then(|name| known_by_name(&name, known));
        if let Some(path) = path.filter(|p| !found.iter().any(|f| f == p)) {
            found.push(path.to_owned());
        }
    }
    found
}

/// The one known live file whose path is `name` or ends with `/name`; none when no file or
/// several do. A deleted file stays deleted: a report naming it is no read of it.
fn known_by_name<'a>(name: &str, known: &'a [FileUse]) -> Option<&'a str> {
    let mut matches = known
        .iter()
        .filter(|f| !f.gone)
        .map(|f| f.path.as_str())
        .filter(|p| ends_with_path(p, name));
    let first = matches.next()?;
    matches.next().is_none().then_some(first)
}

/// Whether `path` is `name` or ends with `/name`, compared in place: this runs for every
/// path-like word of every report against every known file (kimi-cli's context reads count as
/// reports, hundreds a session), so it allocates nothing.
fn ends_with_path(path: &str, name: &str) -> bool {
    match path.len().checked_sub(name.len()) {
        Some(0) => path == name,
        Some(at) => path.as_bytes()[at - 1] == b'/' && path.ends_with(name),
        None => false,
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
