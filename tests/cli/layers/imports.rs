//! The import graph of a crate's sources: which module each file is, and which modules its
//! paths name (`use crate::…`, `super::…`, a child module's `x::…`, and the same paths written
//! in code), at the granularity of the top-level modules and of the folders inside
//! `src/transcript/`.
//!
//! The sources are read as tokens with their comments, strings and chars blanked out, so a path
//! in a doc comment or a message is no import; items under `#[cfg(test)]` (test modules, and
//! files declared by a `#[cfg(test)] mod x;`) are left out, as they are no part of the layers.
//! Paths that name the crate root's own items (`crate::Outcome`, defined in `lib.rs`) are left
//! out too: the root is the entry that declares every module, not a layer.

use std::collections::{BTreeMap, BTreeSet};

/// Where a module imports another: the file, the line and the path as written.
#[derive(Debug, Clone)]
pub struct Witness {
    pub file: String,
    pub line: usize,
    pub path: String,
}

/// Every edge between two different nodes, each with the first place that makes it.
pub type Graph = BTreeMap<(String, String), Witness>;

/// The graph of `files` (path under the crate root, e.g. `src/plan.rs`, and the text).
pub fn graph(files: &BTreeMap<String, String>) -> Graph {
    let layout = Layout::of(files);
    let mut test_only = BTreeSet::new();
    let mut scanned = Vec::new();
    for (path, text) in files {
        let Some(module) = module_path(path) else {
            continue;
        };
        let tokens = tokens(&blank(text));
        let (kept, test_children) = without_test_items(&tokens);
        for child in test_children {
            test_only.insert([module.clone(), vec![child]].concat());
        }
        scanned.push((path, module, kept));
    }
    let mut graph = Graph::new();
    for (path, module, tokens) in scanned {
        // A file a `#[cfg(test)] mod x;` declares, and anything under it.
        if test_only.iter().any(|t| module.starts_with(t)) || module.is_empty() {
            continue;
        }
        let Some(from) = layout.node(&module) else {
            continue;
        };
        for (target, line, written) in paths(&tokens, &module) {
            let Some(to) = layout.node(&target) else {
                continue;
            };
            if to != from {
                graph.entry((from.clone(), to)).or_insert(Witness {
                    file: path.clone(),
                    line,
                    path: written,
                });
            }
        }
    }
    graph
}

/// The modules of the crate, as the file tree lays them out.
struct Layout {
    /// Top-level modules: `src/x.rs` and `src/x/mod.rs`.
    top: BTreeSet<String>,
    /// Folders inside `src/transcript/`.
    transcript_folders: BTreeSet<String>,
}

impl Layout {
    fn of(files: &BTreeMap<String, String>) -> Layout {
        let mut top = BTreeSet::new();
        let mut transcript_folders = BTreeSet::new();
        for path in files.keys() {
            let parts: Vec<&str> = path.split('/').collect();
            match parts.as_slice() {
                ["src", "lib.rs" | "main.rs"] => {}
                ["src", file] => {
                    top.extend(file.strip_suffix(".rs").map(str::to_owned));
                }
                ["src", "transcript", folder, _, ..] => {
                    top.insert("transcript".to_owned());
                    transcript_folders.insert((*folder).to_owned());
                }
                ["src", folder, _, ..] => {
                    top.insert((*folder).to_owned());
                }
                _ => {}
            }
        }
        Layout {
            top,
            transcript_folders,
        }
    }

    /// The node a module path belongs to: its top-level module, or `transcript/FOLDER`; none
    /// for the crate root's own items.
    fn node(&self, module: &[String]) -> Option<String> {
        let first = module.first()?;
        if !self.top.contains(first) {
            return None;
        }
        match module.get(1) {
            Some(folder) if first == "transcript" && self.transcript_folders.contains(folder) => {
                Some(format!("transcript/{folder}"))
            }
            _ => Some(first.clone()),
        }
    }
}

/// The module a file is: `src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`, `src/lib.rs` is `[]`;
/// none for a file outside `src/` (or `src/main.rs`, the binary's own root).
fn module_path(path: &str) -> Option<Vec<String>> {
    let inner = path.strip_prefix("src/")?.strip_suffix(".rs")?;
    if inner == "main" {
        return None;
    }
    let mut parts: Vec<String> = inner.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    Some(parts)
}

