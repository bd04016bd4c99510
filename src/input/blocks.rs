//! Reading a stream block by block, each block holding only complete lines, with the next
//! block read on a thread of its own while this one is worked on.

use std::io::{self, Read};
use std::sync::mpsc::sync_channel;

use anyhow::Result;
use memchr::{memchr_iter, memrchr};

use super::block::BLOCK_SIZE;
use super::limit::{self, too_long, LineLength, TooLong};
use super::lines::Line;

/// A block of complete lines, owning its bytes so it can move between threads.
#[derive(Default)]
pub struct Block {
    /// The bytes of the lines.
    pub bytes: Vec<u8>,
    /// The number of the first line.
    pub first_line: usize,
    /// Where each line ends in `bytes`, just past its terminator: the reader finds them once,
    /// as it numbers the lines of the next block, and nothing searches for them again.
    ends: Vec<usize>,
}

impl Block {
    /// The block's lines.
    pub fn lines(&self) -> impl Iterator<Item = Line<'_>> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .zip(self.first_line..)
            .map(|((start, &end), number)| Line::of(&self.bytes[start..end], number))
    }
}

/// Reads a source block by block, each block holding only complete lines (a block grows past
/// [`BLOCK_SIZE`] only to finish one very long line, and never past the line size limit).
pub struct Blocks<R> {
    reader: R,
    /// The start of an unfinished line, carried into the next block.
    carry: Vec<u8>,
    next_line: usize,
    done: bool,
    /// The line being read, against the limit.
    length: LineLength,
    limit: usize,
}

impl<R: Read> Blocks<R> {
    /// Starts reading `reader`, with no line size limit.
    pub fn new(reader: R) -> Self {
        Blocks::with_limit(reader, usize::MAX)
    }

    /// Starts reading `reader`; a line longer than `limit` bytes is an error ([`TooLong`]
    /// inside the `io::Error`).
    pub fn with_limit(reader: R, limit: usize) -> Self {
        Blocks {
            reader,
            carry: Vec::new(),
            next_line: 1,
            done: false,
            length: LineLength::new(limit),
            limit,
        }
    }

    /// The next block, read into `spare` (a spent block whose buffers are reused, or a new
    /// one), or `None` at the end of input.
    pub fn next_block(&mut self, mut spare: Block) -> io::Result<Option<Block>> {
        if self.done {
            return Ok(None);
        }
        let buffer = &mut spare.bytes;
        buffer.clear();
        buffer.append(&mut self.carry);
        // Where the buffer's first byte stands in the stream.
        let origin = self.length.read_so_far() - buffer.len() as u64;
        loop {
            let searched = buffer.len();
            if buffer.capacity() - buffer.len() < BLOCK_SIZE {
                buffer.reserve_exact(room(buffer.len()) - buffer.len());
            }
            // `take` + `read_to_end` fills spare capacity without zeroing it first.
            let read = (&mut self.reader)
                .take(BLOCK_SIZE as u64)
                .read_to_end(buffer)?;
            if let Err(start) = self.length.take(&buffer[searched..]) {
                let within = (start - origin) as usize;
                let mut long = limit::too_long_at(buffer, within, self.limit);
                long.line += self.next_line - 1;
                self.done = true;
                return Err(io::Error::new(io::ErrorKind::InvalidData, long));
            }
            // Fewer bytes than asked for means the reader said "end" (`read_to_end` stops only
            // there or at the limit). Asking again would wait for a second end: a terminal
            // gives one per Ctrl-D, and the user pressed it once.
            if read < BLOCK_SIZE {
                self.done = true;
                if buffer.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.hand_out(spare)));
            }
            // Search only the new bytes: the carried ones hold no newline.
            if let Some(i) = memrchr(b'\n', &buffer[searched..]) {
                self.carry.extend_from_slice(&buffer[searched + i + 1..]);
                buffer.truncate(searched + i + 1);
                return Ok(Some(self.hand_out(spare)));
            }
        }
    }

    /// The block, its lines found and numbered.
    fn hand_out(&mut self, mut block: Block) -> Block {
        block.ends.clear();
        block
            .ends
            .extend(memchr_iter(b'\n', &block.bytes).map(|i| i + 1));
        if block.ends.last() != Some(&block.bytes.len()) {
            block.ends.push(block.bytes.len()); // the last line of the input, unterminated
        }
        block.first_line = self.next_line;
        self.next_line += block.ends.len();
        block
    }
}

