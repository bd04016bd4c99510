//! The entities `eval` grades, and how they are found in a text (pure). `docs/EVAL.md` is the
//! definition in prose; this file is the same definition in code, and the two change together.
//!
//! Everything is found by small matchers over the shapes people and tools write (no regex, no
//! model). They are strict on purpose: a false entity that happens to occur before and after a
//! cut counts as "re-used" and rewards a summary for echoing noise, so a doubtful word is left
//! out rather than let in. Constraints are sentences, not words, and are found apart (see
//! [`super::constraints`]).

use super::commands::{code_spans, commands};
use super::entity::{Entity, Kind};
use super::words::{is_common, ERRNO, EXTENSIONS, PRODUCTS, UNITS};

/// Every entity in `text`, in order of appearance, constraints aside. `shell` says the text is
/// a command line a tool ran (its commands may name any program; in prose only the programs of
/// [`PROGRAMS`](super::words::PROGRAMS) count, inside a code span or after `$ `).
pub fn scan(text: &str, shell: bool, out: &mut Vec<Entity>) {
    // Code quoted inside a tool call keeps its escapes (`"…\n\nPlease"`), which would glue a
    // letter onto the next word.
    let unescaped;
    let text = if text.contains("\\n") || text.contains("\\t") {
        unescaped = text.replace("\\n", "\n").replace("\\t", "\t");
        unescaped.as_str()
    } else {
        text
    };
    if shell {
        commands(text, true, out);
    } else {
        for span in code_spans(text) {
            commands(span, false, out);
        }
    }
    error_messages(text, out);
    // Before tokens: the brackets of `error[E0308]` split it.
    for (at, _) in text.match_indices("error[E") {
        if let Some(code) = rust_error_code(&text[at..]) {
            out.push(Entity::new(Kind::Error, code));
        }
    }
    let braced;
    let text = if text.contains("${") {
        braced = text.replace("${", "$");
        braced.as_str()
    } else {
        text
    };
    let tokens: Vec<&str> = text.split(is_delimiter).filter(|t| !t.is_empty()).collect();
    for (i, token) in tokens.iter().enumerate() {
        token_entities(token, tokens.get(i + 1).copied().unwrap_or(""), out);
    }
}

/// What separates the tokens of a text: whitespace, quotes, brackets and the shell's operators.
/// `$`, `=`, `:` and `%` stay inside a token, where they say what it is.
fn is_delimiter(c: char) -> bool {
    (!c.is_ascii() && c != 'µ') || c.is_ascii_whitespace() || "\"'`()[]{}<>,;|&*!?".contains(c)
}

/// The entities of one token of prose or code; `next` is the token after it (a number's unit
/// may be written there).
fn token_entities(token: &str, next: &str, out: &mut Vec<Entity>) {
    if let Some(url) = url(token) {
        out.push(Entity::new(Kind::Url, url));
        return;
    }
    let token = token.trim_end_matches(['.', ':']);
    if token.is_empty() {
        return;
    }
    if let Some(flag) = flag(token) {
        out.push(Entity::new(Kind::Flag, flag));
        return;
    }
    if let Some(name) = env_var(token) {
        out.push(Entity::new(Kind::Env, name));
        return;
    }
    if let Some(number) = number_at(token, next) {
        out.push(Entity::new(Kind::Number, number));
        return;
    }
    if ERRNO.contains(&token) {
        out.push(Entity::new(Kind::Error, token));
        return;
    }
    // What follows a colon is a line number (`a.rs:3:5`) or a test (`a.py::test_x`).
    let (head, rest) = token.split_once(':').unwrap_or((token, ""));
    let words = if is_path(head) {
        out.push(Entity::new(Kind::Path, normal_path(head)));
        rest
    } else if token.contains('=') || token.starts_with('-') {
        // An assignment or a short flag: its parts name nothing reliably.
        ""
    } else {
        token
    };
    for word in words.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if let Some(kind) = identifier_kind(word) {
            out.push(Entity::new(kind, word));
        }
    }
}

