//! The files of a caveman summary, each by a short tail of its path. A file line with its
//! whole directory and its use counts costs a dozen tokens; the next reader needs to know that
//! the file mattered and to find it. So each file prints as the shortest tail of its path that
//! no other file of the session shares (`committed.go`, or `cli/setup.go` when another
//! `setup.go` is listed), except a name without an extension, which keeps three components
//! (`mise-tasks/dev/publish`, `.git/hooks/pre-push`): `publish` or `dev/publish` reads as a
//! word, not a file, to the next agent as to a person.

/// Components a name without an extension keeps: two read as a word pair (`dev/publish`),
/// three as a path.
const NAMED_WITHOUT_EXTENSION: usize = 3;

/// Each of `paths` (the files to print, in order) as its shortest tail of whole components that
/// none of `all` (every file of the session) ends in except itself; three components at least
/// for a name without an extension.
pub(super) fn short_names(paths: &[&str], all: &[&str]) -> Vec<String> {
    paths
        .iter()
        .map(|path| {
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            let shortest = match parts.last() {
                Some(name) if !has_extension(name) => NAMED_WITHOUT_EXTENSION.min(parts.len()),
                _ => 1,
            };
            for take in shortest..parts.len() {
                let tail = parts[parts.len() - take..].join("/");
                let shared = all
                    .iter()
                    .filter(|other| *other != path)
                    .any(|other| ends_with_components(other, &tail));
                if !shared {
                    return tail;
                }
            }
            (*path).to_owned()
        })
        .collect()
}

/// True when a file name carries an extension (`state.go`, `.env.local`); a dotfile's leading
/// dot is none (`.gitignore`).
fn has_extension(name: &str) -> bool {
    name.trim_start_matches('.').contains('.')
}

/// True when `path` ends in the whole components `tail`.
fn ends_with_components(path: &str, tail: &str) -> bool {
    path == tail
        || path
            .strip_suffix(tail)
            .is_some_and(|head| head.ends_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_by_the_shortest_tail_no_other_file_shares() {
        let all = [
            "cmd/cli/setup.go",
            "cmd/cli/strategy/committed.go",
            "internal/setup.go",
            "docs/asetup.go",
        ];
        let shown = short_names(&all[..3], &all);
        assert_eq!(shown, ["cli/setup.go", "committed.go", "internal/setup.go"]);
        // A file alone keeps its name; a path with nothing shorter stays whole.
        assert_eq!(short_names(&["a.go"], &["a.go", "b/a.go"]), ["a.go"]);
    }

    #[test]
    fn a_name_without_an_extension_keeps_three_components() {
        let all = [
            "mise-tasks/dev/publish",
            "/repo/.git/hooks/pre-push",
            "Makefile",
            "a/.env",
            "src/.env.local",
        ];
        assert_eq!(
            short_names(&all, &all),
            [
                "mise-tasks/dev/publish",
                ".git/hooks/pre-push",
                "Makefile",
                "a/.env",
                ".env.local"
            ]
        );
    }
}