/// Reads `reader` (named `name` in errors) block by block and hands each block to `consume` in
/// order. The first block is read here: an input that ends within it (a session of ordinary
/// size) is worked on with no thread started, which for `estimate` over a directory of small
/// sessions was most of what a file cost. A longer input is read on by a thread of its own, so
/// reading the next block overlaps working on this one; spent blocks come back for reuse, which
/// keeps memory at a few blocks however long the input is.
pub fn for_each_block<R, F>(name: &str, reader: R, mut consume: F) -> Result<()>
where
    R: Read + Send,
    F: FnMut(&Block) -> Result<()>,
{
    const IN_FLIGHT: usize = 2;
    let mut blocks = Blocks::with_limit(reader, limit::max_line()?);
    let first = blocks
        .next_block(Block::default())
        .map_err(|error| read_error(name, error))?;
    let Some(first) = first else {
        return Ok(());
    };
    if blocks.done {
        return consume(&first);
    }
    let first_large = first.bytes.capacity() > LARGE;
    let (full_tx, full_rx) = sync_channel::<io::Result<Block>>(IN_FLIGHT);
    let (spare_tx, spare_rx) = sync_channel::<Block>(IN_FLIGHT + 1);
    // Says that a large block was worked on: the reader waits for it before reading on.
    let (worked_tx, worked_rx) = sync_channel::<()>(1);
    std::thread::scope(|scope| {
        // The consumer's ends are dropped when it stops, even early (an error): the reader,
        // waiting on one, then stops too.
        let (spare_tx, worked_tx) = (spare_tx, worked_tx);
        scope.spawn(move || {
            if first_large && worked_rx.recv().is_err() {
                return;
            }
            loop {
                let spare = spare_rx.try_recv().unwrap_or_default();
                let next = blocks.next_block(spare).transpose();
                let stop = !matches!(next, Some(Ok(_)));
                let large = matches!(&next, Some(Ok(block)) if block.bytes.capacity() > LARGE);
                // A closed channel means the consumer stopped early (an error): stop reading.
                if let Some(next) = next {
                    if full_tx.send(next).is_err() {
                        break;
                    }
                }
                if stop || (large && worked_rx.recv().is_err()) {
                    break;
                }
            }
        });
        for block in std::iter::once(Ok(first)).chain(full_rx) {
            let block = block.map_err(|error| read_error(name, error))?;
            consume(&block)?;
            if block.bytes.capacity() > LARGE {
                // Its memory goes back, and the reader, which waited, reads on.
                drop(block);
                let _ = worked_tx.try_send(());
            } else {
                let _ = spare_tx.try_send(block);
            }
        }
        Ok(())
    })
}

/// The error for a failed read of `name`: its long line, or the I/O error.
fn read_error(name: &str, error: io::Error) -> anyhow::Error {
    match too_long_in(&error) {
        Some(long) => too_long(name, long),
        None => anyhow::Error::new(error).context(format!("{name}: cannot read")),
    }
}

/// How much a buffer that holds `len` bytes is given, to read a block more. A long line's
/// grows at once to [`MAPPED`], virtual memory only until it is written, then by an eighth of
/// its size rather than by doubling. An allocator maps a buffer that large on its own (glibc
/// from 32 MiB), and moves its pages to grow it: the line is never copied, which for a
/// moment holds it twice and leaves the old copy resident in the heap.
fn room(len: usize) -> usize {
    let grown = len + BLOCK_SIZE.max(len / 8);
    if len >= 2 * BLOCK_SIZE {
        grown.max(MAPPED)
    } else {
        grown
    }
}

/// See [`room`].
const MAPPED: usize = 64 << 20;

/// A block this large holds a long line: while one is worked on the reader reads nothing
/// more, and it is freed rather than kept for reuse.
const LARGE: usize = 4 * BLOCK_SIZE;

/// The long line an I/O error stands for, if it stands for one.
fn too_long_in(error: &io::Error) -> Option<TooLong> {
    error.get_ref()?.downcast_ref::<TooLong>().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut seen = Vec::new();
        let mut rebuilt = Vec::new();
        for_each_block("t", Trickle(input), |block| {
            for line in block.lines() {
                seen.push((line.number, line.text.to_vec()));
                rebuilt.extend_from_slice(line.full);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(rebuilt, input);
        assert_eq!(seen.last().unwrap(), &(4, b"three".to_vec()));
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn one_end_of_input_ends_it() {
        // A terminal: a line, then Ctrl-D (a read of 0), then what the user would type after.
        struct Terminal(Vec<&'static [u8]>);
        impl Read for Terminal {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let chunk = self.0.remove(0);
                buf[..chunk.len()].copy_from_slice(chunk);
                Ok(chunk.len())
            }
        }
        let mut seen = Vec::new();
        let typed = Terminal(vec![b"{\"a\":1}\n", b"", b"never read\n"]);
        for_each_block("t", typed, |block| {
            seen.extend(block.lines().map(|line| line.text.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [b"{\"a\":1}".to_vec()]);
    }

    #[test]
    fn a_line_longer_than_a_block_stays_whole() {
        let long = vec![b'x'; BLOCK_SIZE * 2 + 5];
        let mut input = b"a\n".to_vec();
        input.extend_from_slice(&long);
        input.extend_from_slice(b"\nb\n");
        let mut lengths = Vec::new();
        for_each_block("t", &input[..], |block| {
            lengths.extend(block.lines().map(|l| (l.number, l.text.len())));
            Ok(())
        })
        .unwrap();
        assert_eq!(lengths, vec![(1, 1), (2, long.len()), (3, 1)]);
    }
}
