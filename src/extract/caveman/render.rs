//! Printing the lines a caveman summary admitted: sections in order, names not printed twice.

use super::line::*;
use crate::extract::repeats::printed_in;

/// Names on one line of the names section (and file names on one line of the files section):
/// more to a line is fewer `- ` and line ends, fewer is a finer fit to the budget.
pub(super) const NAMES_PER_LINE: usize = 7;

/// The summary with the shown lines. What did not fit is not counted: a `+14 more files` line
/// costs the room of a file or a name and tells the next reader nothing it can act on.
pub(super) fn render(lines: &[Line], shown: &[Option<String>]) -> String {
    let mut out = String::new();
    for section in Section::ALL {
        let mut first = true;
        for (line, text) in lines.iter().zip(shown) {
            let Some(text) = text else { continue };
            if line.section != section {
                continue;
            }
            // A name the lines above already print is not listed again (see `repeats`).
            let unprinted;
            let text = if section == Section::Names {
                unprinted = unprinted_names(text, &out);
                if unprinted.is_empty() {
                    continue;
                }
                &unprinted
            } else {
                text
            };
            if first {
                if let Some(heading) = section.heading() {
                    out.push_str(heading);
                    out.push('\n');
                }
                first = false;
            }
            out.push_str(unbulleted(text));
            out.push('\n');
        }
    }
    out
}

/// A line without its list bullet: every line under a heading is an item already, so the
/// `- ` says nothing and costs a token a line (about 15 of 500 on the eval corpus), the room
/// of a file or a name.
pub(super) fn unbulleted(line: &str) -> &str {
    line.strip_prefix("- ").unwrap_or(line)
}

/// A names line (`- a b c`) without the names `printed` already holds; empty when none is left.
pub(super) fn unprinted_names(line: &str, printed: &str) -> String {
    let names: Vec<&str> = line
        .trim_start_matches("- ")
        .split(' ')
        .filter(|name| !name.is_empty() && !printed_in(name, &[printed]))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("- {}", names.join(" "))
    }
}

pub(super) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_loses_its_bullet_and_keeps_the_rest() {
        assert_eq!(unbulleted("- edited: a.rs b.rs"), "edited: a.rs b.rs");
        assert_eq!(unbulleted("- - PR sequencing"), "- PR sequencing");
        assert_eq!(unbulleted("ask: fix it"), "ask: fix it");
        assert_eq!(unbulleted("-x"), "-x");
    }
}
