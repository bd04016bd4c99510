//! The index of a JSON text: where its strings end, where its escapes are and where its
//! objects and arrays open and close, one bit per byte.
//!
//! Finding the next quote byte by byte, or call by call, cost more than everything else
//! `estimate` does: transcripts hold a quote or a backslash every fifteen bytes or so. A
//! [`Scanner`] looks at 64 bytes at a time instead, with vector compares (32 bytes at a time
//! on a CPU with AVX2, found at run time, else 16), and keeps what it found as bits: where a
//! string ends is then a bit search however many escapes it holds, and a skipped object is
//! passed from bracket to bracket.

use wide::u8x16;

use super::super::text::{hex4, is_high_surrogate, is_low_surrogate, Text};

/// A JSON text with the places of its string delimiters and escapes worked out (see the
/// module docs), one bit per byte: bit `k % 64` of word `k / 64` stands for byte `k`.
#[derive(Default)]
pub struct Scanner<'a> {
    bytes: &'a [u8],
    words: Vec<Word>,
}

thread_local! {
    /// The bitmap of the last scanner a thread dropped, kept for the next one: lines are
    /// scanned one after another, and a bitmap a third of a line's size, allocated and freed
    /// for every line, cost the kernel a mapping for each long one.
    static SPARE_WORDS: std::cell::RefCell<Vec<Word>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        let words = std::mem::take(&mut self.words);
        SPARE_WORDS.with(|spare| {
            let mut spare = spare.borrow_mut();
            if words.capacity() > spare.capacity() {
                *spare = words;
            }
        });
    }
}

/// The bits of 64 bytes of a scanned text.
#[derive(Default, Clone, Copy)]
struct Word {
    /// Quotes no backslash escapes.
    quotes: u64,
    /// Backslashes that start an escape (not those another backslash escapes).
    escapes: u64,
    /// Brackets and braces outside strings: where objects and arrays open and close (and
    /// the bytes [`Masks::of`] cannot tell from them, which valid JSON never holds there).
    structure: u64,
}

impl<'a> Scanner<'a> {
    /// Scans `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        let mut words = SPARE_WORDS.with(|spare| std::mem::take(&mut *spare.borrow_mut()));
        words.clear();
        words.reserve(bytes.len().div_ceil(64));
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = pulp::x86::V3::try_new() {
            simd.vectorize(IndexBlocks {
                classify: Avx2(simd),
                bytes,
                words: &mut words,
            });
            return Scanner { bytes, words };
        }
        IndexBlocks {
            classify: Sse2,
            bytes,
            words: &mut words,
        }
        .run();
        Scanner { bytes, words }
    }

    /// The string whose opening quote is at `open` and closing quote at `close` in `line`
    /// (the text scanned), its escapes checked (found from the bitmap) and its code points
    /// counted; `None` when it is no valid JSON string (a raw control character, an unknown
    /// or short escape).
    pub(super) fn text(&self, line: &'a str, open: usize, close: usize) -> Option<Text<'a>> {
        let body = open + 1..close;
        let (control, ascii) = control_and_ascii(&self.bytes[body.clone()]);
        if control {
            return None;
        }
        let bytes = self.bytes;
        // What escapes take beyond the one character each stands for.
        let mut extra = 0u64;
        let mut escaped = false;
        let mut word = body.start / 64;
        let mut bits = self.words.get(word)?.escapes & (u64::MAX << (body.start % 64));
        'words: loop {
            while bits != 0 {
                let at = word * 64 + bits.trailing_zeros() as usize;
                if at >= body.end {
                    break 'words;
                }
                bits &= bits - 1;
                escaped = true;
                match ESCAPE_KIND[usize::from(*bytes.get(at + 1)?)] {
                    SIMPLE => extra += 1,
                    UNICODE => {
                        let unit = hex4(bytes, at + 2)?;
                        extra += 5;
                        // A surrogate pair is one character of twelve bytes: one more than
                        // its halves take as two escapes, the second of which comes next.
                        let pair = is_high_surrogate(unit)
                            && bytes.get(at + 6) == Some(&b'\\')
                            && bytes.get(at + 7) == Some(&b'u')
                            && hex4(bytes, at + 8).is_some_and(is_low_surrogate);
                        extra += u64::from(pair);
                    }
                    _ => return None,
                }
            }
            word += 1;
            if word * 64 >= body.end {
                break;
            }
            bits = self.words.get(word)?.escapes;
        }
        // Quotes are ASCII, so the body starts and ends on character boundaries.
        let text = line.get(body.clone())?;
        if !escaped {
            // An ASCII body's count is its length: it need not be counted again.
            return Some(match ascii {
                true => Text::counted(text, text.len() as u64),
                false => Text::from(text),
            });
        }
        let chars = match ascii {
            true => text.len(),
            false => text.chars().count(),
        };
        Some(Text::escaped(text, chars as u64 - extra))
    }

    /// The text scanned.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The index just past the string starting at `i` (which must be a quote).
    pub fn skip_string(&self, i: usize) -> Option<usize> {
        let from = i + 1;
        let mut word = from / 64;
        let mut bits = self.words.get(word)?.quotes & (u64::MAX << (from % 64));
        while bits == 0 {
            word += 1;
            bits = self.words.get(word)?.quotes;
        }
        Some(word * 64 + bits.trailing_zeros() as usize + 1)
    }

    /// The index just past the JSON value starting at `i`.
    pub fn skip_value(&self, i: usize) -> Option<usize> {
        let line = self.bytes;
        match *line.get(i)? {
            b'"' => self.skip_string(i),
            b'{' | b'[' => {
                // From bracket to bracket outside strings, counting how deep each one is.
                let mut depth = 0usize;
                let mut word = i / 64;
                let mut bits = self.words.get(word)?.structure & (u64::MAX << (i % 64));
                loop {
                    while bits != 0 {
                        let at = word * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        match line[at] {
                            b'{' | b'[' => depth += 1,
                            b'}' | b']' => {
                                depth = depth.checked_sub(1)?;
                                if depth == 0 {
                                    return Some(at + 1);
                                }
                            }
                            _ => return None, // no bracket: the text is no valid JSON
                        }
                    }
                    word += 1;
                    bits = self.words.get(word)?.structure;
                }
            }
            _ => {
                let j = i + line[i..]
                    .iter()
                    .take_while(|&&b| !ends_literal(Some(b)))
                    .count();
                (j > i).then_some(j)
            }
        }
    }
}

