//! The figures a text states: a count, a size, a duration or a share with its unit (`1305
//! lines`, `175 files`, `39 seconds`, `100%`, `5 MB`).
//!
//! They carry the task: the size that looks wrong, the timing a bug report rests on, the count
//! a fix must reach. The agent's last words reach caveman's `said:` line cut to their first
//! 200 characters, and the figures of a long answer (a findings summary: `1305 lines` against
//! `989 lines`, `39 seconds later`) are most often further on; so the figures past the cut are
//! kept beside it as the line's protected tail (`said: … [39 seconds; 1305 lines]`). A bare
//! number (a line number, a year, an id) says nothing on its own and is left out, and so are 0
//! and 1, which every log says (`0 errors`, `1 file changed`); a plus-signed count is a diff's
//! added lines (`+51894`), its sign its unit.

use super::shorten::Shortening;

/// Units a figure carries, in lowercase, singular and plural: what a task counts, sizes and
/// times.
const UNITS: [&str; 58] = [
    "line",
    "lines",
    "file",
    "files",
    "test",
    "tests",
    "error",
    "errors",
    "warning",
    "warnings",
    "commit",
    "commits",
    "byte",
    "bytes",
    "kb",
    "mb",
    "gb",
    "kib",
    "mib",
    "gib",
    "token",
    "tokens",
    "char",
    "chars",
    "character",
    "characters",
    "ms",
    "sec",
    "secs",
    "second",
    "seconds",
    "min",
    "mins",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "item",
    "items",
    "row",
    "rows",
    "record",
    "records",
    "request",
    "requests",
    "package",
    "packages",
    "session",
    "sessions",
    "checkpoint",
    "checkpoints",
    "issue",
    "issues",
    "step",
    "steps",
    "%",
];

/// Units written glued to the number (`10s`, `12ms`, `4.5MB`, `95%`).
const GLUED: [&str; 11] = ["s", "ms", "m", "h", "kb", "mb", "gb", "k", "%", "x", "px"];

/// The most figures the extract keeps of one text.
const MOST_STATED: usize = 6;

/// The most figures shown beside one cut text.
const MOST_SHOWN: usize = 3;

/// The figures `text` states, in order, each once, at most [`MOST_STATED`]: kept with the text
/// when the extract cuts it.
pub(super) fn stated_figures(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for figure in figures(text) {
        if !out.contains(&figure) {
            out.push(figure);
            if out.len() == MOST_STATED {
                break;
            }
        }
    }
    out
}

/// `text` with the tail of the `figures` it does not hold (see [`figures_tail`]), kept whole
/// while the text before it shortens (see [`Shortening`]).
pub(super) fn with_figures(text: String, figures: &[String]) -> Shortening {
    let tail = figures_tail(figures, &text);
    if tail.is_empty() {
        return Shortening::plain(text);
    }
    Shortening {
        tail: text.len(),
        full: format!("{text}{tail}"),
        fallback: text,
    }
}

/// The tail that keeps the `figures` of a text that `shown` (what a line shows of it) does
/// not hold: ` [39 seconds; 1305 lines]`, at most [`MOST_SHOWN`] of them; empty when it holds
/// them all.
fn figures_tail(figures: &[String], shown: &str) -> String {
    let missing: Vec<&str> = figures
        .iter()
        .filter(|f| !shown.contains(f.as_str()))
        .take(MOST_SHOWN)
        .map(String::as_str)
        .collect();
    match missing.is_empty() {
        true => String::new(),
        false => format!(" [{}]", missing.join("; ")),
    }
}

/// Every figure of `text`, as written (`175 files`, `~10s` as `10s`); lines of code
/// (indented) are skipped.
fn figures(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        let words: Vec<&str> = line
            .split_whitespace()
            .map(|w| w.trim_matches(['*', '`']))
            .collect();
        for (n, word) in words.iter().enumerate() {
            if let Some(added) = added_count(word) {
                out.push(added);
                continue;
            }
            let next = words.get(n + 1).copied().unwrap_or("");
            let Some(spaced) = figure_at(word, next) else {
                continue;
            };
            let number = word.trim_start_matches(FIGURE_LEADS);
            let number = number.trim_end_matches(CLOSERS);
            out.push(match spaced {
                true => format!("{number} {}", next.trim_end_matches(CLOSERS)),
                false => number.to_owned(),
            });
        }
    }
    out
}

