//! The import graph of a crate's sources, a node per file: which module each file is, and
//! which modules its paths name (`use crate::…`, `super::…`, a child module's `x::…`, and the
//! same paths written in code).
//!
//! A path is followed to the module that defines what it names: through the `use` items of the
//! modules on its way (`crate::transcript::Role`, re-exported by `transcript/mod.rs` from
//! `model.rs`, is an edge to `transcript::model`, not to `transcript`), so a parent that only
//! re-exports its children is no hub of the graph. A `use` that names a whole module
//! (`use crate::transcript;`) is no edge by itself: the paths written through it are.
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

/// Every edge between two different modules (`a::b`, as Rust writes them), each with the first
/// place that makes it.
pub type Graph = BTreeMap<(String, String), Witness>;

/// A file read: its module, and the crate paths it names.
struct Scanned<'f> {
    path: &'f str,
    module: Vec<String>,
    named: Vec<Named>,
}

/// The files that are production code, each scanned; files a `#[cfg(test)] mod x;` declares
/// (and anything under them) and `src/main.rs` are left out.
fn scan(files: &BTreeMap<String, String>) -> Vec<Scanned<'_>> {
    let mut test_only = BTreeSet::new();
    let mut scanned = Vec::new();
    for (path, text) in files {
        let Some(module) = module_path(path) else {
            continue;
        };
        let (kept, test_children) = without_test_items(&tokens(&blank(text)));
        for child in test_children {
            test_only.insert([module.clone(), vec![child]].concat());
        }
        let named = paths(&kept, &module);
        scanned.push(Scanned {
            path,
            module,
            named,
        });
    }
    scanned.retain(|s| !test_only.iter().any(|t| s.module.starts_with(t)));
    scanned
}

/// The graph of `files` (path under the crate root, e.g. `src/plan.rs`, and the text).
pub fn graph(files: &BTreeMap<String, String>) -> Graph {
    let scanned = scan(files);
    let modules = Modules::of(&scanned);
    let mut graph = Graph::new();
    for file in &scanned {
        if file.module.is_empty() {
            continue;
        }
        let from = file.module.join("::");
        for named in &file.named {
            let to = modules.defining(&named.absolute);
            // A `use` of a whole module binds a name; the paths through it are the edges.
            if to.is_empty() || (named.kind == Kind::Use && to == named.absolute) {
                continue;
            }
            let to = to.join("::");
            if to != from {
                graph.entry((from.clone(), to)).or_insert(Witness {
                    file: file.path.to_owned(),
                    line: named.line,
                    path: named.written.clone(),
                });
            }
        }
    }
    graph
}

/// The agent folders: the folders of `src/transcript/` named in the `agents! { … }` list of
/// `src/transcript/registry.rs`, the one place that lists the agents.
pub fn agents(files: &BTreeMap<String, String>) -> BTreeSet<String> {
    let Some(text) = files.get("src/transcript/registry.rs") else {
        return BTreeSet::new();
    };
    let (kept, _) = without_test_items(&tokens(&blank(text)));
    let texts: Vec<&str> = kept.iter().map(|t| t.text.as_str()).collect();
    let Some(open) = texts
        .windows(3)
        .position(|w| w == ["agents", "!", "{"])
        .map(|at| at + 2)
    else {
        return BTreeSet::new();
    };
    let list = open..close(&texts, open);
    let module = ["transcript".to_owned(), "registry".to_owned()];
    paths(&kept, &module)
        .into_iter()
        .filter(|named| list.contains(&named.at))
        .filter_map(|named| match named.absolute.as_slice() {
            [transcript, folder, _, ..] if transcript == "transcript" => Some(folder.clone()),
            _ => None,
        })
        .filter(|folder| {
            let prefix = format!("src/transcript/{folder}/");
            files.keys().any(|path| path.starts_with(&prefix))
        })
        .collect()
}

/// The modules of the crate and the names their `use` items bind, to follow a path to the
/// module that defines what it names.
struct Modules {
    modules: BTreeSet<Vec<String>>,
    /// (module, name) -> the absolute path the name stands for there.
    bindings: BTreeMap<(Vec<String>, String), Vec<String>>,
}

impl Modules {
    fn of(scanned: &[Scanned]) -> Modules {
        let modules = scanned.iter().map(|s| s.module.clone()).collect();
        let mut bindings = BTreeMap::new();
        for file in scanned {
            for named in &file.named {
                if let Some(name) = &named.binds {
                    bindings
                        .entry((file.module.clone(), name.clone()))
                        .or_insert_with(|| named.absolute.clone());
                }
            }
        }
        Modules { modules, bindings }
    }

