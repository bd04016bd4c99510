//! The line size limit. An input with an endless line (`/dev/zero`, a log of one unbroken
//! stream, a corrupt file) would otherwise be read until memory runs out, and the commands that
//! hold a transcript whole need several times a line's size to read it. No line of a real
//! session comes near the limit: the largest in the test corpus is 0.5 MB, and an agent keeps
//! a tool's output or an image to a few MB; Gemini CLI's `$set` lines, which carry a whole
//! conversation, are the longest there are. The default, [`DEFAULT`], is 500 times the largest
//! seen; `CONDENSE_MAX_LINE` ([`VARIABLE`]) raises or lowers it.
//!
//! A [`LineLength`] follows the line being read across the blocks of a stream, so a line is
//! refused as soon as it passes the limit, before the rest of it is read.

use std::fmt;

use anyhow::{anyhow, bail, Result};
use memchr::{memchr, memchr_iter, memrchr};

use super::block::BLOCK_SIZE;

/// The environment variable that sets the limit: bytes, or with `K`, `M` or `G` (powers of
/// 1024).
pub const VARIABLE: &str = "CONDENSE_MAX_LINE";

/// The limit when [`VARIABLE`] is not set: 256 MiB.
pub const DEFAULT: usize = 256 << 20;

/// The longest line, in bytes without its terminator, that condense reads.
pub fn max_line() -> Result<usize> {
    let Some(value) = std::env::var_os(VARIABLE) else {
        return Ok(DEFAULT);
    };
    match value.to_str().and_then(parse_size) {
        Some(size) if size > 0 => Ok(size),
        _ => bail!(
            "{VARIABLE}={}: not a line size (bytes, or a number with K, M or G, such as 1G)",
            value.to_string_lossy()
        ),
    }
}

/// `123`, `64K`, `512M`, `2G` (powers of 1024); `None` for anything else.
fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last()? {
        (at, 'k' | 'K') => (&text[..at], 1 << 10),
        (at, 'm' | 'M') => (&text[..at], 1 << 20),
        (at, 'g' | 'G') => (&text[..at], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// A size for messages: `256 MiB`, `1.5 GiB`, or bytes.
fn shown(size: usize) -> String {
    match size {
        s if s >= 1 << 30 => format!("{:.1} GiB", s as f64 / f64::from(1u32 << 30)),
        s if s >= 1 << 20 => format!("{} MiB", s >> 20),
        s => format!("{s} bytes"),
    }
}

/// A line longer than the limit: the error a reader stops with (carried inside an
/// `io::Error`, so that it passes through the readers around it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLong {
    /// The line's number.
    pub line: usize,
    /// The limit it passed.
    pub limit: usize,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: the line is longer than {}, condense's line size limit. No agent writes such a \
             line: is this a session? If it is, raise the limit with {VARIABLE} (such as \
             {VARIABLE}=2G)",
            self.line,
            shown(self.limit)
        )
    }
}

impl std::error::Error for TooLong {}

/// The line being read, followed across the chunks of a stream.
#[derive(Debug, Clone)]
pub struct LineLength {
    limit: usize,
    /// Where the line being read starts, counted from the stream's first byte.
    start: u64,
    /// How many bytes of the stream came before the next chunk.
    read: u64,
}

impl LineLength {
    /// Follows lines of at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        LineLength {
            limit,
            start: 0,
            read: 0,
        }
    }

    /// How many bytes of the stream it has taken.
    pub fn read_so_far(&self) -> u64 {
        self.read
    }

    /// Takes the stream's next chunk. `Err` holds where the first line longer than the limit
    /// starts (counted from the stream's first byte): it may have started in an earlier chunk.
    pub fn take(&mut self, chunk: &[u8]) -> Result<(), u64> {
        let at = self.read;
        self.read += chunk.len() as u64;
        let too_long = |start: u64, end: u64| end - start > self.limit as u64;
        let Some(first) = memchr(b'\n', chunk) else {
            return match too_long(self.start, self.read) {
                true => Err(self.start),
                false => Ok(()),
            };
        };
        if too_long(self.start, at + first as u64) {
            return Err(self.start);
        }
        let last = memrchr(b'\n', chunk).expect("one was found");
        // Lines that begin and end in this chunk are shorter than it: look at each only when
        // one of them may pass the limit.
        if last - first > self.limit {
            let inner = first + 1;
            let mut start = inner;
            for end in memchr_iter(b'\n', &chunk[inner..=last]).map(|i| inner + i) {
                if end - start > self.limit {
                    return Err(at + start as u64);
                }
                start = end + 1;
            }
        }
        self.start = at + last as u64 + 1;
        // The rest may already be too long.
        match too_long(self.start, self.read) {
            true => Err(self.start),
            false => Ok(()),
        }
    }
}

/// Checks every line of `bytes`, numbered from 1, against `limit`.
pub fn check(bytes: &[u8], limit: usize) -> Result<(), TooLong> {
    let mut length = LineLength::new(limit);
    // In blocks, so that the lines inside one are looked at only when one may be too long.
    for block in bytes.chunks(BLOCK_SIZE) {
        if let Err(start) = length.take(block) {
            return Err(too_long_at(bytes, start as usize, limit));
        }
    }
    Ok(())
}

/// The error for the line of `bytes` (the input from its start) that starts at `start`.
pub fn too_long_at(bytes: &[u8], start: usize, limit: usize) -> TooLong {
    TooLong {
        line: 1 + memchr_iter(b'\n', &bytes[..start.min(bytes.len())]).count(),
        limit,
    }
}

/// The error for a line of `name` over the limit.
pub(super) fn too_long(name: &str, long: TooLong) -> anyhow::Error {
    anyhow!("{name}:{long}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("64K"), Some(64 << 10));
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("G"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(shown(DEFAULT), "256 MiB");
    }

    #[test]
    fn the_first_line_past_the_limit_is_found_in_any_chunking() {
        let input = b"ab\nabcdef\nabc\nabcdefgh\na";
        for limit in [3, 6, 8] {
            let expected = input
                .split(|&b| b == b'\n')
                .position(|line| line.len() > limit)
                .map(|i| i + 1);
            for chunk in 1..=input.len() {
                let mut length = LineLength::new(limit);
                let found = input
                    .chunks(chunk)
                    .find_map(|c| length.take(c).err())
                    .map(|start| too_long_at(input, start as usize, limit).line);
                assert_eq!(found, expected, "limit {limit}, chunks of {chunk}");
            }
        }
    }

    #[test]
    fn an_endless_line_is_refused_as_soon_as_it_passes() {
        let mut length = LineLength::new(10);
        assert_eq!(length.take(b"ok\n0123"), Ok(()));
        assert_eq!(length.take(b"456789"), Ok(()));
        assert_eq!(length.take(b"x"), Err(3));
    }
}
