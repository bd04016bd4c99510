//! The tests the agent wrote: the test functions its edits define. The next turn runs them by
//! name (`go test -run TestScope_SlicesTranscript`, `pytest -k test_parse_empty`) and fixes
//! the ones that fail, and a test written late in a session is often named nowhere else (the
//! edit is its only mention, so it never ranks among the frequent names).
//!
//! A test is a function defined in the written text (`func`, `def`, `fn`, `void`, Go's method
//! form `func (s *Suite) TestX`) whose name starts a test as the runners find them: `Test`
//! before a capital, a digit or `_` (Go, JUnit), `test_` (pytest, Rust), `test` before a
//! capital (JUnit 3); and any function right after a Rust `#[test]`.

/// How many written tests an extract keeps, newest first: the tests of the latest edits are
/// the ones the next turn runs, and the line is cut to the ones that fit (a list line, see
/// `caveman::partial`). Measured on the eval corpus with the line at priority 46: at 5, 8, 12
/// and 20, caveman's probes 497 and cuts at least native's on all entities 34 of 60 each,
/// re-used entities carried 1,457, 1,458, 1,461 and 1,461.
pub(super) const WRITTEN_TESTS: usize = 12;

/// The keywords that define a function, each with the space after it.
const DEFINES: [&str; 4] = ["func ", "def ", "fn ", "void "];

/// The test functions `code` defines, in order, each once.
pub(super) fn test_definitions(code: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for keyword in DEFINES {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            // The keyword as a word of its own: `undef x` and `my_fn x` define nothing.
            let word_start = code[..start]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            if !word_start {
                continue;
            }
            let name = defined_name(&code[from..]);
            let rust_test = keyword == "fn " && code[..start].trim_end().ends_with("#[test]");
            if (rust_test || is_test_name(name)) && !found.iter().any(|f| f == name) {
                found.push(name.to_owned());
            }
        }
    }
    found
}

/// The name a definition gives, from the text after its keyword: Go's receiver
/// (`(s *Suite) `) skipped.
fn defined_name(after: &str) -> &str {
    let rest = match after.strip_prefix('(') {
        Some(receiver) => receiver
            .split_once(')')
            .map_or("", |(_, rest)| rest.trim_start()),
        None => after,
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Whether `name` is one a test runner takes for a test (see the module doc).
fn is_test_name(name: &str) -> bool {
    let after = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.chars().next())
    };
    match after("Test") {
        Some(c) => c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_',
        None => {
            name.starts_with("test_") && name.len() > 5
                || after("test").is_some_and(|c| c.is_ascii_uppercase())
        }
    }
}

/// `tests` (one list per edit, oldest edit first) as the newest [`WRITTEN_TESTS`] names,
/// newest edit first, each once.
pub(super) fn newest_tests(tests: &[Vec<String>]) -> Vec<String> {
    let mut newest: Vec<String> = Vec::new();
    for name in tests.iter().rev().flatten() {
        if newest.len() == WRITTEN_TESTS {
            break;
        }
        if !newest.contains(name) {
            newest.push(name.clone());
        }
    }
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_functions_of_go_python_rust_and_java_and_nothing_else() {
        let code = "func TestScope_Slices(t *testing.T) {}\n\
                    func (s *Suite) TestRewind() {}\n\
                    func Testify() {}\n\
                    func helper() {}\n\
                    def test_parse_empty():\n\
                    def test_parse_empty(self):\n\
                    #[test]\nfn parses_a_header() {}\n\
                    fn test_round_trip() {}\n\
                    fn build() {}\n\
                    public void testLoadsConfig() {}\n\
                    undef TestNot";
        assert_eq!(
            test_definitions(code),
            [
                "TestScope_Slices",
                "TestRewind",
                "test_parse_empty",
                "parses_a_header",
                "test_round_trip",
                "testLoadsConfig",
            ]
        );
    }

    #[test]
    fn the_newest_edits_tests_come_first_each_once() {
        let tests = vec![
            vec!["TestA".to_owned(), "TestB".to_owned()],
            vec!["TestC".to_owned(), "TestA".to_owned()],
        ];
        assert_eq!(newest_tests(&tests), ["TestC", "TestA", "TestB"]);
        let many: Vec<Vec<String>> = (0..WRITTEN_TESTS + 4)
            .map(|n| vec![format!("Test{n}")])
            .collect();
        assert_eq!(newest_tests(&many).len(), WRITTEN_TESTS);
        assert_eq!(newest_tests(&many)[0], format!("Test{}", WRITTEN_TESTS + 3));
    }
}