/// A way to find the [`Masks`] of 64 bytes. There are no closures between a classifier and the
/// loop that calls it: a closure is compiled on its own, without the vector instructions of
/// the function it was written in, and would call each vector operation instead of holding it.
trait Classify {
    fn masks(&self, block: &[u8; 64]) -> Masks;
}

/// 16-byte compares, which every x86-64 CPU has ([`Masks::of`]).
struct Sse2;

impl Classify for Sse2 {
    #[inline(always)]
    fn masks(&self, block: &[u8; 64]) -> Masks {
        Masks::of(block)
    }
}

/// 32-byte compares, on a CPU with AVX2 ([`Masks::of_avx2`]).
#[cfg(target_arch = "x86_64")]
struct Avx2(pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Classify for Avx2 {
    #[inline(always)]
    fn masks(&self, block: &[u8; 64]) -> Masks {
        Masks::of_avx2(self.0, block)
    }
}

/// Appends the words of `bytes` to `words`, each block of 64 bytes classified by `classify`
/// (the last one padded with spaces).
struct IndexBlocks<'b, C> {
    classify: C,
    bytes: &'b [u8],
    words: &'b mut Vec<Word>,
}

impl<C: Classify> IndexBlocks<'_, C> {
    #[inline(always)]
    fn run(self) {
        let mut carry = Carry::default();
        let mut blocks = self.bytes.chunks_exact(64);
        for block in &mut blocks {
            let block = block.try_into().expect("chunks of 64");
            self.words.push(self.classify.masks(block).word(&mut carry));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let mut padded = [b' '; 64];
            padded[..rest.len()].copy_from_slice(rest);
            self.words
                .push(self.classify.masks(&padded).word(&mut carry));
        }
    }
}

/// The AVX2 run: `V3::vectorize` compiles it for the instructions the token proves.
#[cfg(target_arch = "x86_64")]
impl pulp::NullaryFnOnce for IndexBlocks<'_, Avx2> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        self.run()
    }
}

/// What one block of 64 bytes hands the next.
#[derive(Default)]
struct Carry {
    /// 1 when the block ended with a backslash that escapes the next byte.
    escape: u64,
    /// All ones when the block ended inside a string.
    inside: u64,
}

/// Bit masks of the quotes, backslashes and brackets (`[]{}`) of 64 bytes.
struct Masks {
    quotes: u64,
    backslashes: u64,
    /// The brackets, and some bytes no valid JSON holds outside a string (see [`Masks::of`]).
    brackets: u64,
}

