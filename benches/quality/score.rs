//! The scoring behind the quality benchmark, shared by `benches/quality.rs` (release binary,
//! prints the tables) and `tests/cli/quality.rs` (debug binary, checks goldens and goals).
//!
//! For each real session in `fixtures/corpus/`:
//!
//! - **Cut.** Where the agent compacted the session itself (Claude Code: a `compact_boundary`
//!   line followed by the `isCompactSummary` user line), the prefix is every line before the
//!   boundary and that user line is the agent's own LLM summary. Elsewhere: count the
//!   main-chain message records (lines condense reads as a message, sub-agent sidechains and
//!   bookkeeping such as `_usage`, `progress` or snapshots left out), keep 70 % of them rounded
//!   down (`n * 7 / 10`), and cut right after the line holding the last kept one. The prefix
//!   is whole lines, written to a temporary file for `condense caveman` and `condense bare`.
//!   Codex `compacted` lines are compactions too, but the corpus's Codex file is a trimmed
//!   fixture whose summaries read "[trimmed for fixture]", so only Claude Code's shape counts.
//!   Sessions with fewer than [`MIN_MESSAGES`] main-chain messages are skipped with a note.
//! - **Entities** come from small matchers (no regex): file paths, URLs, shell commands
//!   (program and subcommand), error and exception names, identifiers (snake_case, camelCase,
//!   CamelCase), environment variables, ports.
//! - **Coverage** is the share of the distinct entities referenced after the cut that appear in
//!   an output. "Referenced" means written by the user or the agent (text, thinking, tool-call
//!   arguments), not printed by a tool. Entities are compared with trailing punctuation
//!   stripped, case-sensitive: one appears when the output holds it with no identifier
//!   character glued on either side; a path also appears when its file name (with an
//!   extension) does.
//! - **Baseline**: the prefix's entities ranked by how often they occur, one per line, cut to
//!   caveman's budget. It ranks everything in the prefix's main-chain messages, tool results
//!   included: that list covers more of what follows than one ranked from the written parts
//!   alone (198 against 154 of the corpus's 377 entities when this was written), so it is the
//!   harder bar.
//! - **Probes** are hand-written facts per session (`fixtures/probes/<session>.txt`, format
//!   at the top of each); one is carried when all the tokens of one of its alternatives occur
//!   in an output, ignoring case. Each file names the cut it was written for, and scoring
//!   stops if the cut moved: the probes would no longer describe what follows it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use condense::tokens::Tokenizer;
use condense::transcript::load::{LoadOptions, Transcript};
use condense::transcript::{Part, Record, Role};

/// Every JSONL session of the corpus, under `fixtures/corpus/`.
pub const SESSIONS: [&str; 9] = [
    "claude-code/entireio-cli-a6e4c2a0fbd1.jsonl",
    "claude-code/claude-code-viewer-5c0375b4.jsonl",
    "claude-code/claude-code-viewer-fe5e1c67.jsonl",
    "claude-code/kimi-cli-5b2c427a42e0.jsonl",
    "codex/agent-sessions-small.jsonl",
    "openai-chat/kimi-cli-swebench-531d195b.jsonl",
    "openai-chat/kimi-cli-swebench-531d195b_read_1.jsonl",
    "pi/pi-mono-large-session.jsonl",
    "gemini-cli/agent-sessions-jsonl_v040.jsonl",
];

/// caveman's default budget, which the frequency list gets too.
pub const BUDGET: u64 = 500;

/// Sessions with fewer main-chain messages than this are too small to cut.
pub const MIN_MESSAGES: usize = 10;

/// `condense estimate`'s default estimator.
const TOKENIZER: Tokenizer = Tokenizer::Chars4;

// ---------------------------------------------------------------------------------------------
// Cutting

/// Where a session is cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// At the agent's own compaction boundary, on this line.
    Boundary(usize),
    /// After the line holding the `kept`-th of `messages` main-chain messages.
    Share {
        /// Main-chain messages in the session.
        messages: usize,
        /// Messages kept before the cut.
        kept: usize,
        /// The last line of the prefix.
        line: usize,
    },
}

impl Cut {
    /// The last line of the prefix.
    pub fn last_line(&self) -> usize {
        match *self {
            Cut::Boundary(line) => line - 1,
            Cut::Share { line, .. } => line,
        }
    }
}

/// A piece of a message, as the matchers see it.
enum Piece {
    /// Prose, code, file contents.
    Text(String),
    /// A shell command line a tool ran.
    Shell(String),
}

/// One session, cut.
struct Split {
    cut: Cut,
    /// The session's bytes before the cut, whole lines.
    prefix: Vec<u8>,
    /// The agent's own summary at the cut, when it compacted there.
    summary: Option<String>,
    /// Everything in the prefix's main-chain messages, tool results included.
    before: Vec<Piece>,
    /// What the user and the agent wrote after the cut.
    after: Vec<Piece>,
}

