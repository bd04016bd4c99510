//! Where transcripts come from, and how their bytes become numbered lines.
//!
//! A source is a file or standard input (`-`, or no FILE at all), named `<stdin>` in messages.
//! Input is read in blocks of complete lines so that `estimate` runs in constant memory however
//! large the file is (a block only grows to hold one very long line); commands that need the
//! whole transcript read it into one buffer with [`read_all`]. Lines are split with memchr; LF
//! and CRLF endings, a UTF-8 byte-order mark and a last line without a newline are accepted, and
//! every line keeps its exact bytes, terminator included, so it can be written back unchanged.
//!
//! No line may be longer than the line size limit ([`limit`]): a reader stops at the first
//! that passes it, with its number, before reading the rest of it. Streaming, memory stays
//! within about one line's size over the blocks in flight: a block that grew to hold a long
//! line grows by an eighth at a time, not by doubling, and while one is being worked on the
//! reader waits instead of reading the next into memory beside it.
//!
//! Compressed input is recognised by its first bytes, not its name, so a piped `.gz` works too:
//! gzip is always read, zstd when the `zstd` feature is built in; other compressors (and zstd
//! without the feature) are refused with the command that decompresses them.

use std::fs::File;
use std::io::{self, Cursor, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;

use anyhow::{anyhow, bail, Context, Result};
use memchr::{memchr, memchr_iter, memrchr};

mod block;
pub mod limit;
#[cfg(feature = "zstd")]
mod zstd;

pub use block::BLOCK_SIZE;
use limit::{LineLength, TooLong};

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

    /// Opens the source for reading, decompressing gzip or zstd input.
    pub fn open(&self) -> Result<Box<dyn Read + Send>> {
        let raw: Box<dyn Read + Send> = match self {
            Source::Stdin => {
                if io::stdin().is_terminal() {
                    // Without a word, a command waiting on a terminal looks hung.
                    eprintln!(
                        "condense: reading a transcript from the terminal; end it with Ctrl-D, \
                         or name a FILE (-h shows how)"
                    );
                }
                widen_pipe();
                Box::new(io::stdin())
            }
            Source::File(path) => Box::new(open_file(path)?),
        };
        decompressed(&self.name(), raw)
    }
}

/// How large a pipe buffer standard input asks for: Linux's default limit for an unprivileged
/// process. A pipe holds 64 KiB otherwise, and reading a large transcript through one then
/// costs a system call, and a switch to the writer and back, every 64 KiB.
const PIPE_SIZE: usize = 1 << 20;

/// Grows the buffer of standard input when it is a pipe (nothing happens otherwise, or when
/// the system refuses: the input reads the same, only slower).
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::pipe::fcntl_setpipe_size(io::stdin(), PIPE_SIZE);
    }
}

