//! Text made safe and short: one line with escape sequences and control characters removed, cut
//! at a word boundary; and the small string helpers the matchers share.

/// True when `needle` occurs in `hay` (memchr's search: no per-call set-up worth the name,
/// unlike `str::contains` with a string pattern).
pub(super) fn has(hay: &str, needle: &str) -> bool {
    memchr::memmem::find(hay.as_bytes(), needle.as_bytes()).is_some()
}

pub(super) fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// A line without the line-number gutter read tools print before it.
pub(super) fn without_gutter(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return line;
    }
    let rest = &t[digits..];
    rest.strip_prefix('→')
        .or_else(|| rest.strip_prefix('\t'))
        .or_else(|| rest.strip_prefix(": "))
        .unwrap_or(line)
}

/// The text on one line: terminal escape sequences and control characters removed, runs of
/// whitespace made one space, cut to `max` characters at a word boundary when one is near,
/// marked `…` when cut.
pub fn one_line(text: &str, max: usize) -> String {
    let plain = plain_text(text);
    let mut out = String::with_capacity(plain.len().min(max * 4));
    let mut space = false;
    for c in plain.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !c.is_control() {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    cut(&out, max)
}

/// `text` cut to at most `max` characters, `…` included, at a space when one is near.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let end = text
        .char_indices()
        .nth(max - 1)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    // Back off to a space only when the cut splits a word, and only by a word's length.
    let splits_word = !text[end..].starts_with(' ');
    let head = match head.rfind(' ') {
        Some(space) if splits_word && space > 0 && head[space..].chars().count() <= 16 => {
            &head[..space]
        }
        _ => head,
    };
    // A cut just after a separator bar (`state | task` cut after the bar) ends on the words
    // before it: `state…`, not `state |…`, which reads as an empty part.
    let head = head.trim_end();
    let head = head.strip_suffix(" |").unwrap_or(head).trim_end();
    format!("{head}…")
}

/// The text with ANSI escape sequences and carriage returns removed.
pub(super) fn plain_text(text: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr2(0x1b, b'\r', text.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters, then one final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ESC \.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {}
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_strips_escapes_and_cuts_at_words() {
        assert_eq!(one_line("a\u{1b}[31mred\u{1b}[0m\n\n b\u{7}", 50), "ared b");
        assert_eq!(cut("alpha beta gamma delta", 12), "alpha beta…");
        assert_eq!(cut("abc", 0), "");
        assert_eq!(
            cut("all committed (c8c8932) | add the tooltip", 25),
            "all committed (c8c8932)…"
        );
        assert!(cut("日本語のテキスト", 4).chars().count() <= 4);
    }
}