/// Cuts a session, or says why it cannot.
fn split(name: &str, bytes: &[u8]) -> Result<Split, String> {
    let transcript = Transcript::parse(name, bytes, LoadOptions::default())
        .map_err(|e| format!("unreadable: {e:#}"))?;
    let records = &transcript.records;
    let main: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].message().is_some_and(|m| !m.sidechain))
        .collect();
    let boundary = (0..records.len())
        .rev()
        .find(|&i| records[i].compaction && records.get(i + 1).is_some_and(is_compact_summary));
    let (cut, first_after, summary) = match boundary {
        Some(i) => {
            let message = records[i + 1].message().expect("a summary is a message");
            let summary: Vec<&str> = message
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_ref()),
                    _ => None,
                })
                .collect();
            (
                Cut::Boundary(records[i].line),
                i + 2,
                Some(summary.join("\n")),
            )
        }
        None if main.len() < MIN_MESSAGES => {
            return Err(format!(
                "too small: {} main-chain messages (fewer than {MIN_MESSAGES})",
                main.len()
            ))
        }
        None => {
            let kept = main.len() * 7 / 10;
            let last = main[kept - 1];
            let cut = Cut::Share {
                messages: main.len(),
                kept,
                line: records[last].line,
            };
            (cut, last + 1, None)
        }
    };
    let last_line = cut.last_line();
    let before = records
        .iter()
        .take_while(|r| r.line <= last_line)
        .flat_map(|r| pieces(r, true))
        .collect();
    let after = records[first_after..]
        .iter()
        .flat_map(|r| pieces(r, false))
        .collect();
    Ok(Split {
        cut,
        prefix: whole_lines(bytes, last_line).to_vec(),
        summary,
        before,
        after,
    })
}

/// Whether a record is Claude Code's summary line after a `compact_boundary`.
fn is_compact_summary(record: &Record) -> bool {
    record.message().is_some()
        && serde_json::from_slice::<serde_json::Value>(record.raw)
            .is_ok_and(|v| v["isCompactSummary"] == serde_json::Value::Bool(true))
}

/// The pieces of a main-chain record; tool results only when asked for. Sub-agent messages
/// never reach the main agent's context, so they count on neither side.
fn pieces(record: &Record, results: bool) -> Vec<Piece> {
    let Some(message) = record.message().filter(|m| !m.sidechain) else {
        return Vec::new();
    };
    // OpenAI- and pi-style tool messages carry their output as text.
    if message.role == Role::Tool && !results {
        return Vec::new();
    }
    let mut out = Vec::new();
    for part in &message.parts {
        match part {
            Part::Text(t) | Part::Thinking(t) => out.push(Piece::Text(t.to_string())),
            Part::ToolResult { text, .. } if results => out.push(Piece::Text(text.to_string())),
            Part::ToolCall { arguments, .. } => match serde_json::from_str(arguments) {
                Ok(value) => argument_pieces(&value, false, &mut out),
                // apply_patch and other free-form tools take plain text.
                Err(_) => out.push(Piece::Text(arguments.to_string())),
            },
            _ => {}
        }
    }
    out
}

/// The strings inside tool-call arguments; those under a `command` or `cmd` key are shell
/// command lines. An argv (Codex `["bash", "-lc", "…"]`) is its script, or its words joined.
fn argument_pieces(value: &serde_json::Value, shell: bool, out: &mut Vec<Piece>) {
    use serde_json::Value;
    match value {
        Value::String(s) if shell => out.push(Piece::Shell(s.clone())),
        Value::String(s) => out.push(Piece::Text(s.clone())),
        Value::Array(items) if shell => {
            let words: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            let script = match words.as_slice() {
                [sh, flag, script, ..] if sh.ends_with("sh") && flag.starts_with('-') => {
                    script.to_string()
                }
                _ => words.join(" "),
            };
            out.push(Piece::Shell(script));
        }
        Value::Array(items) => items.iter().for_each(|v| argument_pieces(v, false, out)),
        Value::Object(map) => {
            for (key, v) in map {
                argument_pieces(v, key == "command" || key == "cmd", out);
            }
        }
        _ => {}
    }
}

/// The first `count` lines of `bytes`, terminators included.
fn whole_lines(bytes: &[u8], count: usize) -> &[u8] {
    let mut end = 0;
    for _ in 0..count {
        match bytes[end..].iter().position(|&b| b == b'\n') {
            Some(i) => end += i + 1,
            None => return bytes,
        }
    }
    &bytes[..end]
}

// ---------------------------------------------------------------------------------------------
// Entities

/// What kind of thing an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Path,
    Url,
    Command,
    Error,
    Identifier,
    Variable,
    Port,
}

/// File extensions that make a bare `name.ext` a path.
const EXTENSIONS: [&str; 52] = [
    "rs", "go", "py", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "jsonl", "toml", "yaml",
    "yml", "md", "txt", "sh", "bash", "zsh", "c", "h", "cc", "cpp", "hpp", "java", "kt", "rb",
    "php", "css", "scss", "html", "lock", "cfg", "ini", "sql", "proto", "swift", "xml", "csv",
    "log", "mod", "sum", "lua", "vue", "svelte", "dart", "scala", "ipynb", "rst", "png", "svg",
    "pdf",
];

/// Programs recognised in prose (inside backticks); a tool's shell command may run any.
const PROGRAMS: [&str; 62] = [
    "cargo",
    "rustc",
    "rustup",
    "go",
    "gofmt",
    "golangci-lint",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "node",
    "deno",
    "tsc",
    "tsx",
    "vitest",
    "jest",
    "eslint",
    "prettier",
    "python",
    "python3",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "pytest",
    "ruff",
    "mypy",
    "black",
    "tox",
    "git",
    "gh",
    "make",
    "just",
    "mise",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "mvn",
    "gradle",
    "dotnet",
    "swift",
    "bundle",
    "rake",
    "rails",
    "cmake",
    "bazel",
    "jq",
    "curl",
    "wget",
    "rg",
    "grep",
    "sed",
    "awk",
    "find",
    "ls",
    "cat",
    "head",
    "tail",
    "sleep",
    "rm",
];