impl Masks {
    #[inline(always)]
    fn of(block: &[u8; 64]) -> Masks {
        let mut masks = Masks {
            quotes: 0,
            backslashes: 0,
            brackets: 0,
        };
        let bits = |lane: u8x16| u64::from(lane.to_bitmask());
        let lanes: [u8x16; 4] = wide::bytemuck::cast(*block);
        for (k, lane) in lanes.into_iter().enumerate() {
            let shift = 16 * k;
            masks.quotes |= bits(lane.simd_eq(u8x16::splat(b'"'))) << shift;
            masks.backslashes |= bits(lane.simd_eq(u8x16::splat(b'\\'))) << shift;
            // `[` `]` `{` `}` (0x5B 0x5D 0x7B 0x7D) are the bytes that setting bits 0x26 turns
            // into 0x7F, with `Y` `_` `y` and DEL: one compare, where telling them apart took
            // three. Those four never stand outside a string in valid JSON (only punctuation,
            // digits, `eE.+-` and the letters of `true`, `false` and `null` do), and a skip
            // that meets one gives up.
            let folded = lane | u8x16::splat(0x26);
            masks.brackets |= bits(folded.simd_eq(u8x16::splat(0x7f))) << shift;
        }
        masks
    }

    /// [`Masks::of`] with 32-byte compares, on a CPU that has AVX2 (which `simd` proves).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of_avx2(simd: pulp::x86::V3, block: &[u8; 64]) -> Masks {
        let halves: [pulp::u8x32; 2] = pulp::cast(*block);
        let mut masks = Masks {
            quotes: 0,
            backslashes: 0,
            brackets: 0,
        };
        for (k, half) in halves.into_iter().enumerate() {
            let shift = 32 * k;
            let quotes = simd.cmp_eq_u8x32(half, simd.splat_u8x32(b'"'));
            let backslashes = simd.cmp_eq_u8x32(half, simd.splat_u8x32(b'\\'));
            // The brackets as in `of`: setting bits 0x26 turns them into 0x7F.
            let folded = simd.or_u8x32(half, simd.splat_u8x32(0x26));
            let brackets = simd.cmp_eq_u8x32(folded, simd.splat_u8x32(0x7f));
            masks.quotes |= high_bits(simd, quotes) << shift;
            masks.backslashes |= high_bits(simd, backslashes) << shift;
            masks.brackets |= high_bits(simd, brackets) << shift;
        }
        masks
    }

    /// The bits the scanner keeps of this block; `carry` comes from the block before and is
    /// set for the one after.
    fn word(&self, carry: &mut Carry) -> Word {
        let escaped = self.escaped(&mut carry.escape);
        let quotes = self.quotes & !escaped;
        // Each delimiter flips in and out of a string: a prefix XOR of them marks the bytes
        // from an opening quote up to its closing one.
        let mut inside = quotes;
        for shift in [1, 2, 4, 8, 16, 32] {
            inside ^= inside << shift;
        }
        inside ^= carry.inside;
        carry.inside = 0u64.wrapping_sub(inside >> 63);
        Word {
            quotes,
            escapes: self.backslashes & !escaped,
            structure: self.brackets & !inside,
        }
    }

    /// The bytes a backslash escapes. In a run of backslashes every second one escapes the
    /// byte after it: the runs are told apart by whether they start on an even or odd bit, and
    /// adding the run starts to the run carries each run's end past it. `carry` says whether
    /// the last byte of the previous block was an escaping backslash, and is set for the next.
    fn escaped(&self, carry: &mut u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let backslashes = self.backslashes & !*carry;
        let follows_backslash = (backslashes << 1) | *carry;
        let odd_starts = backslashes & !EVEN & !follows_backslash;
        let (even_runs, overflow) = odd_starts.overflowing_add(backslashes);
        *carry = u64::from(overflow);
        (EVEN ^ (even_runs << 1)) & follows_backslash
    }
}

/// The lanes of `lanes` that are set, one bit each.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn high_bits(simd: pulp::x86::V3, lanes: pulp::m8x32) -> u64 {
    u64::from(simd.avx2._mm256_movemask_epi8(pulp::cast(lanes)) as u32)
}

/// Whether `bytes` holds a byte below 0x20, which a JSON string may not hold raw, and whether
/// they are all ASCII, when their characters are as many as they are. Valid text has no
/// control byte, so every byte is looked at: ORs over all of them, which the compiler turns
/// into vector instructions.
fn control_and_ascii(bytes: &[u8]) -> (bool, bool) {
    let (control, all) = bytes.iter().fold((0u8, 0u8), |(control, all), &b| {
        (control | u8::from(b < 0x20), all | b)
    });
    (control != 0, all.is_ascii())
}