    /// The module defining what the absolute `path` names: its longest prefix that is a
    /// module, after following any name a `use` binds there (the crate root is `[]`).
    fn defining(&self, path: &[String]) -> Vec<String> {
        let mut path = path.to_vec();
        // A chain of re-exports is short; the bound keeps a `use` loop from spinning.
        for _ in 0..32 {
            let k = (0..=path.len())
                .rev()
                .find(|&k| k == 0 || self.modules.contains(&path[..k]))
                .unwrap_or(0);
            let bound = path
                .get(k)
                .and_then(|name| self.bindings.get(&(path[..k].to_vec(), name.clone())));
            match bound {
                Some(target) if *target != path[..=k] => {
                    path = [target.as_slice(), &path[k + 1..]].concat();
                }
                _ => {
                    path.truncate(k);
                    return path;
                }
            }
        }
        Vec::new()
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
        if let Some(after) = test_attribute(&texts, i) {
            let mut j = after;
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

/// Where the attribute at `at` ends, if it is one that compiles its item for tests only:
/// `#[cfg(test)]`, or `#[cfg(all(…))]` with `test` among its terms (`#[cfg(all(test, feature =
/// "bpe"))]`).
fn test_attribute(texts: &[&str], at: usize) -> Option<usize> {
    if !texts[at..].starts_with(&["#", "[", "cfg", "("]) {
        return None;
    }
    let end = close(texts, at + 1);
    let predicate = &texts[at + 4..end.saturating_sub(1)];
    let test_only = match predicate {
        ["test"] => true,
        ["all", "(", terms @ .., ")"] => {
            // `test` as a term of its own, not nested in a `not(…)` or `any(…)`.
            let mut depth = 0usize;
            terms.iter().enumerate().any(|(k, &t)| {
                match t {
                    "(" => depth += 1,
                    ")" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                t == "test"
                    && depth == 0
                    && (k == 0 || terms[k - 1] == ",")
                    && terms.get(k + 1).is_none_or(|&next| next == ",")
            })
        }
        _ => false,
    };
    test_only.then_some(end + 1)
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

/// How a file names a crate path.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// In a `use` item, naming one item or module.
    Use,
    /// In a `use` item ending in `*`: everything public in a module.
    Glob,
    /// Written in code.
    Inline,
}

/// A crate path a file names.
struct Named {
    /// The path made absolute (`crate::` dropped), not yet followed through `use` items.
    absolute: Vec<String>,
    line: usize,
    /// The path as written.
    written: String,
    /// The index of its first token.
    at: usize,
    kind: Kind,
    /// The name a `use` binds it to in the file's module.
    binds: Option<String>,
}

/// Every crate path the tokens of the file `module` name.
fn paths(tokens: &[Token], module: &[String]) -> Vec<Named> {
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
            for (segments, binding) in trees {
                let written = segments.join("::");
                if let Some(absolute) = resolve(&segments, module, &children, &aliases) {
                    let kind = match binding {
                        Binding::Glob => Kind::Glob,
                        _ => Kind::Use,
                    };
                    let binds = match binding {
                        Binding::Glob => None,
                        Binding::As(name) => Some(name),
                        Binding::Last => segments.last().cloned(),
                    };
                    if let Some(name) = &binds {
                        aliases.insert(name.clone(), absolute.clone());
                    }
                    found.push(Named {
                        absolute,
                        line: tokens[i].line,
                        written,
                        at: i,
                        kind,
                        binds,
                    });
                }
            }
            i = end;
            continue;
        }
        // `pub(in crate::a)` says who may see an item, and names no import.
        let visibility = i >= 2 && texts[i - 1] == "in" && texts[i - 2] == "(";
        let starts_path = texts.get(i + 1) == Some(&"::")
            && (i == 0 || texts[i - 1] != "::")
            && !visibility
            && is_ident(texts[i]);
        if starts_path {
            let mut segments = vec![texts[i].to_owned()];
            let mut j = i + 1;
            while texts.get(j) == Some(&"::") && texts.get(j + 1).is_some_and(|t| is_ident(t)) {
                segments.push(texts[j + 1].to_owned());
                j += 2;
            }
            if let Some(absolute) = resolve(&segments, module, &children, &aliases) {
                found.push(Named {
                    absolute,
                    line: tokens[i].line,
                    written: segments.join("::"),
                    at: i,
                    kind: Kind::Inline,
                    binds: None,
                });
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

/// The name a path of a use tree is bound to.
enum Binding {
    /// Its last segment (`use a::b;`, `use a::{self};` binds `a`).
    Last,
    /// `use a::b as c;`
    As(String),
    /// `use a::*;`
    Glob,
}

/// Reads the use tree from `at` (after `use`, or inside braces), adding each full path it
/// names to `trees` with the name it binds; returns where the tree ends.
fn use_tree(
    texts: &[&str],
    mut at: usize,
    prefix: &mut Vec<String>,
    trees: &mut Vec<(Vec<String>, Binding)>,
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
                trees.push((prefix.clone(), Binding::Glob));
                at += 1;
                break;
            }
            Some(name) if is_ident(name) => {
                if name == "self" && depth > 0 && texts.get(at + 1) != Some(&"::") {
                    trees.push((prefix.clone(), Binding::Last));
                    at += 1;
                    break;
                }
                prefix.push(name.to_owned());
                at += 1;
                if texts.get(at) == Some(&"::") {
                    at += 1;
                    continue;
                }
                let binding = match texts.get(at) {
                    Some(&"as") => {
                        at += 2;
                        Binding::As(texts[at - 1].to_owned())
                    }
                    _ => Binding::Last,
                };
                trees.push((prefix.clone(), binding));
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