/// Programs whose second word is a subcommand (`cargo test`, `gh pr`).
const SUBCOMMANDS: [&str; 27] = [
    "cargo",
    "rustup",
    "go",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "deno",
    "git",
    "gh",
    "mise",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "uv",
    "poetry",
    "pip",
    "pip3",
    "dotnet",
    "swift",
    "bundle",
    "rails",
    "just",
    "make",
    "mvn",
];

/// Shell words that are not programs worth naming.
const SHELL_WORDS: [&str; 22] = [
    "cd", "echo", "export", "set", "source", "if", "then", "else", "elif", "fi", "for", "do",
    "done", "while", "case", "esac", "true", "false", "exit", "return", "local", "printf",
];

/// Words that only prefix the real command.
const PREFIXES: [&str; 6] = ["sudo", "time", "env", "exec", "nohup", "command"];

/// Every entity occurrence in the pieces, in order of appearance.
fn occurrences(pieces: &[Piece]) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => {
                scan_text(text, &mut out);
                for script in code_spans(text) {
                    shell_commands(script, false, &mut out);
                }
            }
            Piece::Shell(script) => {
                shell_commands(script, true, &mut out);
                scan_text(script, &mut out);
            }
        }
    }
    out
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Finds everything but commands in a text.
fn scan_text(text: &str, out: &mut Vec<(Kind, String)>) {
    // Code quoted in a tool call keeps its escapes (`"…\n\nPlease"`), which would otherwise
    // glue a letter onto the next word.
    let text = &text.replace("\\n", "\n").replace("\\t", "\t");
    let bytes = text.as_bytes();
    // URLs first: they hold paths and ports that are theirs.
    for scheme in ["https://", "http://"] {
        for (start, _) in text.match_indices(scheme) {
            let end = text[start..]
                .find(|c: char| c.is_whitespace() || "\"'<>`)]}|".contains(c))
                .map_or(text.len(), |i| start + i);
            let url = text[start..end].trim_end_matches(|c| ".,;:!?".contains(c));
            if url.len() > scheme.len() + 3 {
                out.push((Kind::Url, url.to_owned()));
            }
        }
    }
    // Rust error codes: error[E0308].
    for (start, _) in text.match_indices("error[E") {
        let code = &bytes[start + 7..];
        if code.len() >= 5 && code[..4].iter().all(u8::is_ascii_digit) && code[4] == b']' {
            out.push((Kind::Error, text[start..start + 12].to_owned()));
        }
    }
    // Environment variables: $NAME, ${NAME}, and NAME= at the start of a word.
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'$' {
            let rest = &text[i + 1..];
            let rest = rest.strip_prefix('{').unwrap_or(rest);
            let name = upper_name(rest);
            if name.len() >= 2 {
                out.push((Kind::Variable, name.to_owned()));
            }
        } else if b == b'=' && i > 0 {
            let start = bytes[..i]
                .iter()
                .rposition(|&c| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'))
                .map_or(0, |p| p + 1);
            let name = &text[start..i];
            let at_word_start = start == 0 || b" \t\n`'\"(;&|".contains(&bytes[start - 1]);
            let followed = bytes.get(i + 1).is_some_and(|&c| c != b'=');
            if at_word_start
                && followed
                && name.len() >= 2
                && name.starts_with(|c: char| c.is_ascii_uppercase())
            {
                out.push((Kind::Variable, name.to_owned()));
            }
        }
    }
    // Ports: :NNNN after a host or at the start of a word.
    for (i, _) in text.match_indices(':') {
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = bytes.get(i + 1 + digits).copied();
        if !(2..=5).contains(&digits) || after.is_some_and(is_word_byte) {
            continue;
        }
        let before = &text[..i];
        let host = ["localhost", "127.0.0.1", "0.0.0.0", "]"]
            .iter()
            .any(|h| before.ends_with(h));
        let word_start = before
            .as_bytes()
            .last()
            .is_none_or(|&c| b" \t\n`'\"(".contains(&c));
        let port: u32 = text[i + 1..i + 1 + digits].parse().unwrap_or(0);
        if (host || word_start) && (1..=65535).contains(&port) {
            out.push((Kind::Port, format!(":{port}")));
        }
    }
    // Words: paths, identifiers, error and exception names.
    let delimiter =
        |c: char| !c.is_ascii() || c.is_ascii_whitespace() || "\"'`()[]{}<>,;|&*=!?$".contains(c);
    for token in text.split(delimiter).filter(|t| !t.is_empty()) {
        if token.contains("://") {
            continue;
        }
        let token = token.trim_end_matches(|c| ".,:;!?".contains(c));
        // What follows a colon is a line number (`a.rs:3:5`) or a test (`a.py::test_x`).
        let (head, rest) = token.split_once(':').unwrap_or((token, ""));
        let words = if is_path(head) {
            out.push((Kind::Path, head.to_owned()));
            rest
        } else if token.starts_with('-') {
            // A command-line flag (`--noEmit`) names no identifier.
            ""
        } else {
            token
        };
        for word in words.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if let Some(kind) = identifier_kind(word) {
                out.push((kind, word.to_owned()));
            }
        }
    }
}

/// The leading run of `[A-Z0-9_]` that starts with a letter or `_`.
fn upper_name(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..end];
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        ""
    } else {
        name
    }
}

