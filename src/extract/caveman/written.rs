//! The tests the agent wrote (see `written_tests`) as a line of the names section, unlabelled.
//!
//! A test the agent just wrote is what its next turn runs by name, but the test command above
//! often names some of them already (`go test -run "TestA|TestB"`). As a names line it prints
//! after the commands, so the names they print are left out of it (see `render`), and it
//! needs no `tests:` label: `TestX` and `test_x` say what they are. The line is shorter, and
//! fits the budget more often.

use super::line::{Line, Section, WRITTEN_TESTS_PRIORITY};
use crate::extract::model::Extract;

/// The line of the tests the agent wrote, newest first; none when it wrote none.
pub(super) fn written_tests_line(ex: &Extract) -> Option<Line> {
    if ex.written_tests.is_empty() {
        return None;
    }
    let text = format!("- {}", ex.written_tests.join(" "));
    Some(Line::plain(
        Section::Names,
        text,
        None,
        WRITTEN_TESTS_PRIORITY,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::caveman;
    use crate::extract::model::{CommandUse, Extract};
    use crate::tokens::Tokenizer;

    #[test]
    fn a_written_test_the_test_command_names_is_not_listed_again() {
        let ex = Extract {
            written_tests: vec!["TestParseLine".into(), "TestParseEmpty".into()],
            commands: vec![CommandUse {
                command: "go test ./parser -run TestParseLine".into(),
                runs: 1,
                test: true,
                ..CommandUse::default()
            }],
            ..Extract::default()
        };
        let text = caveman(&ex, 500, Tokenizer::Chars4);
        assert_eq!(text.matches("TestParseLine").count(), 1, "{text}");
        assert!(text.contains("## names\nTestParseEmpty\n"), "{text}");
        assert!(!text.contains("tests:"), "{text}");
    }
}
