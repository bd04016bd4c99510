//! Telling, as the build writes, whether the new content only extends the bytes read: then the
//! extension alone is kept (it is appended); at the first byte that differs the output turns
//! into a temporary file (for the replace path), holding what matched so far and the rest.
//! The content is streamed either way, never held twice.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::replace::Temp;

/// What the build produced.
pub enum Built {
    /// Exactly the bytes read.
    Unchanged,
    /// The bytes read and then these.
    Extension(Vec<u8>),
    /// Anything else, in a temporary file.
    Rewrite(Temp),
}

/// The writer handed to the build.
pub struct Extending<'a> {
    /// The session's name, for messages.
    name: &'a str,
    read: &'a [u8],
    matched: usize,
    extension: Vec<u8>,
    rewrite: Option<BufWriter<Temp>>,
    make: &'a dyn Fn() -> Result<Temp>,
    /// Always end in a rewrite (unless unchanged).
    force: bool,
    /// Why a temporary file could not be made or written, kept whole for the caller.
    error: Option<anyhow::Error>,
}

impl<'a> Extending<'a> {
    /// A writer comparing against `read`, the content of the session `name`, making its
    /// temporary file with `make` when needed.
    pub fn new(
        name: &'a str,
        read: &'a [u8],
        make: &'a dyn Fn() -> Result<Temp>,
        force: bool,
    ) -> Self {
        Extending {
            name,
            read,
            matched: 0,
            extension: Vec::new(),
            rewrite: None,
            make,
            force,
            error: None,
        }
    }

    /// The error behind a failed write, if making or writing the temporary file was the
    /// cause: it names the session (a full disk says which file it stopped).
    pub fn take_error(&mut self) -> Option<anyhow::Error> {
        self.error.take()
    }

    /// Keeps `error`, met writing the temporary file, for [`Self::take_error`].
    fn failed(&mut self, error: io::Error) -> io::Error {
        let message = format!("{}: cannot write the new content: {error}", self.name);
        self.error = Some(anyhow::Error::new(io::Error::new(
            error.kind(),
            message.clone(),
        )));
        io::Error::new(error.kind(), message)
    }

    fn start_rewrite(&mut self) -> io::Result<&mut BufWriter<Temp>> {
        if self.rewrite.is_none() {
            let temp = match (self.make)() {
                Ok(temp) => temp,
                Err(error) => {
                    let message = format!("{error:#}");
                    self.error = Some(error);
                    return Err(io::Error::other(message));
                }
            };
            let mut out = BufWriter::with_capacity(1 << 20, temp);
            let copied = out
                .write_all(&self.read[..self.matched])
                .and_then(|()| out.write_all(&self.extension));
            if let Err(error) = copied {
                return Err(self.failed(error));
            }
            self.extension = Vec::new();
            self.rewrite = Some(out);
        }
        Ok(self.rewrite.as_mut().expect("just set"))
    }

    /// What was built.
    pub fn finish(mut self) -> Result<Built> {
        let extends = self.rewrite.is_none() && self.matched == self.read.len();
        if extends && self.extension.is_empty() {
            return Ok(Built::Unchanged);
        }
        if extends && !self.force {
            return Ok(Built::Extension(std::mem::take(&mut self.extension)));
        }
        if let Err(e) = self.start_rewrite() {
            return Err(self.error.take().unwrap_or_else(|| e.into()));
        }
        let out = self.rewrite.take().expect("started");
        match out.into_inner() {
            Ok(temp) => Ok(Built::Rewrite(temp)),
            Err(error) => {
                let error = self.failed(error.into_error());
                Err(self.error.take().unwrap_or_else(|| error.into()))
            }
        }
    }
}

impl Write for Extending<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(out) = &mut self.rewrite {
            return out.write(buf).map_err(|error| self.failed(error));
        }
        let left = &self.read[self.matched..];
        let n = left.len().min(buf.len());
        if buf[..n] != left[..n] {
            return self
                .start_rewrite()?
                .write(buf)
                .map_err(|error| self.failed(error));
        }
        self.matched += n;
        self.extension.extend_from_slice(&buf[n..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.rewrite {
            Some(out) => out.flush().map_err(|error| self.failed(error)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(read: &[u8], chunks: &[&[u8]], force: bool) -> Built {
        let made = std::cell::Cell::new(0);
        let dir = tempfile::tempdir().unwrap();
        let make = || -> Result<Temp> {
            made.set(made.get() + 1);
            Ok(Temp::for_test(&dir.path().join("t")))
        };
        let mut out = Extending::new("s", read, &make, force);
        for chunk in chunks {
            out.write_all(chunk).unwrap();
        }
        let built = out.finish().unwrap();
        assert_eq!(made.get(), usize::from(matches!(built, Built::Rewrite(_))));
        built
    }

    fn rewritten(built: Built) -> Vec<u8> {
        match built {
            Built::Rewrite(temp) => temp.contents(),
            _ => panic!("not a rewrite"),
        }
    }

    #[test]
    fn the_same_bytes_are_unchanged_in_any_chunks() {
        assert!(matches!(
            build(b"a\nb\n", &[b"a", b"\nb\n"], false),
            Built::Unchanged
        ));
        assert!(matches!(
            build(b"a\nb\n", &[b"a\nb\n"], true),
            Built::Unchanged
        ));
    }

    #[test]
    fn more_bytes_after_the_same_are_an_extension() {
        match build(b"a\nb\n", &[b"a\n", b"b\nc", b"\n"], false) {
            Built::Extension(extension) => assert_eq!(extension, b"c\n"),
            _ => panic!("not an extension"),
        }
        // Forced, the extension is a rewrite of the whole.
        assert_eq!(
            rewritten(build(b"a\nb\n", &[b"a\nb\nc\n"], true)),
            b"a\nb\nc\n"
        );
    }

    #[test]
    fn a_different_byte_or_a_shorter_output_is_a_rewrite_holding_everything() {
        assert_eq!(
            rewritten(build(b"a\nb\n", &[b"a\n", b"X\nc\n"], false)),
            b"a\nX\nc\n"
        );
        assert_eq!(rewritten(build(b"a\nb\n", &[b"a\n"], false)), b"a\n");
        assert_eq!(rewritten(build(b"a\n", &[b"b\n"], false)), b"b\n");
    }
}
