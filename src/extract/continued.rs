//! `continue <last call>`, the next step of an agent stopped mid-call, names the files of the
//! call by their file name: `continue edit sessions_fix.go`, not `continue edit
//! cmd/entire/cli/sessions_fix.go`. The line that says where the work stands already names
//! the file in full (bare's NOW place, caveman's `last:`), and the directories repeated cost a
//! token each. Measured on the eval corpus: bare's probes 252 -> 253 (one goal probe the room
//! went to), no kind lost; caveman's: see CHANGELOG.

/// What NEXT says when the agent stopped mid-call (see `next`).
const CONTINUE: &str = "continue ";

/// `next` with each path of a `continue <last call>` line shortened to its file name; any
/// other line as it is. A URL, or a path that does not end in a file name with an extension
/// (`./cmd/...`, a directory), stays whole.
pub(super) fn by_file_names(next: &str) -> String {
    if !next.starts_with(CONTINUE) {
        return next.to_owned();
    }
    let words: Vec<&str> = next.split(' ').collect();
    // Two paths of one file name (`diff a/hooks.go b/hooks.go`) stay whole: the names alone
    // would say the same file twice.
    let shared = |name: &str| {
        words
            .iter()
            .filter(|word| name_of(word) == Some(name))
            .nth(1)
            .is_some()
    };
    words
        .iter()
        .map(|&word| match name_of(word) {
            Some(name) if !shared(name) => name,
            _ => word,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The file name a path word ends in, `None` for a URL or a word that ends in none.
fn name_of(word: &str) -> Option<&str> {
    match word.rsplit_once('/') {
        Some((_, name)) if is_file_name(name) && !word.contains("://") => Some(name),
        _ => None,
    }
}

/// True for `stem.ext`, a non-empty stem and an extension of 1 to 5 letters or digits.
fn is_file_name(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_continued_call_names_its_files_by_their_names() {
        assert_eq!(
            by_file_names("continue edit cmd/entire/cli/sessions_fix.go"),
            "continue edit sessions_fix.go"
        );
        // Package patterns, directories and URLs stay whole.
        assert_eq!(
            by_file_names("continue $ go test ./cmd/entire/cli/... docs/plans/"),
            "continue $ go test ./cmd/entire/cli/... docs/plans/"
        );
        assert_eq!(
            by_file_names("continue fetch https://example.org/a/index.html"),
            "continue fetch https://example.org/a/index.html"
        );
        // Paths that share a file name keep their directories; the others still lose theirs.
        assert_eq!(
            by_file_names("continue $ diff a/hooks.go b/hooks.go c/x.rs"),
            "continue $ diff a/hooks.go b/hooks.go x.rs"
        );
        // A plan or a todo is the agent's own words, kept as they are.
        assert_eq!(
            by_file_names("Edit src/a/b.rs next"),
            "Edit src/a/b.rs next"
        );
    }
}
