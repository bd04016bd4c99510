//! The go subcommands whose operands are packages, modules and symbols, never files:
//! `go doc github.com/go-git/go-git/v5/config.Config`, `go doc fmt.Println`, `go get
//! golang.org/x/tools@v0.1.0`. Their last component reads like a file name with an extension
//! (`config.Config`), so without this a `read:` line lists a symbol the agent looked up as a
//! file it read, and spends the summary's tokens on a path that finds nothing.

/// The go subcommands that take packages, modules or symbols (`go run`, `go build`, `go vet`
/// and `go test` also take `.go` files, so they are not here).
const PACKAGE_SUBCOMMANDS: [&str; 5] = ["doc", "list", "get", "install", "mod"];

/// Whether the operands of `verb` with its first operand `first` (`go` `doc`) name packages
/// rather than files.
pub(super) fn names_packages(verb: &str, first: Option<&str>) -> bool {
    verb == "go" && first.is_some_and(|sub| PACKAGE_SUBCOMMANDS.contains(&sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_doc_and_get_name_packages_but_go_run_names_files() {
        assert!(names_packages("go", Some("doc")));
        assert!(names_packages("go", Some("get")));
        assert!(!names_packages("go", Some("run")));
        assert!(!names_packages("go", Some("test")));
        assert!(!names_packages("go", None));
        assert!(!names_packages("cat", Some("doc")));
    }
}