/// The URL a token is, trailing punctuation cut.
fn url(token: &str) -> Option<&str> {
    let start = token.find("https://").or_else(|| token.find("http://"))?;
    let url = token[start..].trim_end_matches(['.', ',', ':', ';']);
    let host = url.split_once("://")?.1;
    (host.len() > 3 && host.contains(|c: char| c.is_ascii_alphanumeric())).then_some(url)
}

/// The long flag a token is (`--release`, `--format=json` is `--format`).
fn flag(token: &str) -> Option<&str> {
    let name = token.strip_prefix("--")?;
    let name = name.split_once('=').map_or(name, |(n, _)| n);
    let ok = name.len() >= 2
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    ok.then(|| &token[..name.len() + 2])
}

/// The environment variable a token names: `$NAME`, `${NAME}`, or `NAME=value`, where NAME is
/// upper case, digits and `_`, starts with a letter, and has three characters or more (`$PATH`
/// and `CI=1` are too short to tell from prose when written bare, so `$` or a `_` is needed).
fn env_var(token: &str) -> Option<&str> {
    let upper = |s: &str| {
        s.len() >= 2
            && s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    };
    if let Some(rest) = token.strip_prefix('$') {
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        return upper(&rest[..end]).then_some(&rest[..end]);
    }
    let (name, value) = token.split_once('=')?;
    (upper(name) && name.len() >= 3 && name.contains('_') && !value.starts_with('='))
        .then_some(name)
}

/// The number with a unit that starts `token` (its unit in the token, or else `next`, the word
/// after it), written as digits and the lowercase unit: `12ms`, `95%`, `3tests`.
pub fn number_at(token: &str, next: &str) -> Option<String> {
    let digits = token
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(token.len());
    let number = token[..digits].trim_end_matches(['.', ',']);
    let dots = number.matches('.').count();
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) || dots > 1 {
        return None;
    }
    let attached = &token[number.len()..];
    let (unit, spaced) = if attached.is_empty() {
        (next.trim_end_matches(['.', ',', ':', ';', ')']), true)
    } else {
        (attached, false)
    };
    let lower = unit.to_lowercase();
    let short = lower.chars().count() == 1 && lower != "%";
    if unit.is_empty() || !UNITS.contains(&lower.as_str()) || (spaced && short) {
        return None;
    }
    Some(format!("{}{lower}", number.replace(',', "")))
}

/// `error[E0308]` as the token holds it.
fn rust_error_code(token: &str) -> Option<&str> {
    let at = token.find("error[E")?;
    let code = token.get(at..at + 12)?;
    let digits = &code[7..11];
    (digits.bytes().all(|b| b.is_ascii_digit()) && code.ends_with(']')).then_some(code)
}

/// The messages after `error:`, `Error:`, `ERROR:`, `fatal:` and `error[E…]:`: the first eight
/// words up to the end of the sentence, in lowercase with quotes dropped, when there are three
/// or more.
fn error_messages(text: &str, out: &mut Vec<Entity>) {
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find(": ") {
            let before = &rest[..at];
            let word = before
                .rsplit(|c: char| c.is_whitespace() || c == '(')
                .next()
                .unwrap_or("");
            let is_error = matches!(word, "error" | "Error" | "ERROR" | "fatal")
                || word.ends_with("Error")
                || rust_error_code(word).is_some();
            rest = &rest[at + 2..];
            if !is_error {
                continue;
            }
            if let Some(message) = error_phrase(rest) {
                out.push(Entity::new(Kind::Error, message));
            }
        }
    }
}

