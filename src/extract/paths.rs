//! The session's working directory, paths written relative to it, and which shell words are
//! file paths.

use std::collections::HashMap;

use crate::transcript::{Part, Record};

/// The session's working directory: the first `"cwd"` a line records (Claude Code, Codex, pi),
/// else the absolute directory that commands `cd` into most often (at least twice).
pub(super) fn find_root(records: &[Record]) -> Option<String> {
    for record in records {
        for needle in [&b"\"cwd\":\""[..], &b"\"cwd\": \""[..]] {
            if let Some(at) = memchr::memmem::find(record.raw, needle) {
                let start = at + needle.len() - 1;
                if let Some(root) = json_string_at(&record.raw[start..]) {
                    let root = root.trim_end_matches('/');
                    if root.starts_with('/') && root.len() > 1 && !root.contains(char::is_control) {
                        return Some(root.to_owned());
                    }
                }
            }
        }
    }
    // A directory is copied: the arguments it is read from are let go with their record's
    // copy (see `Record::to_read_once`), so that they are never all held decoded.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for record in records {
        let record = record.to_read_once();
        let Some(message) = record.message() else {
            continue;
        };
        for part in &message.parts {
            if let Part::ToolCall { arguments, .. } = part {
                if let Some(at) = memchr::memmem::find(arguments.as_bytes(), b"cd /") {
                    let rest = &arguments[at + 3..];
                    let end = rest
                        .find([' ', '&', ';', '"', '\\', '\n', '|', ')'])
                        .unwrap_or(rest.len());
                    *counts.entry(rest[..end].to_owned()).or_default() += 1;
                }
            }
        }
    }
    counts
        .into_iter()
        .filter(|(dir, n)| *n >= 2 && dir.len() > 1)
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(dir, _)| dir.trim_end_matches('/').to_owned())
}

/// The JSON string starting at `bytes[0]` (a quote), decoded.
fn json_string_at(bytes: &[u8]) -> Option<String> {
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return serde_json::from_slice(&bytes[..=i]).ok(),
            _ => i += 1,
        }
    }
    None
}

/// `path` relative to `root` when it lies inside it, without a leading `./`.
pub(super) fn relative(path: &str, root: Option<&str>) -> String {
    let path = path.trim();
    let path = match root {
        Some(root) if path == root => ".",
        Some(root) => path
            .strip_prefix(root)
            .and_then(|rest| rest.strip_prefix('/'))
            .unwrap_or(path),
        None => path,
    };
    path.strip_prefix("./").unwrap_or(path).to_owned()
}

/// The command without a leading `cd <root> &&` (or `;`), and with a `cd` into a directory
/// below the root written relative to it: the root is stated once instead.
pub(super) fn strip_cd(command: &str, root: Option<&str>) -> String {
    let unchanged = || command.to_owned();
    let (Some(root), Some(rest)) = (root, command.strip_prefix("cd ")) else {
        return unchanged();
    };
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ';' || c == '&')
        .unwrap_or(rest.len());
    let after = rest[end..].trim_start();
    let Some(after) = after.strip_prefix("&&").or_else(|| after.strip_prefix(';')) else {
        return unchanged();
    };
    let after = after.trim_start();
    let dir = rest[..end].trim_matches(['"', '\'']).trim_end_matches('/');
    if dir == root {
        return after.to_owned();
    }
    match dir.strip_prefix(root).and_then(|d| d.strip_prefix('/')) {
        Some(below) => format!("cd {below} && {after}"),
        None => unchanged(),
    }
}

/// The last component of a path (`src/a.rs` → `a.rs`, `lib/` → `lib`): the name a file goes
/// by in a summary's lines.
pub(super) fn file_name(path: &str) -> &str {
    let path = path.trim_end_matches('/');
    path.rsplit('/').next().unwrap_or(path)
}

/// The path a shell word names, without a `:line` or pytest `::test` suffix, when it is one.
/// A file at a revision (`git show HEAD:src/a.rs`, `e72157d:src/a.rs`) is the file.
pub(super) fn clean_path(word: &str) -> Option<String> {
    let word = word.split("::").next().unwrap_or(word);
    let word = without_revision(word);
    let word = match word.find(':') {
        Some(at)
            if word[at + 1..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':') =>
        {
            &word[..at]
        }
        _ => word,
    };
    (is_pathlike(word) && !word.starts_with("/dev/") && !word.starts_with("/proc/"))
        .then(|| word.to_owned())
}

