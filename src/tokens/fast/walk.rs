//! Reading a whole text: its ASCII in chunks of up to 64 bytes (`chunk`), and what a chunk
//! leaves out (non-ASCII chars, `\u` escapes) one char at a time (`scalar`), with the history
//! of the last chars carried from one to the next.
//!
//! A text comes either decoded (a plain `&str`, where a backslash is punctuation like any
//! other) or as the escaped body of a JSON string, read as it stands in the line: decoding it
//! first, or handing it over in the pieces between its escapes, cost more than the counting.
//!
//! A chunk costs about as much as a few dozen bytes read one at a time, so what would make a
//! short one is read char by char instead: the end of a text, and the ASCII between non-ASCII
//! chars where they are dense (the `│   ├── ` of a directory tree).
//!
//! On a CPU with AVX2 (found at run time) the whole walk runs compiled for it: its windows are
//! classified 32 bytes at a time, and its population counts are one instruction each.

use super::chunk::{below, non_ascii, ByteMasks, Carry, Chunk, Escapes};
use super::scalar::MAX_SHORT;
use super::Features;
use crate::simd::{self, Lanes};
use crate::transcript::text::escape;

/// Fewer bytes than this, at the end of a text, are read char by char.
const SHORT_END: usize = 24;

/// An ASCII stretch shorter than this before a non-ASCII char is read char by char.
const SHORT_STRETCH: usize = 16;

const _: () = assert!(SHORT_END <= MAX_SHORT && SHORT_STRETCH <= MAX_SHORT);

/// The 64 bytes from the start of `rest`, zero-padded when fewer are left: a zero byte is in
/// no class and changes no count of the bytes before it.
#[inline]
fn window(rest: &[u8]) -> [u8; 64] {
    match rest.first_chunk::<64>() {
        Some(window) => *window,
        None => {
            let mut padded = [0u8; 64];
            padded[..rest.len()].copy_from_slice(rest);
            padded
        }
    }
}

/// How many bytes of ASCII `window` starts with, at most `left` (what is left of the text).
#[inline(always)]
fn ascii_len(simd: impl Lanes, window: &[u8; 64], left: usize) -> usize {
    (non_ascii(simd, window).trailing_zeros() as usize).min(left)
}

/// Adds the features of `text`, which follows what `hist` describes. `JSON_BODY` says it is
/// the escaped body of a JSON string, its escapes checked (as
/// [`crate::transcript::text::Text::escaped_body`] hands it out), read as it stands; otherwise
/// it is decoded text, where a backslash is punctuation like any other.
pub(super) fn read<const JSON_BODY: bool>(f: &mut Features, text: &str, hist: &mut usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = simd::Avx2::detect() {
        return avx2.0.vectorize(Read::<JSON_BODY, _> {
            simd: avx2,
            f,
            text,
            hist,
        });
    }
    read_with::<JSON_BODY>(simd::Baseline::default(), f, text, hist);
}

/// A [`read`] with the compares it runs.
#[cfg(target_arch = "x86_64")]
struct Read<'r, const JSON_BODY: bool, L> {
    simd: L,
    f: &'r mut Features,
    text: &'r str,
    hist: &'r mut usize,
}

/// The AVX2 read: `V3::vectorize` compiles it for the instructions the token proves.
#[cfg(target_arch = "x86_64")]
impl<const JSON_BODY: bool> pulp::NullaryFnOnce for Read<'_, JSON_BODY, simd::Avx2> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        read_with::<JSON_BODY>(self.simd, self.f, self.text, self.hist)
    }
}

/// [`read`] with the compares of `simd`.
#[inline(always)]
fn read_with<const JSON_BODY: bool>(
    simd: impl Lanes,
    f: &mut Features,
    text: &str,
    hist: &mut usize,
) {
    let bytes = text.as_bytes();
    debug_assert!(
        !JSON_BODY || bytes.iter().all(|&b| b >= 0x20),
        "a raw control char in {text:?}"
    );
    let mut i = 0;
    let mut carry = Carry::from_hist(*hist);
    while bytes.len() - i >= SHORT_END {
        let rest = &bytes[i..];
        let window = window(rest);
        let mut len = ascii_len(simd, &window, rest.len());
        let before_non_ascii = len < rest.len().min(64);
        if before_non_ascii && len < SHORT_STRETCH {
            // Escapes are ASCII, so the stretch holds whole ones.
            *hist = carry.hist();
            f.short::<JSON_BODY>(&text[i..i + len], hist);
            i += len;
            i += f.non_ascii_run(&text[i..], hist);
            carry = Carry::from_hist(*hist);
            continue;
        }
        let masks = ByteMasks::of::<JSON_BODY, _>(simd, &window);
        let mut escapes = Escapes::default();
        let mut unicode = false;
        // A backslash escapes the byte after it, itself included: `\\n` is a backslash and an
        // `n`. Escapes are few (one every 19 bytes in pi's sessions), so they are visited one
        // by one, from the first on, skipping each escaped byte. Decoded text has none: its
        // masks leave backslashes out.
        let mut pending = masks.backslashes & below(len);
        while pending != 0 {
            let at = pending.trailing_zeros() as usize;
            if at + 1 >= len {
                // An escape the window cuts in two waits for the next chunk. Before the text's
                // end or a non-ASCII byte a backslash escapes nothing in a checked body; were
                // it to, it is read as the punctuation it is.
                if len == 64 {
                    len = at;
                }
                break;
            }
            let kind = rest[at + 1];
            if kind == b'u' {
                // `\uXXXX` stands for any char, even two escapes long: decoded on its own.
                len = at;
                unicode = true;
                break;
            }
            let start = 1u64 << at;
            escapes.starts |= start;
            // Without branches: which escape comes next is anyone's guess.
            escapes.newlines |= u64::from(kind == b'n' || kind == b'r') << (at + 1);
            escapes.spaces |= u64::from(kind == b't') << (at + 1);
            pending &= !(start | start << 1);
        }
        if len > 0 {
            Chunk::new(&masks, len, &escapes).count(f, &mut carry);
        }
        i += len;
        if unicode {
            let (ch, next) = escape(bytes, i);
            *hist = carry.hist();
            f.char(ch, hist);
            carry = Carry::from_hist(*hist);
            i = next;
        } else if bytes.get(i).is_some_and(|&b| b >= 0x80) {
            // `i` is on a char boundary: escapes are ASCII, and so are the bytes before.
            *hist = carry.hist();
            i += f.non_ascii_run(&text[i..], hist);
            carry = Carry::from_hist(*hist);
        }
    }
    *hist = carry.hist();
    f.short::<JSON_BODY>(&text[i..], hist);
}
