//! Compressed input, recognised by its first bytes: gzip always read, zstd with the `zstd`
//! feature, the others refused with the command that decompresses them.

use std::io::{Cursor, Read};

use anyhow::{bail, Context, Result};

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

/// Whether this build reads zstd input.
pub const ZSTD: bool = cfg!(feature = "zstd");

/// `raw` decompressed by what its first bytes say, or refused with the command that would
/// decompress it.
pub(super) fn decompressed(
    name: &str,
    mut raw: Box<dyn Read + Send>,
) -> Result<Box<dyn Read + Send>> {
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
    Ok(super::zstd::reader(input))
}

#[cfg(not(feature = "zstd"))]
fn zstd_reader(name: &str, _input: impl Read + Send + 'static) -> Result<Box<dyn Read + Send>> {
    bail!(
        "{name}: the input is zstd-compressed and this condense was built without the `zstd` \
         feature; decompress it first: zstd -dc FILE | condense …"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