/// A diff's count of added lines, `+51894` (in `[+51894 (175 files)]`, `+120 -30`): a
/// plus-signed whole number of two digits or more, which names its unit by its sign. Kept
/// with the sign, which says what it counts.
fn added_count(word: &str) -> Option<String> {
    let word = word
        .trim_start_matches(['(', '['])
        .trim_end_matches(CLOSERS);
    let digits = word.strip_prefix('+')?;
    (digits.len() >= 2 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| word.to_owned())
}

/// What may follow a figure's unit: punctuation and closing brackets.
const CLOSERS: [char; 6] = [',', ';', ':', '.', ')', ']'];

/// What may stand before a figure's digits: a bracket, an approximation, a sign.
const FIGURE_LEADS: [char; 6] = ['(', '[', '~', '+', '-', '≈'];

/// Whether `word` (with `next`, the word after it) is a figure: a number of two or more, or a
/// decimal, with a unit glued on or in the next word. Returns whether the unit is `next`.
fn figure_at(word: &str, next: &str) -> Option<bool> {
    let word = word.trim_start_matches(FIGURE_LEADS);
    let digits = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(word.len());
    let number = word[..digits].trim_end_matches(['.', ',']);
    if number.is_empty() || !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    // 0 and 1 are what every log says (`0 errors`, `1 file changed`): no figure of the task.
    if matches!(number, "0" | "1") || number.matches('.').count() > 1 {
        return None;
    }
    let rest = &word[number.len()..];
    let glued = rest.trim_end_matches(CLOSERS);
    // `3. Tests` and `2) files` number a list; `Jan 22: Session` ends a date.
    if glued.is_empty() && !rest.is_empty() {
        return None;
    }
    if !glued.is_empty() {
        return GLUED
            .contains(&glued.to_ascii_lowercase().as_str())
            .then_some(false);
    }
    let unit = next.trim_end_matches(CLOSERS).to_ascii_lowercase();
    UNITS.contains(&unit.as_str()).then_some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_keep_their_units_and_the_tail_holds_those_a_cut_loses() {
        let text = "Found it. Current transcript: **1305 lines** against 989 lines stored; \
                    the hook ran 39 seconds later, and 989 lines is the old count.";
        let figures = stated_figures(text);
        assert_eq!(figures, ["1305 lines", "989 lines", "39 seconds"]);
        assert_eq!(
            figures_tail(&figures, &text[..50]),
            " [989 lines; 39 seconds]"
        );
        assert_eq!(figures_tail(&figures, text), "");
        assert_eq!(
            stated_figures("why such a high number: [+51894 (175 files)]"),
            ["+51894", "175 files"]
        );
        assert_eq!(
            stated_figures("Sleep ~10s, then wait ~30s and fill in a 100% share."),
            ["10s", "30s", "100%"]
        );
    }

    #[test]
    fn a_cut_text_keeps_its_figures_as_a_tail() {
        let text = "Found it: the list shows 4 checkpoints and 175 files for one commit";
        let figures = stated_figures(text);
        let line = with_figures(text[..22].to_owned(), &figures);
        assert_eq!(
            line.full,
            "Found it: the list sho [4 checkpoints; 175 files]"
        );
        assert_eq!(line.at(40), "Found it:… [4 checkpoints; 175 files]");
        assert_eq!(with_figures(text.to_owned(), &figures).full, text);
    }

    #[test]
    fn bare_numbers_small_counts_lists_and_code_are_no_figures() {
        assert!(stated_figures("see line 42 of a.rs, issue #123, in 2026").is_empty());
        assert!(stated_figures("0 errors, 1 file changed").is_empty());
        assert!(stated_figures("text\n    let n = 12 lines;").is_empty());
        assert!(stated_figures("version 1.2.3 files").is_empty());
        assert!(stated_figures("+1 -2, go 1.22+ and +3.5 more").is_empty());
        assert!(stated_figures("3. Tests pass\n- Jan 22: Session ended").is_empty());
    }
}