/// The comparable phrase of an error message: its first eight words up to the end of the
/// sentence, lowercase, quotes dropped, stopping at code; three words or more.
pub fn error_phrase(text: &str) -> Option<String> {
    let mut words = Vec::new();
    for word in text.split_whitespace().take(8) {
        let clean = flat_word(word);
        // Code after `Error:` (`${message})`, `{e}`) is no message: it stops at the first
        // word that is not letters, digits and `-_./`.
        let prose = clean.chars().any(char::is_alphanumeric)
            && clean
                .chars()
                .all(|c| c.is_alphanumeric() || "-_./".contains(c));
        if !prose {
            break;
        }
        words.push(clean);
        if word.ends_with(['.', ';']) {
            break;
        }
    }
    (words.len() >= 3).then(|| words.join(" "))
}

/// A word as error phrases compare it: quotes dropped, trailing punctuation cut, lowercase.
pub fn flat_word(word: &str) -> String {
    word.chars()
        .filter(|c| !"`'\"“”‘’".contains(*c))
        .collect::<String>()
        .trim_end_matches(['.', ',', ';', ':'])
        .to_lowercase()
}

/// Whether a word (no delimiters left in it) names a file or directory: a name with a known
/// extension, or slashed segments that do not read as prose (`and/or`, `Yes/No/Maybe`).
pub fn is_path(s: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_-./~@+".contains(c);
    if s.len() < 3 || !s.chars().all(allowed) || !s.chars().any(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let last = s.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let has_extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        stem.chars().any(|c| c.is_ascii_alphabetic()) && EXTENSIONS.contains(&ext)
    });
    if !s.contains('/') {
        return has_extension;
    }
    let segments: Vec<&str> = s.split('/').filter(|x| !x.is_empty()).collect();
    if segments
        .iter()
        .any(|x| !x.chars().any(|c| c.is_ascii_alphanumeric()) && !matches!(*x, "." | ".." | "~"))
    {
        return false;
    }
    let rooted = ["/", "~/", "./", "../"].iter().any(|p| s.starts_with(p));
    let marked = segments
        .iter()
        .any(|x| x.contains(['.', '_', '-']) || x.chars().any(|c| c.is_ascii_digit()));
    // Unmarked segments are a path only in lower case (`cmd/entire/cli`): capitalised or
    // camel-case ones are prose or names (`All/Active/Completed`, `agent/sessionManager`).
    let lower = segments
        .iter()
        .all(|x| !x.chars().any(|c| c.is_ascii_uppercase()));
    // `@scope/package` is a package name, not a file.
    if s.starts_with('@') && !has_extension {
        return false;
    }
    has_extension
        || (rooted && segments.len() >= 2)
        || (segments.len() >= 3 && (marked || lower))
        || (segments.len() == 2 && marked)
}

/// A path as it is compared: `./` and trailing slashes dropped.
fn normal_path(path: &str) -> String {
    let path = path.strip_prefix("./").unwrap_or(path);
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() { path } else { trimmed }.to_owned()
}

/// The kind of an identifier-like word: `FooError` / `FooException` is an error, snake_case,
/// SCREAMING_CASE, camelCase, CamelCase and an acronym before a word (`HTTPServer`) are
/// identifiers. A plain word, a common English word and a product name (`GitHub`) are none.
pub fn identifier_kind(word: &str) -> Option<Kind> {
    let core = word.trim_matches('_');
    if core.len() < 3
        || !core.starts_with(|c: char| c.is_ascii_alphabetic())
        || PRODUCTS.contains(&core)
        || is_common(core)
    {
        return None;
    }
    let upper_first = core.starts_with(|c: char| c.is_ascii_uppercase());
    // A function about errors (`NoError`, `IsNotExistError`, `HandleError`) is a name, not
    // an error.
    let verb = ERROR_VERBS.iter().any(|v| {
        core.strip_prefix(v)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
    });
    for suffix in ["Error", "Exception"] {
        if upper_first && !verb && core.len() > suffix.len() && core.ends_with(suffix) {
            return Some(Kind::Error);
        }
    }
    let b = core.as_bytes();
    let snake = core.contains('_') && b.iter().filter(|c| c.is_ascii_alphabetic()).count() >= 3;
    let hump = b
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    // An acronym then a word (`HTTPServer`), but not a plural (`URLs`).
    let acronym = b.windows(4).any(|w| {
        w[0].is_ascii_uppercase()
            && w[1].is_ascii_uppercase()
            && w[2].is_ascii_lowercase()
            && w[3].is_ascii_lowercase()
    });
    (snake || hump || acronym).then_some(Kind::Identifier)
}

