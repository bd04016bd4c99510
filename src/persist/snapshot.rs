//! Reading a live file so that no line is cut: the bytes from an offset to the end, and the
//! moment the last line is whole.
//!
//! An agent writes a line in one `write` or, for long lines and buffered writers, in several.
//! Between two of them the file ends in the middle of a line. Compacting then would either
//! split that line (its second half landing after the compaction records) or drop it. So the
//! content handed to the build ends at a line end, or at a last line nobody is writing any more
//! (a file saved without a final newline, or a line whose writer died): one that stays the same
//! while no process has the file open for writing.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::writers::writers;

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
    let started = Instant::now();
    let mut quiet_at: Option<u64> = None;
    loop {
        let len = file
            .metadata()
            .with_context(|| format!("{name}: cannot read"))?
            .len();
        if len <= offset {
            return Ok(Vec::new());
        }
        let mut last = [0u8];
        file.read_exact_at(&mut last, len - 1)
            .with_context(|| format!("{name}: cannot read"))?;
        if last[0] == b'\n' {
            return read_range(file, offset, len, name);
        }
        let busy = writers(dev, ino);
        if busy.is_empty() {
            // Unchanged across two looks with no writer in between: no one is finishing it.
            if quiet_at == Some(len) {
                return read_range(file, offset, len, name);
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