/// Whether `byte` (`None` past the end of the text) ends a number or literal: what may follow
/// a value, whitespace, or the end.
#[inline(always)]
pub(super) fn ends_literal(byte: Option<u8>) -> bool {
    byte.is_none_or(|b| ENDS_LITERAL[usize::from(b)])
}

/// The bytes that end a number or literal: what may follow a value, and whitespace.
const ENDS_LITERAL: [bool; 256] = byte_set(b",}] \t\n\r\x0c");

/// What the character after a backslash makes of the escape: [`SIMPLE`], [`UNICODE`], or
/// neither (no valid escape).
const ESCAPE_KIND: [u8; 256] = escape_kinds();
/// A two-character escape, which stands for one character.
const SIMPLE: u8 = 1;
/// A `\uXXXX` escape.
const UNICODE: u8 = 2;

const fn escape_kinds() -> [u8; 256] {
    let mut kinds = [0; 256];
    let simple = byte_set(b"\"\\/bfnrt");
    let mut b = 0;
    while b < 256 {
        if simple[b] {
            kinds[b] = SIMPLE;
        }
        b += 1;
    }
    kinds[b'u' as usize] = UNICODE;
    kinds
}

/// A table of which bytes are among `members`.
const fn byte_set(members: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < members.len() {
        table[members[i] as usize] = true;
        i += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_skip_from_bracket_to_bracket_and_bytes_like_brackets_outside_strings_stop_it() {
        let inside = br#"[{"a":"Y_y\u007f]}{["},[1,2.5e3,true,null]] x"#;
        assert_eq!(Scanner::new(inside).skip_value(0), Some(inside.len() - 2));
        for bad in [&b"[1,y]"[..], b"{\"a\":_}", b"[Y]", b"[\x7f]"] {
            assert_eq!(
                Scanner::new(bad).skip_value(0),
                None,
                "{}",
                bad.escape_ascii()
            );
        }
    }

    #[test]
    fn every_classifier_marks_exactly_the_quotes_backslashes_and_bracket_like_bytes() {
        // Every byte value at every place of a block, among bytes of every class.
        let class_bits = |block: &[u8; 64]| {
            let bits = |is: fn(u8) -> bool| {
                (0..64).fold(0u64, |bits, k| bits | (u64::from(is(block[k])) << k))
            };
            (
                bits(|b| b == b'"'),
                bits(|b| b == b'\\'),
                bits(|b| b | 0x26 == 0x7f),
            )
        };
        let of = |masks: Masks| (masks.quotes, masks.backslashes, masks.brackets);
        let mut checked = 0;
        for value in 0..=255u8 {
            for at in 0..64 {
                let mut block: [u8; 64] = std::array::from_fn(|k| b"\"\\{}[]ab 7_"[k % 11]);
                block[at] = value;
                let expected = class_bits(&block);
                assert_eq!(of(Masks::of(&block)), expected, "byte {value} at {at}");
                #[cfg(target_arch = "x86_64")]
                if let Some(simd) = pulp::x86::V3::try_new() {
                    let avx2 = simd.vectorize(|| Masks::of_avx2(simd, &block));
                    assert_eq!(of(avx2), expected, "AVX2: byte {value} at {at}");
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 256 * 64);
    }

    #[test]
    fn strings_end_at_the_first_quote_no_backslash_escapes() {
        // Runs of backslashes of every length, before quotes and elsewhere, placed across the
        // 64-byte blocks the scanner works in.
        let bodies = [
            r#"plain"#,
            r#"a\\"#,
            r#"a\"b"#,
            r#"a\\\"b"#,
            r#"\\\\"#,
            r#"x\\\\\"y\\"#,
            r#"\n\t\u00e9 \" \\ end"#,
        ];
        for pad in 0..70 {
            for body in bodies {
                let text = format!("{}\"{body}\" ,\"k\"", " ".repeat(pad));
                let scanner = Scanner::new(text.as_bytes());
                let end = scanner.skip_string(pad).unwrap();
                assert_eq!(&text[pad + 1..end - 1], body, "pad {pad}");
                assert!(serde_json::from_str::<String>(&text[pad..end]).is_ok());
                assert_eq!(scanner.skip_string(end + 2), Some(text.len()), "pad {pad}");
            }
        }
        let long = format!("\"{}\\\"{}\"", "a".repeat(63), "b".repeat(100));
        assert_eq!(
            Scanner::new(long.as_bytes()).skip_string(0),
            Some(long.len())
        );
        assert_eq!(Scanner::new(br#""unterminated\""#).skip_string(0), None);
    }
}
