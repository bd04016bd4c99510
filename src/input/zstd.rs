//! zstd input, decoded by `ruzstd` (written in Rust: the build needs no C compiler).
//!
//! A `.zst` file is a sequence of frames: `zstd a b > c`, `cat x.zst y.zst` and `pzstd` write
//! several, and `pzstd` puts a skippable frame (its index) before each. The frames are decoded
//! one after another into one stream, skippable frames are passed over, and a frame's content
//! checksum, when it has one, is checked, as the zstd tool does; anything else after a frame
//! is an error.

use std::io::{self, BufRead, BufReader, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// `input`, a zstd stream, decompressed.
pub(super) fn reader(input: impl Read + Send + 'static) -> Box<dyn Read + Send> {
    Box::new(Frames {
        source: BufReader::new(input),
        decoder: FrameDecoder::new(),
        in_frame: false,
    })
}

/// The content of every frame of `source`, in order.
struct Frames<R> {
    source: BufReader<R>,
    decoder: FrameDecoder,
    /// Whether `decoder` holds a frame whose content is not all read yet.
    in_frame: bool,
}

impl<R: Read> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                while self.decoder.can_collect() == 0 && !self.decoder.is_finished() {
                    self.decoder
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                        .map_err(corrupt)?;
                }
                let read = self.decoder.read(buf)?;
                if read > 0 {
                    return Ok(read);
                }
                self.check_sum()?;
                self.in_frame = false;
            }
            if self.source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.start_frame()?;
        }
    }
}

impl<R: Read> Frames<R> {
    /// Reads the next frame's header, passing over skippable frames.
    fn start_frame(&mut self) -> io::Result<()> {
        match self.decoder.reset(&mut self.source) {
            Ok(()) => {
                self.in_frame = true;
                Ok(())
            }
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                let skipped = io::copy(
                    &mut (&mut self.source).take(u64::from(length)),
                    &mut io::sink(),
                )?;
                if skipped < u64::from(length) {
                    return Err(corrupt("a skippable frame is cut short"));
                }
                Ok(())
            }
            Err(error) => Err(corrupt(error)),
        }
    }

    /// Compares the checksum the finished frame carries (if any) with its content's.
    fn check_sum(&self) -> io::Result<()> {
        match (
            self.decoder.get_checksum_from_data(),
            self.decoder.get_calculated_checksum(),
        ) {
            (Some(carried), Some(computed)) if carried != computed => Err(corrupt(format!(
                "the checksum of a zstd frame is {computed:08x}, the frame says {carried:08x}"
            ))),
            _ => Ok(()),
        }
    }
}

/// A decoding failure, as the I/O error the reader of the stream reports with the file's name.
fn corrupt(error: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not a valid zstd stream: {error}"),
    )
}
