//! A source: a file or standard input, opened (and decompressed), or read whole.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::block::BLOCK_SIZE;
use super::compression::{decompressed, Compression};
use super::limit::{self, too_long, LineLength};

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

/// What the first bytes of the file at `path` say it is compressed with.
pub fn compression_of(path: &Path) -> Result<Compression> {
    let mut head = Vec::with_capacity(6);
    open_file(path)?
        .take(6)
        .read_to_end(&mut head)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(Compression::sniff(&head))
}

/// Opens the file at `path`; the error names it.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert_eq!(Source::list(&[]), vec![Source::Stdin]);
        assert_eq!(Source::list(&["-".into()]), vec![Source::Stdin]);
        assert_eq!(Source::Stdin.name(), "<stdin>");
    }
}
