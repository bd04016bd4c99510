//! The newest request, compressed rather than truncated. A request of a couple of thousand
//! characters (a pasted spec, a review, an error report) carries the whole task in its details:
//! headings, component names, quoted UI strings, numbers, paths, "do NOT" lines. Cut to its first few
//! hundred characters it keeps the preamble and loses them. So a long request keeps its first
//! line and then the lines (or, in a long paragraph, the sentences) that hold such details, in
//! their order, up to a length; the plain prose between them goes first.

use super::names::is_code_name;
use super::paths::is_pathlike;
use super::said::sentences;
use super::text::one_line;

/// What joins the kept pieces of a compressed request: the reader sees that text was left out.
const GAP: &str = " … ";

/// `text` on one line within `max` characters: whole when it fits; else its first piece, then
/// the pieces with details (see the module docs) as long as they fit, in their order, joined by
/// ` … `; with room left, the plain pieces too, in order.
pub(super) fn compress(text: &str, max: usize) -> String {
    let whole = one_line(text, text.len());
    if whole.chars().count() <= max {
        return whole;
    }
    let pieces = pieces(text);
    let Some((first, rest)) = pieces.split_first() else {
        return one_line(text, max);
    };
    let mut kept: Vec<(usize, &str)> = vec![(0, first.as_str())];
    let mut used = first.chars().count();
    // Details first, then plain pieces, each only when it fits whole.
    for detailed in [true, false] {
        for (n, piece) in rest.iter().enumerate() {
            if has_details(piece) != detailed {
                continue;
            }
            let len = piece.chars().count() + GAP.chars().count();
            if used + len <= max {
                kept.push((n + 1, piece));
                used += len;
            }
        }
    }
    if kept.len() == 1 {
        return one_line(text, max);
    }
    kept.sort_by_key(|(n, _)| *n);
    let mut out = String::new();
    let mut previous = None;
    for (n, piece) in kept {
        if let Some(p) = previous {
            out.push_str(if n == p + 1 { " " } else { GAP });
        }
        out.push_str(piece);
        previous = Some(n);
    }
    out
}

/// Characters above which a line is taken apart into its sentences.
const LONG_LINE: usize = 160;

/// The pieces of a request: its non-blank lines, a long line split into sentences, each on
/// one line; fenced code is one piece per line too.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.chars().count() <= LONG_LINE {
            out.push(one_line(line, line.len()));
            continue;
        }
        for (start, end) in sentences(line) {
            let sentence = line[start..end].trim();
            if !sentence.is_empty() {
                out.push(one_line(sentence, sentence.len()));
            }
        }
    }
    out
}

/// Words that make a piece a constraint ("do NOT", "never", "must", "only").
const NEGATIONS: [&str; 8] = [
    "not ", "n't ", "never", "must", "only", "don't", "avoid", "without",
];

/// True for a piece with a detail worth keeping: a heading, a code name, a path, a quoted
/// string, a number or a negation.
fn has_details(piece: &str) -> bool {
    // A heading of some words names a part of the task (`# Plan: Switch keys to random`).
    if piece.starts_with('#') && piece.split_whitespace().count() >= 4 {
        return true;
    }
    let lower = piece.to_lowercase();
    if NEGATIONS.iter().any(|n| lower.contains(n)) {
        return true;
    }
    if piece.contains('`') || piece.matches('"').count() >= 2 {
        return true;
    }
    piece
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | '\'' | '"'))
        .map(|w| w.trim_end_matches(['.', ':', '!', '?']))
        .any(|w| {
            is_code_name(w)
                || (w.contains('/') && is_pathlike(w))
                || (w.chars().any(|c| c.is_ascii_digit())
                    && w.chars().any(|c| c.is_ascii_alphabetic())
                    || w.parse::<f64>().is_ok_and(|n| n >= 2.0))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_request_keeps_its_first_line_and_its_details() {
        let spec = "Please rework the settings screen, it has grown messy over time and users complain.\n\
                    I think it should feel calmer and more focused than it does today.\n\
                    Rename the tab to \"Preferences\" and move SettingsPanel into src/ui/prefs.tsx.\n\
                    It would be nice if it looked good, like the rest of the app does now.\n\
                    Keep the max width at 640px.\n\
                    Do NOT touch the billing section.";
        let short = compress(spec, 250);
        assert_eq!(
            short,
            "Please rework the settings screen, it has grown messy over time and users complain. … \
             Rename the tab to \"Preferences\" and move SettingsPanel into src/ui/prefs.tsx. … \
             Keep the max width at 640px. Do NOT touch the billing section."
        );
        assert!(short.chars().count() <= 250);
        // With room, the plain lines come back in their place; a short request stays whole.
        assert_eq!(compress(spec, 1000), one_line(spec, 1000));
        assert_eq!(compress("fix the flaky test", 10), "fix the…");
    }
}