/// `path` of a git `<revision>:<path>` word whose revision is `HEAD` (with `~n` or `^`) or a
/// hash of seven hex digits or more; any other word as it is.
fn without_revision(word: &str) -> &str {
    let Some((revision, path)) = word.split_once(':') else {
        return word;
    };
    let head = revision.strip_prefix("HEAD").is_some_and(|rest| {
        rest.chars()
            .all(|c| c.is_ascii_digit() || c == '~' || c == '^')
    });
    let hash = revision.len() >= 7 && revision.chars().all(|c| c.is_ascii_hexdigit());
    if (head || hash) && !path.is_empty() {
        path
    } else {
        word
    }
}

/// True for a file the agent's harness writes, not the project: the output file of a Claude
/// Code background task (`/tmp/claude-501/<project>/tasks/b463a86.output`), which the agent
/// reads to follow a command or sub-agent it started. The command and its result are what
/// matter; the file's random name helps no one find anything after the session.
pub(super) fn is_harness_file(path: &str) -> bool {
    let mut parts = path.rsplit('/');
    let (Some(name), Some(dir)) = (parts.next(), parts.next()) else {
        return false;
    };
    dir == "tasks"
        && name
            .strip_suffix(".output")
            .is_some_and(|id| !id.is_empty())
}

/// True when a word looks like a file: no shell syntax, a URL or a glob, and a last component
/// with a short alphanumeric extension (and a name with a letter), or a well-known file name.
pub fn is_pathlike(word: &str) -> bool {
    const NAMES: [&str; 10] = [
        "Makefile",
        "Dockerfile",
        "Justfile",
        "Rakefile",
        "Gemfile",
        "Procfile",
        "LICENSE",
        "README",
        "Containerfile",
        "Vagrantfile",
    ];
    if word.is_empty()
        || word.len() > 300
        || word.starts_with(['-', '@'])
        || word.contains("://")
        || word.contains(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '$' | '*'
                        | '?'
                        | '{'
                        | '}'
                        | '['
                        | ']'
                        | '<'
                        | '>'
                        | '|'
                        | ';'
                        | '&'
                        | '('
                        | ')'
                        | '`'
                        | '\''
                        | '"'
                        | '='
                        | ','
                        | '\\'
                        | '%'
                )
        })
    {
        return false;
    }
    let base = word.rsplit('/').next().unwrap_or(word);
    if NAMES.contains(&base) {
        return true;
    }
    let Some(dot) = base.rfind('.') else {
        return false;
    };
    let (stem, ext) = (&base[..dot], &base[dot + 1..]);
    let ext_ok = (1..=10).contains(&ext.len())
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    let stem_ok = if stem.is_empty() {
        // A dotfile: `.gitignore`, `.env`.
        ext.len() >= 2
    } else {
        stem.chars().any(char::is_alphabetic) && !stem.ends_with('.')
    };
    ext_ok && stem_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_a_revision_is_the_file() {
        for word in [
            "HEAD:src/a.rs",
            "HEAD~2:src/a.rs",
            "e72157d:src/a.rs",
            "src/a.rs:12",
        ] {
            assert_eq!(clean_path(word).as_deref(), Some("src/a.rs"), "{word}");
        }
        // A drive, a host or a branch before the colon is no revision.
        assert_eq!(without_revision("main:src/a.rs"), "main:src/a.rs");
        assert_eq!(without_revision("abc:src/a.rs"), "abc:src/a.rs");
        assert_eq!(without_revision("HEAD:"), "HEAD:");
    }

    #[test]
    fn a_background_task_output_file_is_the_harness_s_not_the_project_s() {
        assert!(is_harness_file(
            "/private/tmp/claude-501/-Users-me-app/tasks/b463a86.output"
        ));
        assert!(is_harness_file("/tmp/claude/tasks/a1b2c3.output"));
        // A project's own `tasks/` folder or `.output` file elsewhere is the project's.
        assert!(!is_harness_file("src/tasks/build.rs"));
        assert!(!is_harness_file("out/run.output"));
        assert!(!is_harness_file("tasks/.output"));
        assert!(!is_harness_file("b463a86.output"));
    }
}
