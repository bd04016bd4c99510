//! Lines: a buffer split at its newlines, each line with its number and its exact bytes.

use memchr::memchr;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One line of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: usize,
    /// The content: no terminator, no byte-order mark.
    pub text: &'a [u8],
    /// Every byte the line occupies in the input: byte-order mark, content and terminator.
    pub full: &'a [u8],
}

impl Line<'_> {
    /// True for an empty or whitespace-only line, which readers skip.
    pub fn is_blank(&self) -> bool {
        self.text.iter().all(u8::is_ascii_whitespace)
    }

    /// True when the line ends the input without a newline (possibly cut off mid-write).
    pub fn is_unterminated(&self) -> bool {
        self.full.last() != Some(&b'\n')
    }
}

/// Splits bytes into lines; `first_number` is the number of the first line.
pub fn lines(bytes: &[u8], first_number: usize) -> Lines<'_> {
    Lines {
        rest: bytes,
        number: first_number,
    }
}

/// Iterator over the lines of a byte buffer (see [`lines`]).
pub struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        let end = memchr(b'\n', self.rest).map_or(self.rest.len(), |i| i + 1);
        let (full, rest) = self.rest.split_at(end);
        self.rest = rest;
        let line = Line::of(full, self.number);
        self.number += 1;
        Some(line)
    }
}

impl<'a> Line<'a> {
    /// Line `number`, which occupies the bytes `full` (its terminator included).
    pub(super) fn of(full: &'a [u8], number: usize) -> Self {
        let mut text = full.strip_suffix(b"\n").unwrap_or(full);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if number == 1 {
            text = text.strip_prefix(BOM).unwrap_or(text);
        }
        Line { number, text, full }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(bytes: &[u8]) -> Vec<(usize, &[u8])> {
        lines(bytes, 1).map(|l| (l.number, l.text)).collect()
    }

    #[test]
    fn splits_lf_crlf_bom_and_unterminated_last_line() {
        let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}";
        assert_eq!(
            texts(input),
            vec![
                (1, &b"{\"a\":1}"[..]),
                (2, &b""[..]),
                (3, &b"{\"b\":2}"[..]),
                (4, &b"{\"c\":3}"[..]),
            ]
        );
        let rebuilt: Vec<u8> = lines(input, 1).flat_map(|l| l.full.to_vec()).collect();
        assert_eq!(rebuilt, input);
        assert!(lines(input, 1).last().unwrap().is_unterminated());
    }
}
