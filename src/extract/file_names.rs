//! The files past the top few, by name only. A file line with its directory and its use counts
//! costs a dozen tokens; the next reader mostly needs to know that the file mattered, and finds
//! it by name. So the files below the top ranks print a few to a line, each as the shortest tail
//! of its path that no other file of the session shares (`committed.go`, or `cli/setup.go` when
//! another `setup.go` is listed).

/// Each of `paths` (the files to print, in order) as its shortest tail of whole components that
/// none of `all` (every file of the session) ends in except itself.
pub(super) fn short_names(paths: &[&str], all: &[&str]) -> Vec<String> {
    paths
        .iter()
        .map(|path| {
            let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
            for take in 1..parts.len() {
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
}