/// Whether a word (no delimiters left in it) names a file or directory.
fn is_path(s: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_-./~@+".contains(c);
    if !s.chars().all(allowed) || !s.chars().any(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    let last = s.rsplit('/').next().unwrap_or("");
    let has_extension = last.rsplit_once('.').is_some_and(|(stem, ext)| {
        stem.chars().any(|c| c.is_ascii_alphanumeric()) && EXTENSIONS.contains(&ext)
    });
    if !s.contains('/') {
        return has_extension;
    }
    let segments: Vec<&str> = s.split('/').filter(|x| !x.is_empty()).collect();
    // `./...` and the like: every segment must be a name or a relative step.
    if segments
        .iter()
        .any(|x| !x.chars().any(|c| c.is_ascii_alphanumeric()) && !matches!(*x, "." | ".." | "~"))
    {
        return false;
    }
    let rooted = ["/", "~/", "./", "../"].iter().any(|p| s.starts_with(p));
    // Bare words with slashes are usually prose (`and/or`, `All/Active/Completed`).
    let marked = segments
        .iter()
        .any(|x| x.contains(['.', '_', '-']) || x.chars().any(|c| c.is_ascii_digit()));
    let titles = segments
        .iter()
        .all(|x| x.starts_with(|c: char| c.is_ascii_uppercase()));
    has_extension
        || (rooted && segments.len() >= 2)
        || (segments.len() >= 3 && (marked || !titles))
        || (segments.len() == 2 && marked)
}

/// The kind of an identifier-like word: `FooError`/`FooException`, snake_case or
/// SCREAMING_CASE, camelCase or CamelCase. Plain words are none.
fn identifier_kind(word: &str) -> Option<Kind> {
    let core = word.trim_start_matches('_');
    if core.len() < 3 || !core.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let upper_first = core.starts_with(|c: char| c.is_ascii_uppercase());
    for suffix in ["Error", "Exception"] {
        if upper_first && core.len() > suffix.len() && core.ends_with(suffix) {
            return Some(Kind::Error);
        }
    }
    let b = core.as_bytes();
    let snake = core.trim_end_matches('_').contains('_');
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

/// Inline code spans and shell code blocks of Markdown-ish text, as command lines.
fn code_spans(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let mut fence: Option<bool> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(lang) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(
                    lang.trim(),
                    "bash" | "sh" | "shell" | "console" | "zsh"
                )),
            };
            continue;
        }
        match fence {
            Some(true) => spans.push(trimmed.strip_prefix("$ ").unwrap_or(trimmed)),
            Some(false) => {}
            None => {
                spans.extend(line.split('`').skip(1).step_by(2));
                if let Some(command) = trimmed.strip_prefix("$ ") {
                    spans.push(command);
                }
            }
        }
    }
    spans
}

/// The commands of a shell script: program, and subcommand where the program has them. With
/// `any_program` unset (prose), only the programs of [`PROGRAMS`] count.
fn shell_commands(script: &str, any_program: bool, out: &mut Vec<(Kind, String)>) {
    let mut heredoc: Option<String> = None;
    for line in script.lines() {
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
            continue;
        }
        if let Some(i) = line.find("<<") {
            let marker = line[i + 2..]
                .trim_start_matches('-')
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(|c| c == '\'' || c == '"');
            // A word, so that `<<<` here-strings and shifts start no heredoc.
            if marker.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                heredoc = Some(marker.to_owned());
            }
        }
        for segment in line.split(|c| ";|&()`".contains(c)) {
            if let Some(command) = command_of(segment, any_program) {
                out.push((Kind::Command, command));
            }
        }
    }
}

/// The command one segment of a command line runs (`FOO=1 sudo cargo test -q` is
/// `cargo test`), if it names a program.
fn command_of(segment: &str, any_program: bool) -> Option<String> {
    let is_name = |w: &str, extra: &str| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || extra.contains(c))
    };
    let mut words = segment.split_whitespace().peekable();
    while let Some(word) = words.peek() {
        let assignment = word.split_once('=').is_some_and(|(k, _)| !k.is_empty());
        if assignment || PREFIXES.contains(word) {
            words.next();
        } else {
            break;
        }
    }
    let first = words.next()?;
    let program = first.rsplit('/').next().unwrap_or(first);
    if !is_name(program, "._+-") || SHELL_WORDS.contains(&program) {
        return None;
    }
    if !any_program && !PROGRAMS.contains(&program) {
        return None;
    }
    let mut command = program.to_owned();
    let next = words.next();
    if matches!(program, "python" | "python3") && next == Some("-m") {
        if let Some(module) = words.next().filter(|w| is_name(w, "_-")) {
            command.push_str(" -m ");
            command.push_str(module);
        }
    } else if SUBCOMMANDS.contains(&program) {
        if let Some(sub) = next.filter(|w| is_name(w, ":_-") && w.len() <= 30) {
            command.push(' ');
            command.push_str(sub);
            // A task runner's `run` names the task: `npm run build`, `mise run test`.
            if sub == "run" {
                if let Some(task) = words.next().filter(|w| is_name(w, ":_-")) {
                    command.push(' ');
                    command.push_str(task);
                }
            }
        }
    }
    Some(command)
}

