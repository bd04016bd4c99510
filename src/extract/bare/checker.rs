//! The checker an open lint finding names, first among NOW's names. A linter ends each finding
//! with the rule that fired: golangci-lint `a.go:12:3: string … has 3 occurrences, make it a
//! constant (goconst)`, mypy `a.py:7: error: … [assignment]`. The place and the message are
//! long and NOW's cut drops them, while that one word is what the work is about ("fix the
//! goconst error"), what the next turn greps the config and the `nolint` comments for, and what
//! the user calls the failure.

use super::super::model::Extract;

/// The rule names of the latest findings not yet resolved that came with or after the current
/// request (the user pasting them, or a run since): the failure the work is on now.
pub(super) fn open_checkers(ex: &Extract) -> Vec<String> {
    let since = ex.task.as_ref().map_or(0, |t| t.index);
    let mut open: Vec<_> = ex
        .errors
        .iter()
        .filter(|e| !e.resolved && e.last >= since)
        .collect();
    open.sort_by_key(|e| std::cmp::Reverse(e.last));
    let mut checkers: Vec<String> = Vec::new();
    for name in open.iter().filter_map(|e| checker(&e.text)) {
        if !checkers.iter().any(|c| c == name) {
            checkers.push(name.to_owned());
        }
    }
    checkers
}

/// The rule a finding line ends with, `(rule)` or `[rule]`, when the line names a place
/// (`file:line`) before it: a lower-case word of letters, digits, `-`, `_` or `:`.
fn checker(line: &str) -> Option<&str> {
    let line = line.trim_end();
    let (open, close) = match line.chars().last()? {
        ')' => ('(', ')'),
        ']' => ('[', ']'),
        _ => return None,
    };
    let body = line.strip_suffix(close)?;
    let start = body.rfind(open)?;
    let (before, name) = (&body[..start], &body[start + 1..]);
    let rule_like = name.len() >= 3
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_:".contains(c));
    (rule_like && has_place(before)).then_some(name)
}

/// True when a word of `text` is a place in a file: a name with a dot, then `:` and a line
/// number.
fn has_place(text: &str) -> bool {
    text.split_whitespace().any(|word| {
        let mut parts = word.split(':');
        let file = parts.next().unwrap_or("");
        let line = parts.next().unwrap_or("");
        file.contains('.') && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::model::{ErrorSeen, Said};

    fn error(text: &str, last: usize, resolved: bool) -> ErrorSeen {
        ErrorSeen {
            text: text.to_owned(),
            command: None,
            count: 1,
            last,
            resolved,
        }
    }

    #[test]
    fn a_finding_gives_its_rule_and_other_errors_give_none() {
        let goconst = "Error: strategy/a_test.go:12:16: string `x` has 3 occurrences, make it a constant (goconst)";
        assert_eq!(checker(goconst), Some("goconst"));
        let mypy = "src/a.py:7: error: Incompatible types in assignment [assignment]";
        assert_eq!(checker(mypy), Some("assignment"));
        // No place before it, or not a rule's shape: no checker.
        assert_eq!(checker("build failed (exit status 1)"), None);
        assert_eq!(checker("a.go:3: undefined: Foo (see Docs)"), None);
        assert_eq!(checker("panic: boom [recovered]"), None);
    }

    #[test]
    fn only_open_findings_since_the_request_count_newest_first() {
        let ex = Extract {
            task: Some(Said {
                text: "fix the lint".into(),
                index: 10,
            }),
            errors: vec![
                error("a.go:1:2: old finding (unused)", 5, false),
                error("b.go:3:4: fixed finding (errcheck)", 12, true),
                error("c.go:5:6: x has 3 occurrences (goconst)", 11, false),
                error("d.go:7:8: y (gosec)", 14, false),
            ],
            ..Extract::default()
        };
        assert_eq!(open_checkers(&ex), ["gosec", "goconst"]);
    }
}
