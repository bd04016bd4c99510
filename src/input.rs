//! Where transcripts come from, and how their bytes become numbered lines.
//!
//! A source is a file or standard input (`-`, or no FILE at all), named `<stdin>` in messages.
//! Input is read in blocks of complete lines so that `estimate` runs in constant memory however
//! large the file is (a block only grows to hold one very long line); commands that need the
//! whole transcript read it into one buffer with [`read_all`]. Lines are split with memchr; LF
//! and CRLF endings, a UTF-8 byte-order mark and a last line without a newline are accepted, and
//! every line keeps its exact bytes, terminator included, so it can be written back unchanged.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use memchr::{memchr, memchr_iter, memrchr};

/// How many bytes a block read asks for; measured as fast as mmap on the target machine.
pub const BLOCK_SIZE: usize = 8 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One input: a file, or standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input.
    Stdin,
    /// A file path.
    File(PathBuf),
}

impl Source {
    /// The sources named by FILE arguments: none, or `-`, means standard input.
    pub fn list(files: &[PathBuf]) -> Vec<Source> {
        if files.is_empty() {
            return vec![Source::Stdin];
        }
        files
            .iter()
            .map(|file| {
                if file.as_os_str() == "-" {
                    Source::Stdin
                } else {
                    Source::File(file.clone())
                }
            })
            .collect()
    }

    /// The name used in messages and reports.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            Source::File(path) => path.display().to_string(),
        }
    }

    /// Opens the source for reading.
    pub fn open(&self) -> Result<Box<dyn Read + Send>> {
        match self {
            Source::Stdin => Ok(Box::new(io::stdin())),
            Source::File(path) => Ok(Box::new(open_file(path)?)),
        }
    }
}

fn open_file(path: &Path) -> Result<File> {
    File::open(path).with_context(|| format!("{}: cannot open", path.display()))
}

/// Reads a whole source into memory.
pub fn read_all(source: &Source) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    source
        .open()?
        .read_to_end(&mut bytes)
        .with_context(|| format!("{}: cannot read", source.name()))?;
    Ok(bytes)
}

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
        let mut text = full.strip_suffix(b"\n").unwrap_or(full);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if self.number == 1 {
            text = text.strip_prefix(BOM).unwrap_or(text);
        }
        let line = Line {
            number: self.number,
            text,
            full,
        };
        self.number += 1;
        Some(line)
    }
}

/// Reads a source block by block, each block holding only complete lines.
pub struct Blocks<R> {
    reader: R,
    buffer: Vec<u8>,
    /// Bytes at the start of `buffer` carried over from the previous read (an unfinished line).
    carried: usize,
    next_line: usize,
    done: bool,
}

/// A block of complete lines.
pub struct Block<'a> {
    /// The bytes of the lines.
    pub bytes: &'a [u8],
    /// The number of the first line.
    pub first_line: usize,
    /// True when this is the last block of the input.
    pub last: bool,
}

impl<'a> Block<'a> {
    /// The block's lines.
    pub fn lines(&self) -> Lines<'a> {
        lines(self.bytes, self.first_line)
    }
}

impl<R: Read> Blocks<R> {
    /// Starts reading `reader`.
    pub fn new(reader: R) -> Self {
        Blocks {
            reader,
            buffer: Vec::new(),
            carried: 0,
            next_line: 1,
            done: false,
        }
    }

    /// The next block, or `None` at the end of input.
    pub fn next_block(&mut self) -> io::Result<Option<Block<'_>>> {
        if self.done {
            return Ok(None);
        }
        // Drop the bytes handed out last time; keep the unfinished line.
        let handed_out = self.buffer.len() - self.carried;
        self.buffer.drain(..handed_out);
        loop {
            let filled = self.buffer.len();
            let want = BLOCK_SIZE.max(filled);
            self.buffer.resize(filled + want, 0);
            let read = read_full(&mut self.reader, &mut self.buffer[filled..])?;
            self.buffer.truncate(filled + read);
            if read == 0 {
                self.done = true;
                self.carried = 0;
                if self.buffer.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.hand_out(self.buffer.len(), true)));
            }
            // Search only the new bytes: the carried ones hold no newline.
            if let Some(i) = memrchr(b'\n', &self.buffer[filled..]) {
                let end = filled + i + 1;
                self.carried = self.buffer.len() - end;
                return Ok(Some(self.hand_out(end, false)));
            }
        }
    }

    fn hand_out(&mut self, end: usize, last: bool) -> Block<'_> {
        let bytes = &self.buffer[..end];
        let first_line = self.next_line;
        self.next_line += memchr_iter(b'\n', bytes).count();
        Block {
            bytes,
            first_line,
            last,
        }
    }
}

/// Fills `buf` as far as the reader allows, so blocks are large even from a pipe.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
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

    #[test]
    fn blocks_hold_complete_lines_and_number_them() {
        // A reader that hands out three bytes at a time exercises the carry-over.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(3).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let input = b"one\ntwo\n\nthree";
        let mut blocks = Blocks::new(Trickle(input));
        let mut seen = Vec::new();
        let mut rebuilt = Vec::new();
        while let Some(block) = blocks.next_block().unwrap() {
            for line in block.lines() {
                seen.push((line.number, line.text.to_vec()));
                rebuilt.extend_from_slice(line.full);
            }
        }
        assert_eq!(rebuilt, input);
        assert_eq!(seen.last().unwrap(), &(4, b"three".to_vec()));
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert_eq!(Source::list(&[]), vec![Source::Stdin]);
        assert_eq!(Source::list(&["-".into()]), vec![Source::Stdin]);
        assert_eq!(Source::Stdin.name(), "<stdin>");
    }
}