/// Whether `needle` occurs in `hay` with no identifier character glued to it.
fn appears_bounded(hay: &str, needle: &str) -> bool {
    let (first, last) = match (needle.bytes().next(), needle.bytes().last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return false,
    };
    hay.match_indices(needle).any(|(i, _)| {
        let before_ok = !is_word_byte(first) || i == 0 || !is_word_byte(hay.as_bytes()[i - 1]);
        let end = i + needle.len();
        let after_ok =
            !is_word_byte(last) || end == hay.len() || !is_word_byte(hay.as_bytes()[end]);
        before_ok && after_ok
    })
}

/// Whether an output mentions an entity: itself, or for a path its file name.
fn appears(hay: &str, kind: Kind, entity: &str) -> bool {
    if appears_bounded(hay, entity) {
        return true;
    }
    let name = entity
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    kind == Kind::Path && name.contains('.') && name != entity && appears_bounded(hay, name)
}

/// Distinct entities with their kind and how often they occur, most frequent first (ties in
/// order of first appearance).
fn ranked(occurrences: Vec<(Kind, String)>) -> Vec<(Kind, String, usize)> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut list: Vec<(Kind, String, usize)> = Vec::new();
    for (kind, text) in occurrences {
        match index.get(&text) {
            Some(&i) => list[i].2 += 1,
            None => {
                index.insert(text.clone(), list.len());
                list.push((kind, text, 1));
            }
        }
    }
    // A stable sort keeps first appearance among equal counts.
    list.sort_by_key(|entry| std::cmp::Reverse(entry.2));
    list
}

/// The baseline: ranked entities one per line, as many as fit the budget.
fn frequency_list(ranked: &[(Kind, String, usize)]) -> String {
    let mut list = String::new();
    for (_, entity, _) in ranked {
        let line = format!("{entity}\n");
        if TOKENIZER.text_tokens(&format!("{list}{line}")) > BUDGET {
            break;
        }
        list.push_str(&line);
    }
    list
}

// ---------------------------------------------------------------------------------------------
// Probes

/// One hand-written fact.
pub struct Probe {
    /// goal, now, next, test, error, file, decision or fact.
    pub kind: String,
    /// The alternatives as written.
    pub text: String,
    /// Alternatives, each a list of lowercase tokens that must all appear.
    alternatives: Vec<Vec<String>>,
}

impl Probe {
    fn carried_by(&self, output: &str) -> bool {
        let output = output.to_lowercase();
        self.alternatives
            .iter()
            .any(|tokens| tokens.iter().all(|t| output.contains(t.as_str())))
    }
}

/// Reads a probe file: its `cut:` line and its probes.
fn parse_probes(text: &str) -> Result<(usize, Vec<Probe>), String> {
    let mut cut = None;
    let mut probes = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(value) = line.strip_prefix("cut:") {
            cut = Some(
                value
                    .trim()
                    .parse()
                    .map_err(|_| format!("line {}: bad cut", number + 1))?,
            );
        } else if let Some((kind, alternatives)) =
            line.strip_prefix("probe ").and_then(|p| p.split_once(':'))
        {
            let alternatives: Vec<Vec<String>> = alternatives
                .split('|')
                .map(|a| a.split_whitespace().map(str::to_lowercase).collect())
                .filter(|a: &Vec<String>| !a.is_empty())
                .collect();
            if alternatives.is_empty() {
                return Err(format!("line {}: a probe with no tokens", number + 1));
            }
            probes.push(Probe {
                kind: kind.trim().to_owned(),
                text: line
                    .split_once(':')
                    .map_or("", |(_, t)| t)
                    .trim()
                    .to_owned(),
                alternatives,
            });
        } else {
            return Err(format!("line {}: neither `cut:` nor `probe`", number + 1));
        }
    }
    Ok((cut.ok_or("no `cut:` line")?, probes))
}

// ---------------------------------------------------------------------------------------------
// Scoring

/// caveman's row (rows come in the order caveman, bare, the agent's own, the list).
pub const CAVEMAN: &str = "caveman";
/// `bare`'s row.
pub const BARE: &str = "bare";
/// The agent's own LLM summary's row.
pub const OWN: &str = "agent's own";
/// The baseline's row.
pub const LIST: &str = "frequency list";

/// One output, scored.
pub struct Scored {
    /// Which output.
    pub label: &'static str,
    /// The output itself.
    pub text: String,
    /// Its size in chars4 tokens.
    pub tokens: u64,
    /// How many of the entities after the cut it holds.
    pub covered: usize,
    /// Which probes it carries, in probe order.
    pub carried: Vec<bool>,
}

/// A scored session.
pub struct Session {
    /// The probe and golden files' name: the corpus file's stem.
    pub name: String,
    /// The corpus file under `fixtures/corpus/`.
    pub file: &'static str,
    /// Where it was cut.
    pub cut: Cut,
    /// Distinct entities referenced after the cut.
    pub entities: usize,
    /// caveman, bare, the agent's own summary where there is one, the frequency list.
    pub rows: Vec<Scored>,
    /// The hand-written probes.
    pub probes: Vec<Probe>,
    /// Entities after the cut that caveman lacks, most referenced first.
    pub missing: Vec<String>,
}

impl Session {
    /// The row with this label.
    pub fn row(&self, label: &str) -> Option<&Scored> {
        self.rows.iter().find(|r| r.label == label)
    }
}