/// The first words of function names that end in `Error` without being an error type.
const ERROR_VERBS: [&str; 16] = [
    "No", "Is", "Has", "New", "Wrap", "As", "Handle", "Check", "Assert", "Expect", "Must", "Log",
    "Print", "Format", "Report", "Raise",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, shell: bool) -> Vec<(Kind, String)> {
        let mut out = Vec::new();
        scan(text, shell, &mut out);
        out.into_iter().map(|e| (e.kind, e.text)).collect()
    }

    #[test]
    fn prose_yields_paths_names_flags_and_urls_and_no_plain_words() {
        let text = "Edit `src/eval/mod.rs:12` so parse_probes and TokenizerArgs take --horizon; \
                    see https://example.com/a. The GitHub page and/or Yes/No say nothing.";
        assert_eq!(
            found(text, false),
            [
                (Kind::Path, "src/eval/mod.rs".to_owned()),
                (Kind::Identifier, "parse_probes".to_owned()),
                (Kind::Identifier, "TokenizerArgs".to_owned()),
                (Kind::Flag, "--horizon".to_owned()),
                (Kind::Url, "https://example.com/a".to_owned()),
            ]
        );
    }

    #[test]
    fn shell_lines_yield_commands_env_vars_and_numbers() {
        let found = found(
            "RUST_LOG=debug cargo test -q && sleep 30s; echo $HOME",
            true,
        );
        assert!(found.contains(&(Kind::Command, "cargo test".to_owned())));
        assert!(found.contains(&(Kind::Command, "sleep".to_owned())));
        assert!(!found.iter().any(|(_, t)| t == "echo"));
        assert!(found.contains(&(Kind::Env, "RUST_LOG".to_owned())));
        assert!(found.contains(&(Kind::Env, "HOME".to_owned())));
        assert!(found.contains(&(Kind::Number, "30s".to_owned())));
    }

    #[test]
    fn numbers_need_a_unit_and_single_letters_must_be_attached() {
        assert_eq!(number_at("12", "ms"), Some("12ms".to_owned()));
        assert_eq!(number_at("95%", ""), Some("95%".to_owned()));
        assert_eq!(number_at("1,024", "tokens."), Some("1024tokens".to_owned()));
        assert_eq!(number_at("3", "s"), None);
        assert_eq!(number_at("1.2.3", "MB"), None);
        assert_eq!(number_at("42", "apples"), None);
    }

    #[test]
    fn errors_are_types_codes_errno_and_messages() {
        let found = found(
            "error[E0308]: mismatched types here\nraised ValueError then ENOENT",
            false,
        );
        assert!(found.contains(&(Kind::Error, "error[E0308]".to_owned())));
        assert!(found.contains(&(Kind::Error, "mismatched types here".to_owned())));
        assert!(found.contains(&(Kind::Error, "ValueError".to_owned())));
        assert!(found.contains(&(Kind::Error, "ENOENT".to_owned())));
    }

    #[test]
    fn common_words_and_products_are_never_identifiers() {
        for word in ["the", "Please", "GitHub", "macOS", "URLs", "JSON", "ab_"] {
            assert_eq!(identifier_kind(word), None, "{word}");
        }
        assert_eq!(identifier_kind("HTTPServer"), Some(Kind::Identifier));
        assert_eq!(identifier_kind("MAX_TOKENS"), Some(Kind::Identifier));
        assert_eq!(identifier_kind("NoError"), Some(Kind::Identifier));
        assert_eq!(identifier_kind("SessionIDConflictError"), Some(Kind::Error));
    }
}
