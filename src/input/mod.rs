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

mod block;
mod blocks;
mod compression;
pub mod limit;
mod lines;
mod source;
#[cfg(feature = "zstd")]
mod zstd;

pub use block::BLOCK_SIZE;
pub use blocks::{for_each_block, Block, Blocks};
pub use compression::{Compression, ZSTD};
pub use lines::{lines, Line, Lines};
pub use source::{check_lines, compression_of, read_all, Source};