/// A corpus session, scored or skipped.
pub enum Entry {
    /// Cut and scored.
    Scored(Session),
    /// Too small or unreadable, and why.
    Skipped(&'static str, String),
}

/// The whole benchmark.
pub struct Report {
    /// Every corpus session, in [`SESSIONS`] order.
    pub entries: Vec<Entry>,
}

/// The file stem of a corpus path.
fn stem(file: &str) -> &str {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.strip_suffix(".jsonl").unwrap_or(name)
}

/// Scores every corpus session; `condense` runs the binary with these arguments and returns
/// its standard output. Panics when a probe file is missing or was written for another cut.
pub fn run(fixtures: &Path, condense: &dyn Fn(&[&str]) -> String) -> Report {
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let mut entries = Vec::new();
    for file in SESSIONS {
        let bytes = std::fs::read(fixtures.join("corpus").join(file)).expect("corpus file");
        let split = match split(file, &bytes) {
            Ok(split) => split,
            Err(why) => {
                entries.push(Entry::Skipped(file, why));
                continue;
            }
        };
        let name = stem(file).to_owned();
        let probe_path = fixtures.join("probes").join(format!("{name}.txt"));
        let probe_text = std::fs::read_to_string(&probe_path)
            .unwrap_or_else(|e| panic!("{}: {e}", probe_path.display()));
        let (cut, probes) =
            parse_probes(&probe_text).unwrap_or_else(|e| panic!("{}: {e}", probe_path.display()));
        assert_eq!(
            cut,
            split.cut.last_line(),
            "{}: the probes were written for a cut after line {cut}, the benchmark cuts after \
             line {}",
            probe_path.display(),
            split.cut.last_line()
        );

        let prefix_path = scratch.path().join(format!("{name}.jsonl"));
        std::fs::write(&prefix_path, &split.prefix).expect("write the prefix");
        let prefix = prefix_path.to_str().expect("a UTF-8 temporary path");
        let mut outputs = vec![
            (CAVEMAN, condense(&["caveman", prefix])),
            (BARE, condense(&["bare", prefix])),
        ];
        if let Some(summary) = split.summary {
            outputs.push((OWN, summary));
        }
        outputs.push((LIST, frequency_list(&ranked(occurrences(&split.before)))));

        let after = ranked(occurrences(&split.after));
        let rows: Vec<Scored> = outputs
            .into_iter()
            .map(|(label, text)| Scored {
                label,
                tokens: TOKENIZER.text_tokens(&text),
                covered: after
                    .iter()
                    .filter(|(k, e, _)| appears(&text, *k, e))
                    .count(),
                carried: probes.iter().map(|p| p.carried_by(&text)).collect(),
                text,
            })
            .collect();
        let missing = after
            .iter()
            .filter(|(k, e, _)| !appears(&rows[0].text, *k, e))
            .take(12)
            .map(|(_, e, _)| e.clone())
            .collect();
        entries.push(Entry::Scored(Session {
            name,
            file,
            cut: split.cut,
            entities: after.len(),
            rows,
            probes,
            missing,
        }));
    }
    Report { entries }
}

// ---------------------------------------------------------------------------------------------
// Goals and tables

/// The goals' ids, for the test to name them.
pub const PROBES: &str = "probes";
/// caveman covers at least the frequency list's entities.
pub const COVERAGE: &str = "coverage";
/// caveman reaches 3x the LLM summary's coverage per token.
pub const PER_TOKEN: &str = "per-token";
/// bare carries the now/next/test probes as often as the LLM summary.
pub const BARE_PROBES: &str = "bare-probes";
/// caveman carries as many probes as the LLM summary on every kind (issue 13).
pub const PER_KIND: &str = "per-kind";

/// The probe kinds: the ones the checkpoint guidance ranks (goal, decisions, next step,
/// current task) first, then files, errors and tests, then other facts.
pub const KINDS: [&str; 8] = [
    "goal", "decision", "next", "now", "file", "error", "test", "fact",
];

/// One of issue 4's goals, checked on the corpus.
pub struct Goal {
    /// Its id ([`PROBES`], [`COVERAGE`], [`PER_TOKEN`], [`BARE_PROBES`]).
    pub id: &'static str,
    /// The goal.
    pub text: &'static str,
    /// By how much it holds on the session where it holds least (negative: fails by that
    /// much): probes or entities ahead, or the per-token ratio above 3.
    pub margin: f64,
    /// Whether it holds on every session it applies to (and there is one).
    pub holds: bool,
    /// The figures, session by session.
    pub detail: String,
}

impl Goal {
    /// A goal checked on `checked` sessions; with none it cannot be said to hold.
    fn new(
        id: &'static str,
        text: &'static str,
        margin: f64,
        checked: usize,
        lines: Vec<String>,
    ) -> Goal {
        Goal {
            id,
            text,
            holds: checked > 0 && margin >= 0.0,
            margin,
            detail: lines.join("; "),
        }
    }
}

/// Coverage as a share, per 1,000 tokens, in percentage points.
fn per_thousand(row: &Scored, entities: usize) -> Option<f64> {
    (entities > 0 && row.tokens > 0)
        .then(|| 100.0 * row.covered as f64 / entities as f64 * 1000.0 / row.tokens as f64)
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "n/a".to_owned()
    } else {
        format!(
            "{part}/{whole} = {:.1} %",
            100.0 * part as f64 / whole as f64
        )
    }
}

/// How many of the probes of these kinds a row carries.
fn carried_of(session: &Session, row: &Scored, kinds: &[&str]) -> usize {
    session
        .probes
        .iter()
        .zip(&row.carried)
        .filter(|(p, &c)| c && kinds.contains(&p.kind.as_str()))
        .count()
}