/// What the first bytes of an input say it is compressed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed (as far as the magic numbers tell).
    None,
    /// gzip (`1f 8b`).
    Gzip,
    /// zstd (`28 b5 2f fd`).
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`).
    Xz,
    /// bzip2 (`BZh`).
    Bzip2,
}

impl Compression {
    /// Recognises a compressed stream by its magic number.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Compression::Xz
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

/// What the first bytes of the file at `path` say it is compressed with.
pub fn compression_of(path: &Path) -> Result<Compression> {
    let mut head = Vec::with_capacity(6);
    open_file(path)?
        .take(6)
        .read_to_end(&mut head)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(Compression::sniff(&head))
}

/// Whether this build reads zstd input.
pub const ZSTD: bool = cfg!(feature = "zstd");

/// `raw` decompressed by what its first bytes say, or refused with the command that would
/// decompress it.
fn decompressed(name: &str, mut raw: Box<dyn Read + Send>) -> Result<Box<dyn Read + Send>> {
    // A pipe may hand out fewer bytes than asked for: read until the magic is complete.
    let mut head = Vec::with_capacity(6);
    while head.len() < 6 {
        let read = (&mut raw)
            .take(6 - head.len() as u64)
            .read_to_end(&mut head)
            .with_context(|| format!("{name}: cannot read"))?;
        if read == 0 {
            break;
        }
    }
    let kind = Compression::sniff(&head);
    let whole = Cursor::new(head).chain(raw);
    match kind {
        Compression::None => Ok(Box::new(whole)),
        Compression::Gzip => Ok(Box::new(flate2::read::MultiGzDecoder::new(whole))),
        Compression::Zstd => zstd_reader(name, whole),
        Compression::Xz => bail!("{name}: the input is xz-compressed; decompress it first: xz -dc FILE | condense …"),
        Compression::Bzip2 => bail!("{name}: the input is bzip2-compressed; decompress it first: bzip2 -dc FILE | condense …"),
    }
}

#[cfg(feature = "zstd")]
fn zstd_reader(_name: &str, input: impl Read + Send + 'static) -> Result<Box<dyn Read + Send>> {
    Ok(zstd::reader(input))
}

#[cfg(not(feature = "zstd"))]
fn zstd_reader(name: &str, _input: impl Read + Send + 'static) -> Result<Box<dyn Read + Send>> {
    bail!(
        "{name}: the input is zstd-compressed and this condense was built without the `zstd` \
         feature; decompress it first: zstd -dc FILE | condense …"
    )
}

fn open_file(path: &Path) -> Result<File> {
    File::open(path).with_context(|| format!("{}: cannot open", path.display()))
}

/// Reads a whole source into memory, refusing a line longer than the limit as soon as it
/// passes it.
pub fn read_all(source: &Source) -> Result<Vec<u8>> {
    let name = source.name();
    let max = limit::max_line()?;
    let mut length = LineLength::new(max);
    let mut reader = source.open()?;
    // A file's length is known: reserving it whole means one allocation of the input's size,
    // where growing by doubling would leave the buffer up to twice as large as the input (a
    // 100 MiB session read into 160 MiB), which is most of a command's peak memory.
    let mut bytes = Vec::with_capacity(size_hint(source));
    loop {
        let before = bytes.len();
        let read = (&mut reader)
            .take(BLOCK_SIZE as u64)
            .read_to_end(&mut bytes)
            .with_context(|| format!("{name}: cannot read"))?;
        if let Err(start) = length.take(&bytes[before..]) {
            return Err(too_long(
                &name,
                limit::too_long_at(&bytes, start as usize, max),
            ));
        }
        // Fewer bytes than asked for: the end (see `Blocks::next_block`).
        if read < BLOCK_SIZE {
            return Ok(bytes);
        }
    }
}

/// The bytes `source` is expected to hold: a file's length (a compressed file's is a floor),
/// nothing for standard input. One more than that, so the read that finds the end does not
/// have to grow the buffer to make room for a byte that never comes.
fn size_hint(source: &Source) -> usize {
    match source {
        Source::Stdin => 0,
        Source::File(path) => std::fs::metadata(path)
            .ok()
            .and_then(|meta| usize::try_from(meta.len()).ok())
            .map_or(0, |len| len.saturating_add(1)),
    }
}

/// Checks the lines of `bytes`, an input named `name` read whole by other means (an in-place
/// write reads the session itself), against the line size limit.
pub fn check_lines(name: &str, bytes: &[u8]) -> Result<()> {
    limit::check(bytes, limit::max_line()?).map_err(|long| too_long(name, long))
}

/// The error for a line of `name` over the limit.
fn too_long(name: &str, long: TooLong) -> anyhow::Error {
    anyhow!("{name}:{long}")
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
        let line = Line::of(full, self.number);
        self.number += 1;
        Some(line)
    }
}

impl<'a> Line<'a> {
    /// Line `number`, which occupies the bytes `full` (its terminator included).
    fn of(full: &'a [u8], number: usize) -> Self {
        let mut text = full.strip_suffix(b"\n").unwrap_or(full);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if number == 1 {
            text = text.strip_prefix(BOM).unwrap_or(text);
        }
        Line { number, text, full }
    }
}

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

    #[test]
    fn gzip_input_reads_as_its_text_and_xz_is_refused_with_a_hint() {
        use std::io::Write as _;
        let text = b"{\"role\":\"user\",\"content\":\"a\"}\n";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text).unwrap();
        let mut read = Vec::new();
        decompressed("t.gz", Box::new(Cursor::new(gz.finish().unwrap())))
            .unwrap()
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, text);
        let xz = vec![0xfd, b'7', b'z', b'X', b'Z', 0, 1, 2];
        let error = decompressed("t.xz", Box::new(Cursor::new(xz)))
            .err()
            .unwrap();
        assert!(error.to_string().contains("xz -dc"));
        // Short input that is no magic at all passes through whole.
        let mut read = Vec::new();
        decompressed("t", Box::new(Cursor::new(b"{}".to_vec())))
            .unwrap()
            .read_to_end(&mut read)
            .unwrap();
        assert_eq!(read, b"{}");
    }

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert_eq!(Source::list(&[]), vec![Source::Stdin]);
        assert_eq!(Source::list(&["-".into()]), vec![Source::Stdin]);
        assert_eq!(Source::Stdin.name(), "<stdin>");
    }
}
