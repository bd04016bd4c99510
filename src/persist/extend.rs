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
    read: &'a [u8],
    matched: usize,
    extension: Vec<u8>,
    rewrite: Option<BufWriter<Temp>>,
    make: &'a dyn Fn() -> Result<Temp>,
    /// Always end in a rewrite (unless unchanged).
    force: bool,
    /// Why a temporary file could not be made, kept whole for the caller.
    error: Option<anyhow::Error>,
}

impl<'a> Extending<'a> {
    /// A writer comparing against `read`, making its temporary file with `make` when needed.
    pub fn new(read: &'a [u8], make: &'a dyn Fn() -> Result<Temp>, force: bool) -> Self {
        Extending {
            read,
            matched: 0,
            extension: Vec::new(),
            rewrite: None,
            make,
            force,
            error: None,
        }
    }

    /// The error behind a failed write, if making the temporary file was the cause.
    pub fn take_error(&mut self) -> Option<anyhow::Error> {
        self.error.take()
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
            out.write_all(&self.read[..self.matched])?;
            out.write_all(&self.extension)?;
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
        Ok(Built::Rewrite(
            out.into_inner().map_err(|e| e.into_error())?,
        ))
    }
}

impl Write for Extending<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(out) = &mut self.rewrite {
            return out.write(buf);
        }
        let left = &self.read[self.matched..];
        let n = left.len().min(buf.len());
        if buf[..n] != left[..n] {
            return self.start_rewrite()?.write(buf);
        }
        self.matched += n;
        self.extension.extend_from_slice(&buf[n..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.rewrite {
            Some(out) => out.flush(),
            None => Ok(()),
        }
    }
}