impl Report {
    /// The scored sessions.
    pub fn sessions(&self) -> impl Iterator<Item = &Session> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Scored(s) => Some(s),
            Entry::Skipped(..) => None,
        })
    }

    /// The golden files: each scored session's caveman and bare output, by file name.
    pub fn goldens(&self) -> Vec<(String, &str)> {
        let mut files = Vec::new();
        for session in self.sessions() {
            for (label, extension) in [(CAVEMAN, "caveman.md"), (BARE, "bare.txt")] {
                let row = session.row(label).expect("caveman and bare always run");
                files.push((format!("{}.{extension}", session.name), row.text.as_str()));
            }
        }
        files
    }

    /// Issue 4's goals.
    pub fn goals(&self) -> Vec<Goal> {
        let with_own: Vec<(&Session, &Scored, &Scored)> = self
            .sessions()
            .filter_map(|s| Some((s, s.row(CAVEMAN)?, s.row(OWN)?)))
            .collect();
        let mut goals = Vec::new();

        let checked = with_own.len();
        let mut lines = Vec::new();
        let mut worst = f64::INFINITY;
        for (session, caveman, own) in &with_own {
            let (a, b) = (count(&caveman.carried), count(&own.carried));
            worst = worst.min(a as f64 - b as f64);
            lines.push(format!(
                "{}: caveman {a}/{n} at {} tokens vs agent's own {b}/{n} at {} tokens ({:+})",
                session.name,
                caveman.tokens,
                own.tokens,
                a as i64 - b as i64,
                n = session.probes.len()
            ));
        }
        goals.push(Goal::new(
            PROBES,
            "caveman at <= 500 tokens carries at least as many probes as the agent's own LLM summary",
            worst,
            checked,
            lines,
        ));

        let mut checked = 0;
        let mut lines = Vec::new();
        let mut worst = f64::INFINITY;
        let (mut caveman_total, mut list_total, mut entity_total) = (0, 0, 0);
        for session in self.sessions().filter(|s| s.entities > 0) {
            let caveman = session.row(CAVEMAN).expect("caveman row").covered;
            let list = session.row(LIST).expect("list row").covered;
            worst = worst.min(caveman as f64 - list as f64);
            caveman_total += caveman;
            list_total += list;
            entity_total += session.entities;
            checked += 1;
            lines.push(format!(
                "{}: caveman {caveman} vs list {list} of {} ({:+})",
                session.name,
                session.entities,
                caveman as i64 - list as i64
            ));
        }
        lines.push(format!(
            "corpus: caveman {} vs list {}",
            percent(caveman_total, entity_total),
            percent(list_total, entity_total)
        ));
        goals.push(Goal::new(
            COVERAGE,
            "caveman covers at least the frequency list's entities, on every session",
            worst,
            checked,
            lines,
        ));

        let checked = with_own.len();
        let mut lines = Vec::new();
        let mut worst = f64::INFINITY;
        for (session, caveman, own) in &with_own {
            let (a, b) = (
                per_thousand(caveman, session.entities).unwrap_or(0.0),
                per_thousand(own, session.entities).unwrap_or(0.0),
            );
            // With no coverage at all the summary sets no bar; 0 / 0 does not clear one.
            let ratio = if b > 0.0 {
                a / b
            } else if a > 0.0 {
                f64::INFINITY
            } else {
                0.0
            };
            worst = worst.min(ratio - 3.0);
            lines.push(format!(
                "{}: caveman {a:.1} vs agent's own {b:.1} coverage points per 1k tokens = {ratio:.1}x",
                session.name
            ));
        }
        goals.push(Goal::new(
            PER_TOKEN,
            "caveman reaches at least 3x the LLM summary's coverage per token",
            worst,
            checked,
            lines,
        ));

        let kinds = ["now", "next", "test"];
        let checked = with_own.len();
        let mut lines = Vec::new();
        let mut worst = f64::INFINITY;
        for (session, _, own) in &with_own {
            let bare = session.row(BARE).expect("bare row");
            let n = session
                .probes
                .iter()
                .filter(|p| kinds.contains(&p.kind.as_str()))
                .count();
            let (a, b) = (
                carried_of(session, bare, &kinds),
                carried_of(session, own, &kinds),
            );
            worst = worst.min(a as f64 - b as f64);
            lines.push(format!(
                "{}: bare {a}/{n} vs agent's own {b}/{n} ({:+})",
                session.name,
                a as i64 - b as i64
            ));
        }
        goals.push(Goal::new(
            BARE_PROBES,
            "bare carries the now/next/test probes at least as often as the LLM summary",
            worst,
            checked,
            lines,
        ));

        let checked = with_own.len();
        let mut lines = Vec::new();
        let mut worst = f64::INFINITY;
        for (session, caveman, own) in &with_own {
            for kind in KINDS {
                let n = session.probes.iter().filter(|p| p.kind == kind).count();
                if n == 0 {
                    continue;
                }
                let (a, b) = (
                    carried_of(session, caveman, &[kind]),
                    carried_of(session, own, &[kind]),
                );
                worst = worst.min(a as f64 - b as f64);
                lines.push(format!("{}: {kind} {a}/{n} vs {b}/{n}", session.name));
            }
        }
        goals.push(Goal::new(
            PER_KIND,
            "caveman carries at least as many probes as the LLM summary on every kind",
            worst,
            checked,
            lines,
        ));
        goals
    }

    /// Probes carried by kind over a set of sessions: for each kind in [`KINDS`] that has a
    /// probe, the probes of that kind and how many each of `labels` carries (a label with no
    /// row in a session carries none there).
    pub fn by_kind(
        &self,
        sessions: &[&Session],
        labels: &[&str],
    ) -> Vec<(&'static str, usize, Vec<usize>)> {
        let mut table = Vec::new();
        for kind in KINDS {
            let total: usize = sessions
                .iter()
                .map(|s| s.probes.iter().filter(|p| p.kind == kind).count())
                .sum();
            if total == 0 {
                continue;
            }
            let carried = labels
                .iter()
                .map(|label| {
                    sessions
                        .iter()
                        .filter_map(|s| Some(carried_of(s, s.row(label)?, &[kind])))
                        .sum()
                })
                .collect();
            table.push((kind, total, carried));
        }
        table
    }

    /// The by-kind tables in Markdown: every scored session, then the ones with the agent's
    /// own summary.
    fn render_by_kind(&self, out: &mut String) {
        let all: Vec<&Session> = self.sessions().collect();
        let with_own: Vec<&Session> = all
            .iter()
            .copied()
            .filter(|s| s.row(OWN).is_some())
            .collect();
        let names: Vec<&str> = with_own.iter().map(|s| s.name.as_str()).collect();
        let sets: [(String, &[&Session], &[&str]); 2] = [
            (
                format!("all {} scored sessions", all.len()),
                &all,
                &[CAVEMAN, BARE, LIST],
            ),
            (
                format!(
                    "sessions with the agent's own summary ({})",
                    names.join(", ")
                ),
                &with_own,
                &[CAVEMAN, BARE, OWN],
            ),
        ];
        for (title, sessions, labels) in sets {
            if sessions.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "### Probes by kind, {title}\n\n| kind | probes | {} |\n|---|---:|{}",
                labels.join(" | "),
                "---:|".repeat(labels.len())
            );
            let mut totals = vec![0; labels.len()];
            let mut all_probes = 0;
            for (kind, total, carried) in self.by_kind(sessions, labels) {
                all_probes += total;
                let cells: Vec<String> = carried
                    .iter()
                    .zip(&mut totals)
                    .map(|(c, t)| {
                        *t += c;
                        format!("{c}/{total}")
                    })
                    .collect();
                let _ = writeln!(out, "| {kind} | {total} | {} |", cells.join(" | "));
            }
            let cells: Vec<String> = totals.iter().map(|c| format!("{c}/{all_probes}")).collect();
            let _ = writeln!(out, "| all | {all_probes} | {} |\n", cells.join(" | "));
        }
    }

    /// The tables and the goals, in Markdown.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for entry in &self.entries {
            match entry {
                Entry::Skipped(file, why) => {
                    let _ = writeln!(out, "### {file}\n\nskipped: {why}\n");
                }
                Entry::Scored(session) => render_session(session, &mut out),
            }
        }
        self.render_by_kind(&mut out);
        let _ = writeln!(out, "### Goals (issues 4 and 13)\n");
        for goal in self.goals() {
            let verdict = if goal.holds { "HOLDS" } else { "FAILS" };
            let _ = writeln!(
                out,
                "- {verdict} ({}, margin {:+.1}): {}\n  {}",
                goal.id, goal.margin, goal.text, goal.detail
            );
        }
        out
    }
}

