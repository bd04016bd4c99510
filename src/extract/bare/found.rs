//! `NEXT: <step> | found: workflow_test.go`: the first file the agent's latest search listed
//! (see the extract's `found`), after the step and the todos. A search that is the last thing
//! the session saw is where the agent goes next, and the file it opens is one no other line
//! names yet. Cut short, the step shortens and the file stays, as the todos do.

use super::super::paths::file_name;
use super::super::shorten::Shortening;

/// `next` and ` | found: <file name>`, the first of `found` that `next` does not name.
pub(super) fn with_found(next: Shortening, found: &[String]) -> Shortening {
    let name = found
        .iter()
        .map(|path| file_name(path))
        .find(|name| !next.full.contains(name));
    next.with_file_named(" | found: ", name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_file_found_follows_the_step_and_stays_when_it_shortens() {
        let found = [
            "cmd/cli/workflow_test.go".to_owned(),
            "conflict_test.go".to_owned(),
        ];
        let next = with_found(
            Shortening::plain("Update the tests to the new format.".into()),
            &found,
        );
        assert_eq!(
            next.full,
            "Update the tests to the new format. | found: workflow_test.go"
        );
        assert!(
            next.at(40).ends_with("| found: workflow_test.go"),
            "{}",
            next.at(40)
        );
        // A file the step names already, or no step, adds nothing.
        let named = Shortening::plain("Read workflow_test.go".into());
        assert_eq!(
            with_found(named, &found).full,
            "Read workflow_test.go | found: conflict_test.go"
        );
        let none = Shortening::plain("none".into());
        assert_eq!(with_found(none, &found).full, "none");
    }
}
