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