fn count(flags: &[bool]) -> usize {
    flags.iter().filter(|&&c| c).count()
}

fn render_session(session: &Session, out: &mut String) {
    let cut = match session.cut {
        Cut::Boundary(line) => format!(
            "at the agent's own compaction (compact_boundary on line {line}; prefix lines 1-{})",
            line - 1
        ),
        Cut::Share {
            messages,
            kept,
            line,
        } => format!("after {kept} of {messages} messages (prefix lines 1-{line})"),
    };
    let _ = writeln!(
        out,
        "### {}\n\ncut {cut}; {} distinct entities referenced after the cut; {} probes\n",
        session.file,
        session.entities,
        session.probes.len()
    );
    let _ = writeln!(
        out,
        "| output | tokens | coverage | coverage per 1k tokens | probes |\n|---|---:|---:|---:|---:|"
    );
    for row in &session.rows {
        let per_k =
            per_thousand(row, session.entities).map_or("n/a".to_owned(), |v| format!("{v:.1}"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {per_k} | {}/{} |",
            row.label,
            row.tokens,
            percent(row.covered, session.entities),
            count(&row.carried),
            session.probes.len()
        );
    }
    if !session.probes.is_empty() {
        let labels: Vec<&str> = session.rows.iter().map(|r| r.label).collect();
        let _ = writeln!(
            out,
            "\n| probe | {} |\n|---|{}",
            labels.join(" | "),
            ":-:|".repeat(labels.len())
        );
        for (i, probe) in session.probes.iter().enumerate() {
            let marks: Vec<&str> = session
                .rows
                .iter()
                .map(|r| if r.carried[i] { "yes" } else { "-" })
                .collect();
            let _ = writeln!(
                out,
                "| {}: {} | {} |",
                probe.kind,
                probe.text.replace('|', "\\|"),
                marks.join(" | ")
            );
        }
    }
    if !session.missing.is_empty() {
        let _ = writeln!(
            out,
            "\ncaveman lacks (most referenced after the cut first): {}",
            session.missing.join(", ")
        );
    }
    out.push('\n');
}