/// `source` with every comment, string and char literal replaced by spaces (newlines kept, so
/// lines still count).
fn blank(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let blank_to = |out: &mut String, chars: &[char], from: usize, to: usize| {
        for &c in &chars[from..to] {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            blank_to(&mut out, &chars, i, end);
            i = end;
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            let mut j = i;
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank_to(&mut out, &chars, i, j.min(chars.len()));
            i = j;
        } else if c == 'r'
            && !after_ident_except_b(&chars, i)
            && matches!(next, Some('#' | '"'))
            && raw_string_end(&chars, i + 1).is_some()
        {
            let end = raw_string_end(&chars, i + 1).expect("checked");
            blank_to(&mut out, &chars, i, end);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            blank_to(&mut out, &chars, i, end);
            i = end;
        } else if c == '\'' {
            // A char literal ('x', b'x', '\'', '\u{1F600}'), or else a lifetime ('a), left as
            // it is.
            let end = if next == Some('\\') {
                chars
                    .get(i + 3..)
                    .and_then(|rest| rest.iter().position(|&c| c == '\''))
                    .map(|p| i + 3 + p + 1)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    blank_to(&mut out, &chars, i, end);
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the `r` at `i` continues an identifier (other than the `b` of `br"…"`).
fn after_ident_except_b(chars: &[char], i: usize) -> bool {
    let Some(&before) = i.checked_sub(1).and_then(|p| chars.get(p)) else {
        return false;
    };
    if before == 'b' {
        return i >= 2 && (chars[i - 2].is_alphanumeric() || chars[i - 2] == '_');
    }
    before.is_alphanumeric() || before == '_'
}

/// Where the raw string whose `#`s (or opening quote) start at `at` ends, if it is one.
fn raw_string_end(chars: &[char], at: usize) -> Option<usize> {
    let hashes = chars[at..].iter().take_while(|&&c| c == '#').count();
    if chars.get(at + hashes) != Some(&'"') {
        return None;
    }
    let mut j = at + hashes + 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// A token: an identifier, `::`, or one punctuation char; and its line.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(blanked: &str) -> Vec<Token> {
    let chars: Vec<char> = blanked.chars().collect();
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push(Token {
                text: "::".to_owned(),
                line,
            });
            i += 2;
        } else {
            tokens.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    tokens
}

/// The tokens without the items under `#[cfg(test)]`, and the names of the child modules such
/// an attribute declares (`#[cfg(test)] mod tests;`).
fn without_test_items(tokens: &[Token]) -> (Vec<Token>, Vec<String>) {
    let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
    let mut kept = Vec::new();
    let mut test_children = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if texts[i..].starts_with(&["#", "[", "cfg", "(", "test", ")", "]"]) {
            let mut j = i + 7;
            // Further attributes of the same item.
            while texts.get(j) == Some(&"#") && texts.get(j + 1) == Some(&"[") {
                j = close(&texts, j + 1) + 1;
            }
            let item_start = j;
            let mut depth = 0usize;
            while j < texts.len() {
                match texts[j] {
                    "(" | "[" => depth += 1,
                    ")" | "]" => depth = depth.saturating_sub(1),
                    "{" if depth == 0 => {
                        j = close(&texts, j);
                        // `use a::{b, c};` goes on to its `;`; a block item ends here.
                        if texts.get(j + 1) == Some(&";") {
                            j += 1;
                        }
                        break;
                    }
                    ";" if depth == 0 => break,
                    _ => {}
                }
                j += 1;
            }
            let item = &texts[item_start..j.min(texts.len())];
            let declared = item
                .iter()
                .position(|&t| t == "mod")
                .and_then(|at| item.get(at + 1));
            if texts.get(j) == Some(&";") && item.len() <= 4 {
                test_children.extend(declared.map(|name| (*name).to_owned()));
            }
            i = j + 1;
        } else {
            kept.push(tokens[i].clone());
            i += 1;
        }
    }
    (kept, test_children)
}

/// The index of the bracket that closes the one at `open`.
fn close(texts: &[&str], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in texts.iter().enumerate().skip(open) {
        match *t {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    texts.len()
}

/// Every crate path the tokens of the file `module` name: the absolute module path it resolves
/// to, its line, and how it was written.
fn paths(tokens: &[Token], module: &[String]) -> Vec<(Vec<String>, usize, String)> {
    let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
    // Child modules the file declares (`mod x;`), whose paths start with their bare name.
    let children: BTreeSet<&str> = texts
        .windows(3)
        .filter(|w| w[0] == "mod" && w[2] == ";")
        .map(|w| w[1])
        .collect();
    let mut aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut found = Vec::new();
    let mut i = 0;
    while i < texts.len() {
        if texts[i] == "use" {
            let mut trees = Vec::new();
            let end = use_tree(&texts, i + 1, &mut Vec::new(), &mut trees);
            for (segments, alias) in trees {
                let written = segments.join("::");
                if let Some(absolute) = resolve(&segments, module, &children, &aliases) {
                    if let Some(name) = alias.or_else(|| segments.last().cloned()) {
                        aliases.insert(name, absolute.clone());
                    }
                    found.push((absolute, tokens[i].line, written));
                }
            }
            i = end;
            continue;
        }
        let starts_path = texts.get(i + 1) == Some(&"::")
            && (i == 0 || texts[i - 1] != "::")
            && is_ident(texts[i]);
        if starts_path {
            let mut segments = vec![texts[i].to_owned()];
            let mut j = i + 1;
            while texts.get(j) == Some(&"::") && texts.get(j + 1).is_some_and(|t| is_ident(t)) {
                segments.push(texts[j + 1].to_owned());
                j += 2;
            }
            if let Some(absolute) = resolve(&segments, module, &children, &aliases) {
                found.push((absolute, tokens[i].line, segments.join("::")));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    found
}

fn is_ident(text: &str) -> bool {
    text.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Reads the use tree from `at` (after `use`, or inside braces), adding each full path it
/// names to `trees` with its `as` name; returns where the tree ends.
fn use_tree(
    texts: &[&str],
    mut at: usize,
    prefix: &mut Vec<String>,
    trees: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let depth = prefix.len();
    // `::a` (a 2015-style absolute path) reads as `a`.
    if texts.get(at) == Some(&"::") {
        at += 1;
    }
    loop {
        match texts.get(at).copied() {
            Some("{") => {
                at += 1;
                loop {
                    at = use_tree(texts, at, prefix, trees);
                    match texts.get(at).copied() {
                        Some(",") => at += 1,
                        _ => break,
                    }
                    if texts.get(at) == Some(&"}") {
                        break;
                    }
                }
                // Past the `}`.
                at += 1;
                break;
            }
            Some("*") => {
                trees.push((prefix.clone(), None));
                at += 1;
                break;
            }
            Some(name) if is_ident(name) => {
                if name == "self" && depth > 0 && texts.get(at + 1) != Some(&"::") {
                    trees.push((prefix.clone(), None));
                    at += 1;
                    break;
                }
                prefix.push(name.to_owned());
                at += 1;
                if texts.get(at) == Some(&"::") {
                    at += 1;
                    continue;
                }
                let alias = (texts.get(at) == Some(&"as")).then(|| texts[at + 1].to_owned());
                if alias.is_some() {
                    at += 2;
                }
                trees.push((prefix.clone(), alias));
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth);
    at
}

/// The absolute module path of `segments`, written in the file `module`; none when it names
/// no item of this crate (`std::…`, another crate, a local name).
fn resolve(
    segments: &[String],
    module: &[String],
    children: &BTreeSet<&str>,
    aliases: &BTreeMap<String, Vec<String>>,
) -> Option<Vec<String>> {
    let first = segments.first()?.as_str();
    match first {
        "crate" => Some(segments[1..].to_vec()),
        "self" => Some([module, &segments[1..]].concat()),
        "super" => {
            let ups = segments.iter().take_while(|s| *s == "super").count();
            let base = module.get(..module.len().checked_sub(ups)?)?;
            Some([base, &segments[ups..]].concat())
        }
        _ if children.contains(first) => Some([module, segments].concat()),
        _ => aliases
            .get(first)
            .map(|target| [target.as_slice(), &segments[1..]].concat()),
    }
}
