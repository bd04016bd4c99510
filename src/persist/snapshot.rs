//! Reading a live file so that no line is cut: the bytes from an offset to the end, and the
//! moment the last line is whole.
//!
//! An agent writes a line in one `write` or, for long lines and buffered writers, in several.
//! Between two of them the file ends in the middle of a line. Compacting then would either
//! split that line (its second half landing after the compaction records) or drop it. So the
//! content handed to the build ends at a line end, or at a last line nobody is writing any more
//! (a file saved without a final newline, or a line whose writer died): one that stays the same
//! while no process has the file open for writing.
//!
//! A caller that read the session before (to plan its compaction) hands that in: while the file
//! holds exactly those bytes, they are compared with it rather than read a second time.

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::writers::writers;

/// How many bytes a comparison with what was read before reads at a time.
const BLOCK: usize = 1 << 20;

/// How long to wait for a writer to finish its line.
pub const SETTLE: Duration = Duration::from_secs(2);

/// The bytes of `file` from `offset` to its end.
pub fn read_from(file: &File, offset: u64, name: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut at = offset;
    loop {
        let n = file
            .read_at(&mut chunk, at)
            .with_context(|| format!("{name}: cannot read"))?;
        if n == 0 {
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk[..n]);
        at += n as u64;
    }
}

/// The bytes of `file` from `offset`, read once they end at a line end or in a last line that
/// no one is writing (see the module comment). Fails after [`SETTLE`] with the writer named.
///
/// Only the size and the last byte are looked at while waiting, and the bytes are read up to
/// the size that was judged, so lines appended after that look are left for the next one.
pub fn settled_from(file: &File, offset: u64, dev: u64, ino: u64, name: &str) -> Result<Vec<u8>> {
    let end = settled_end(file, offset, dev, ino, name)?;
    read_range(file, offset, end, name)
}

/// The whole content of `file`, settled as [`settled_from`] settles it; `known`, what the
/// caller read of it before, when the file holds exactly those bytes still. They are compared
/// block by block, not read into memory a second time: a session is held once, however large.
pub fn settled_as<'k>(
    file: &File,
    known: &'k [u8],
    dev: u64,
    ino: u64,
    name: &str,
) -> Result<Cow<'k, [u8]>> {
    let end = settled_end(file, 0, dev, ino, name)?;
    let unchanged = end == known.len() as u64
        && holds(file, known).with_context(|| format!("{name}: cannot read"))?;
    if unchanged {
        return Ok(Cow::Borrowed(known));
    }
    Ok(Cow::Owned(read_range(file, 0, end, name)?))
}

/// Whether `file` begins with `bytes`, read a block at a time.
fn holds(file: &File, bytes: &[u8]) -> std::io::Result<bool> {
    let mut block = vec![0u8; BLOCK.min(bytes.len())];
    for (at, expected) in (0u64..).step_by(BLOCK).zip(bytes.chunks(BLOCK)) {
        let read = &mut block[..expected.len()];
        file.read_exact_at(read, at)?;
        if read != expected {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The end of `file` once its content from `offset` ends at a line end or in a last line no
/// one is writing (see [`settled_from`]).
fn settled_end(file: &File, offset: u64, dev: u64, ino: u64, name: &str) -> Result<u64> {
    let started = Instant::now();
    let mut quiet_at: Option<u64> = None;
    loop {
        let len = file
            .metadata()
            .with_context(|| format!("{name}: cannot read"))?
            .len();
        if len <= offset {
            return Ok(offset);
        }
        let mut last = [0u8];
        file.read_exact_at(&mut last, len - 1)
            .with_context(|| format!("{name}: cannot read"))?;
        if last[0] == b'\n' {
            return Ok(len);
        }
        let busy = writers(dev, ino);
        if busy.is_empty() {
            // Unchanged across two looks with no writer in between: no one is finishing it.
            if quiet_at == Some(len) {
                return Ok(len);
            }
            quiet_at = Some(len);
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        quiet_at = None;
        if started.elapsed() > SETTLE {
            bail!(
                "{name}: {} has been writing its last line for {} s; nothing was written, try \
                 again when the agent is idle",
                busy[0],
                SETTLE.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Bytes `offset..end` of `file`.
fn read_range(file: &File, offset: u64, end: u64, name: &str) -> Result<Vec<u8>> {
    let mut bytes = vec![0u8; (end - offset) as usize];
    file.read_exact_at(&mut bytes, offset)
        .with_context(|| format!("{name}: cannot read"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;

    /// The file at `path` with `bytes`, open for reading, and its identity.
    fn file_with(path: &std::path::Path, bytes: &[u8]) -> (File, u64, u64) {
        std::fs::write(path, bytes).unwrap();
        let file = File::open(path).unwrap();
        let meta = file.metadata().unwrap();
        (file, meta.dev(), meta.ino())
    }

    #[test]
    fn the_bytes_read_before_come_back_while_the_file_holds_them_and_never_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        // Past one block, so that the compare reads more than once.
        let known: Vec<u8> = b"{\"n\":1}\n".repeat(BLOCK / 8 + 100);
        let (file, dev, ino) = file_with(&path, &known);
        match settled_as(&file, &known, dev, ino, "s").unwrap() {
            Cow::Borrowed(bytes) => assert!(std::ptr::eq(bytes, known.as_slice())),
            Cow::Owned(_) => panic!("read again"),
        }
        // A line appended: what the file holds now, whole.
        let grown = [&known[..], b"{\"n\":2}\n"].concat();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"n\":2}\n")
            .unwrap();
        assert!(matches!(
            settled_as(&file, &known, dev, ino, "s").unwrap(),
            Cow::Owned(bytes) if bytes == grown
        ));
        // A byte rewritten in place, in the second block, at the same length.
        let (file, dev, ino) = file_with(&path, &known);
        let mut changed = known.clone();
        changed[BLOCK + 5] = b'7';
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all_at(b"7", BLOCK as u64 + 5)
            .unwrap();
        assert!(matches!(
            settled_as(&file, &known, dev, ino, "s").unwrap(),
            Cow::Owned(bytes) if bytes == changed
        ));
        // Cut short: what is left.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(8)
            .unwrap();
        assert!(matches!(
            settled_as(&file, &known, dev, ino, "s").unwrap(),
            Cow::Owned(bytes) if bytes == b"{\"n\":1}\n"
        ));
    }
}
