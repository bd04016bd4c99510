//! Shell commands in a text (pure): the program of each segment of a command line, with its
//! subcommand where the program has them, for the `command` kind of [`super::entities`].
//! A tool's command line may name any program; prose only the well-known ones of
//! [`PROGRAMS`], inside a code span, a shell code block or after `$ `.

use super::entity::{Entity, Kind};
use super::words::{is_common, PREFIXES, PROGRAMS, SHELL_WORDS, SUBCOMMANDS};

/// Inline code spans and shell code blocks of Markdown-ish text, and `$ ` lines, as command
/// lines.
pub(super) fn code_spans(text: &str) -> Vec<&str> {
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

/// The commands of a shell script (heredoc bodies skipped): each segment between `;`, `|`,
/// `&` and parentheses that names a program.
pub(super) fn commands(script: &str, any_program: bool, out: &mut Vec<Entity>) {
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
                out.push(Entity::new(Kind::Command, command));
            }
        }
    }
}

/// The command one segment of a command line runs (`FOO=1 sudo cargo test -q` is
/// `cargo test`, `npm run build` keeps its task, `python -m pytest` its module).
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
    // A common English word that is no known program (`from`, `with`) is a line of code
    // inside a quoted script, not a command.
    if !is_name(program, "._+-")
        || SHELL_WORDS.contains(&program)
        || (is_common(program) && !PROGRAMS.contains(&program))
    {
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
