//! The error types a session is about: the code names among its frequent ones that name an
//! error or exception type (`SessionIDConflictError`, `InternalServerErrorException`).
//!
//! A session investigating an error often never runs a command that prints it: the agent
//! searches the code for the type, reads where it is raised and explains when it happens. The
//! error lines of tool outputs then hold nothing, yet the type is the problem the next turn
//! works on; among the names it would sit with a dozen others and be cut first. So the names
//! that read as error types go under errors, out of the names.

/// The most error types shown.
pub(super) const MOST_ERROR_TYPES: usize = 3;

/// The languages' own error types, which any code raises or catches (`pytest.raises(ValueError)`,
/// `catch (e) { if (e instanceof TypeError) … }`): they name no problem of this session's.
const BUILT_IN: [&str; 15] = [
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "RuntimeError",
    "NameError",
    "ImportError",
    "AssertionError",
    "SyntaxError",
    "OSError",
    "IOError",
    "NotImplementedError",
    "RangeError",
    "ReferenceError",
];

/// Suffixes of an error type's name.
const SUFFIXES: [&str; 3] = ["Error", "Exception", "Failure"];

/// The names of `names` (most used first) that read as error types, in that order, at most
/// [`MOST_ERROR_TYPES`]: one word in PascalCase with a part before its suffix
/// (`ParseError`, not `Error`, `errors.New` or `handle_error`), not one of the languages' own.
pub(super) fn error_types(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|name| is_error_type(name))
        .take(MOST_ERROR_TYPES)
        .collect()
}

/// Test assertions that a call returned no error (testify's `NoError`, `assert.NotError`-like
/// helpers): they name the absence of one.
const ASSERTIONS: [&str; 2] = ["NoError", "NotError"];

/// Whether `name` reads as an error type (see [`error_types`]); Go's constructors of one
/// (`NewSilentError`) are functions, not types, and a test's assertion of no error is none.
fn is_error_type(name: &str) -> bool {
    let constructor = name
        .strip_prefix("New")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
    !constructor
        && !BUILT_IN.contains(&name)
        && !ASSERTIONS.contains(&name)
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && SUFFIXES.iter().any(|suffix| {
            name.strip_suffix(suffix).is_some_and(|before| {
                before.chars().filter(|c| c.is_ascii_uppercase()).count() >= 1
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_names_ending_in_error_or_exception_are_error_types() {
        let names: Vec<String> = [
            "manual_commit_git.go",
            "SessionIDConflictError",
            "errors.New",
            "handle_error",
            "Error",
            "CheckpointCount",
            "InternalServerErrorException",
            "NewSilentError",
            "NoError",
            "ParseFailure",
            "TimeoutError",
            "ValueError",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            error_types(&names),
            [
                "SessionIDConflictError",
                "InternalServerErrorException",
                "ParseFailure"
            ]
        );
        assert!(error_types(&names[..1]).is_empty());
    }
}
