//! Fast, vocabulary-free token estimate: the "local" heuristic of `shared/spec/tokens.md`.
//!
//! The spec fitted a linear model with 11 features against three tokenizers (o200k, a
//! reconstruction of Claude 3…4.6 "ctok v3", and of Opus 4.7 "ctok v4.7") by weighted least
//! squares. Its held-out p90 per-text error is 8–16 %, against 30 % and worse for chars/4.
//! Each feature depends only on a char and the one or two chars before it, so the whole text
//! is classified in a single pass with no allocation and no tokenizer tables.
//!
//! The features mirror the cl100k/o200k pre-tokenizer: words (letter runs, split at a
//! lower→Upper camelCase boundary), digit runs, punctuation runs, newline runs and runs of
//! spaces, plus CJK and other non-ASCII characters that BPE vocabularies cover poorly.
//!
//! Speed: transcript text is mostly ASCII, so bytes are classified with a 256-entry table and
//! a second table maps (class two back, class one back, class now) straight to the eight
//! ASCII feature increments, packed as eight 8-bit lanes of one `u64`. Chars are only decoded
//! when a byte ≥ 0x80 shows up.
//!
//! Blind spots, inherent to the spec's features (checked against o200k on the fixtures):
//! box-drawing trees are overestimated (o200k merges `──` into one token, the model charges
//! every such char as "other"), base64 blobs are underestimated by ~25 %, and combining marks
//! count as "other" rather than continuing a letter run.

use crate::transcript::text::Text;
use std::ops::{Add, AddAssign};

/// Tokenizer family whose fitted weights turn [`Features`] into a token estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// OpenAI o200k_base (GPT-4o and later).
    Openai,
    /// Claude 3 up to 4.6 (the spec's "ctok v3" reconstruction).
    Claude,
    /// Claude Opus 4.7 (the spec's "ctok v4.7" reconstruction), a much denser tokenizer.
    Claude47,
}

// Weights in thousandths of a token, in the field order of `Features::as_array`. They are the
// spec's 3-decimal figures exactly (shared/spec/tokens.md, "The cheap heuristics", table
// "local"), so integer milli-tokens are exact and callers can sum them without drift.

/// o200k column of the spec's "local" table (shared/spec/tokens.md), in milli-tokens.
const OPENAI_MILLI: [u64; 11] = [758, 65, 1519, 156, 1449, 142, 551, 530, 787, 731, 1607];
/// "Claude 3…4.6 (ctok v3)" column of the spec's "local" table, in milli-tokens.
const CLAUDE_MILLI: [u64; 11] = [694, 89, 3280, 122, 1359, 202, 876, 705, 1271, 1120, 488];
/// "Opus 4.7 (ctok v4.7)" column of the spec's "local" table, in milli-tokens.
const CLAUDE47_MILLI: [u64; 11] = [431, 249, 4154, 253, 1341, 549, 584, 607, 1510, 1128, 530];

impl Family {
    /// The family's weights in milli-tokens per feature, in [`Features::as_array`] order.
    fn milli_weights(self) -> &'static [u64; 11] {
        match self {
            Family::Openai => &OPENAI_MILLI,
            Family::Claude => &CLAUDE_MILLI,
            Family::Claude47 => &CLAUDE47_MILLI,
        }
    }
}

/// The 11 counts of the spec's "local" heuristic for one text.
///
/// Counts are additive: the features of a concatenation equal the sum of the parts' features
/// as long as no run (letters, digits, punctuation, newlines, spaces) crosses the join.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Letters that do not continue a letter run, plus lower→Upper (camelCase) transitions.
    pub word_starts: u64,
    /// Alphabetic chars (ASCII and non-ASCII), CJK excluded.
    pub letters: u64,
    /// Non-ASCII letters, counted again on top of `letters`.
    pub non_ascii_letters: u64,
    /// ASCII digits `0-9`.
    pub digits: u64,
    /// ASCII digits not preceded by an ASCII digit.
    pub digit_runs: u64,
    /// ASCII punctuation chars (`char::is_ascii_punctuation`).
    pub punct: u64,
    /// ASCII punctuation chars not preceded by ASCII punctuation.
    pub punct_runs: u64,
    /// `\n` or `\r` not preceded by `\n` or `\r`.
    pub newline_runs: u64,
    /// Runs of two or more spaces/tabs, counted once per run.
    pub space_runs: u64,
    /// CJK ideographs, kana, hangul, CJK symbols and punctuation, full-width forms.
    pub cjk: u64,
    /// Other non-ASCII chars: emoji, arrows, box drawing, non-ASCII digits, marks, …
    pub other: u64,
}

impl Features {
    /// Computes all features of `text` in one pass, without allocating.
    pub fn of(text: &str) -> Features {
        let mut f = Features::default();
        let mut run = Run::default();
        f.feed(text, &mut run);
        f.add_packed(run.packed);
        f
    }

    /// The features of a text given in pieces, in order (see [`Text::for_each_piece`]): the
    /// same as of the whole, since the run state carries from one piece to the next.
    pub fn of_pieces(text: &Text) -> Features {
        let mut f = Features::default();
        let mut run = Run::default();
        text.for_each_piece(|piece| f.feed(piece, &mut run));
        f.add_packed(run.packed);
        f
    }

    /// Adds the features of `text`, which follows what `run` describes.
    fn feed(&mut self, text: &str, run: &mut Run) {
        let f = self;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // ASCII fast path, in batches that leave no 8-bit lane of `packed` room to overflow.
            // A batch goes on across pieces: escaped texts come in pieces of a few bytes.
            let end = bytes.len().min(i + BATCH - run.batched);
            let mut hit_non_ascii = false;
            let start = i;
            for &b in &bytes[i..end] {
                let c = CLASS[b as usize];
                if c == NON_ASCII {
                    hit_non_ascii = true;
                    break;
                }
                run.hist = ((run.hist << 3) | c as usize) & 0o777;
                run.packed += INC[run.hist];
                i += 1;
            }
            run.batched += i - start;
            if run.batched == BATCH {
                f.add_packed(std::mem::take(&mut run.packed));
                run.batched = 0;
            }
            if hit_non_ascii {
                // `i` sits on a char boundary: it only ever advanced over whole ASCII chars
                // and whole decoded chars.
                i += f.non_ascii_run(&text[i..], &mut run.hist);
            }
        }
    }

    /// Slow path: consumes the non-ASCII chars at the start of `rest` and returns how many
    /// bytes they took. It stops at the first ASCII char so the table path resumes there.
    fn non_ascii_run(&mut self, rest: &str, hist: &mut usize) -> usize {
        for (pos, ch) in rest.char_indices() {
            if ch.is_ascii() {
                return pos;
            }
            let prev = (*hist & 7) as u8;
            let class = if is_symbol(ch) {
                self.other += 1;
                OTHER
            } else if is_cjk(ch) {
                self.cjk += 1;
                OTHER
            } else if ch.is_alphabetic() {
                self.letters += 1;
                self.non_ascii_letters += 1;
                let upper = ch.is_uppercase();
                let prev_letter = prev == LOWER || prev == UPPER;
                if !prev_letter || (prev == LOWER && upper) {
                    self.word_starts += 1;
                }
                // Caseless letters (Arabic, Devanagari, …) continue a run like uppercase ones
                // and never start a camelCase split, so they are stored as `UPPER`.
                if ch.is_lowercase() {
                    LOWER
                } else {
                    UPPER
                }
            } else {
                self.other += 1;
                OTHER
            };
            *hist = ((*hist << 3) | class as usize) & 0o777;
        }
        rest.len()
    }

    /// Adds one batch of packed 8-bit lane counts from the ASCII fast path.
    fn add_packed(&mut self, p: u64) {
        let lane = |n: u32| (p >> (8 * n)) & 0xff;
        self.word_starts += lane(L_WORD);
        self.letters += lane(L_LETTER);
        self.digits += lane(L_DIGIT);
        self.digit_runs += lane(L_DIGIT_RUN);
        self.punct += lane(L_PUNCT);
        self.punct_runs += lane(L_PUNCT_RUN);
        self.newline_runs += lane(L_NEWLINE_RUN);
        self.space_runs += lane(L_SPACE_RUN);
    }

    /// The counts in the order of the spec's table (and of the weight tables).
    pub fn as_array(&self) -> [u64; 11] {
        [
            self.word_starts,
            self.letters,
            self.non_ascii_letters,
            self.digits,
            self.digit_runs,
            self.punct,
            self.punct_runs,
            self.newline_runs,
            self.space_runs,
            self.cjk,
            self.other,
        ]
    }

    /// The estimate in thousandths of a token. Exact integer arithmetic (the spec's weights
    /// have three decimals), so sums over many texts need rounding only once at the end.
    pub fn milli_tokens(&self, family: Family) -> u64 {
        self.as_array()
            .iter()
            .zip(family.milli_weights())
            .fold(0u64, |acc, (&n, &w)| {
                acc.saturating_add(n.saturating_mul(w))
            })
    }
}

impl AddAssign for Features {
    fn add_assign(&mut self, o: Features) {
        self.word_starts += o.word_starts;
        self.letters += o.letters;
        self.non_ascii_letters += o.non_ascii_letters;
        self.digits += o.digits;
        self.digit_runs += o.digit_runs;
        self.punct += o.punct;
        self.punct_runs += o.punct_runs;
        self.newline_runs += o.newline_runs;
        self.space_runs += o.space_runs;
        self.cjk += o.cjk;
        self.other += o.other;
    }
}

impl Add for Features {
    type Output = Features;
    fn add(mut self, o: Features) -> Features {
        self += o;
        self
    }
}

/// Estimated tokens of `text` for `family`, times 1000 (exact, see [`Features::milli_tokens`]).
/// Add these up and divide by 1000, rounding once, to get a total.
pub fn milli_tokens(text: &str, family: Family) -> u64 {
    Features::of(text).milli_tokens(family)
}

/// [`milli_tokens`] of a part's text, read piece by piece so that an escaped text is never
/// decoded into a string of its own.
pub fn text_milli_tokens(text: &Text, family: Family) -> u64 {
    Features::of_pieces(text).milli_tokens(family)
}

/// The weighted feature sum for `family`: the estimated token count as a float.
pub fn weighted(features: &Features, family: Family) -> f64 {
    features.milli_tokens(family) as f64 / 1000.0
}

/// True for the scripts the spec lumps into "CJK chars": ideographs, kana, hangul, CJK
/// symbols and punctuation, and the half/full-width forms block.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF     // Hangul Jamo
        | 0x2E80..=0x9FFF   // radicals, CJK symbols & punct., kana, bopomofo, ext. A, unified
        | 0xA960..=0xA97F   // Hangul Jamo extended-A
        | 0xAC00..=0xD7FF   // Hangul syllables, Jamo extended-B
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFE30..=0xFE4F   // CJK compatibility forms (vertical punctuation)
        | 0xFF00..=0xFFEF   // half-width and full-width forms
        | 0x1B000..=0x1B16F // kana supplement / extended
        | 0x20000..=0x3FFFF // ideograph extensions B… and compatibility supplement
    )
}

/// The most ASCII bytes whose increments [`Run::packed`] adds up before they are counted:
/// each 8-bit lane of it grows by at most one a byte.
const BATCH: usize = 255;

/// Where a text's reading stands between its pieces.
#[derive(Default)]
struct Run {
    /// Classes of the last three chars, as the low 9 bits of an `INC` index. Start of text is
    /// `OTHER`, which continues no run.
    hist: usize,
    /// The ASCII increments not yet added, as eight 8-bit lanes.
    packed: u64,
    /// How many bytes `packed` holds increments of.
    batched: usize,
}

/// Arrows, box drawing and block elements: the non-ASCII chars transcripts hold most (`→` in
/// tool output, `─│├└` in trees), none of them a letter. Telling them apart first spares each
/// a search of the alphabetic tables, which cost more than all the rest of its counting.
fn is_symbol(c: char) -> bool {
    matches!(c as u32, 0x2190..=0x21FF | 0x2500..=0x259F)
}

// Char classes. `NON_ASCII` only appears in `CLASS`, to leave the fast path; the slow path
// records non-ASCII chars in the history as `LOWER`, `UPPER` or `OTHER`.
const OTHER: u8 = 0; // controls, and anything that continues no run
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const DIGIT: u8 = 3;
const PUNCT: u8 = 4;
const NEWLINE: u8 = 5;
const SPACE: u8 = 6; // ' ' and '\t'
const NON_ASCII: u8 = 7;

// Lanes of the packed ASCII increments (bits 8n..8n+8).
const L_WORD: u32 = 0;
const L_LETTER: u32 = 1;
const L_DIGIT: u32 = 2;
const L_DIGIT_RUN: u32 = 3;
const L_PUNCT: u32 = 4;
const L_PUNCT_RUN: u32 = 5;
const L_NEWLINE_RUN: u32 = 6;
const L_SPACE_RUN: u32 = 7;

/// Byte → char class; bytes ≥ 0x80 are `NON_ASCII`.
static CLASS: [u8; 256] = class_table();

/// (class two back, class one back, class now) as 3-bit digits → packed feature increments.
/// Replaces every per-byte comparison of the hot loop with one load.
static INC: [u64; 512] = inc_table();

const fn class_table() -> [u8; 256] {
    let mut t = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_lowercase() {
            LOWER
        } else if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_digit() {
            DIGIT
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else if c == b'\n' || c == b'\r' {
            NEWLINE
        } else if c == b' ' || c == b'\t' {
            SPACE
        } else {
            OTHER
        };
        b += 1;
    }
    t
}

const fn inc_table() -> [u64; 512] {
    let mut t = [0u64; 512];
    let mut idx = 0;
    while idx < 512 {
        t[idx] = increments((idx >> 6) as u8, ((idx >> 3) & 7) as u8, (idx & 7) as u8);
        idx += 1;
    }
    t
}

/// A count of one in `lane` of a packed increment.
const fn one(lane: u32) -> u64 {
    1u64 << (8 * lane)
}

/// The feature definitions for an ASCII char of class `cur`, given the classes of the two
/// chars before it. This is the single place the ASCII rules live.
const fn increments(before_prev: u8, prev: u8, cur: u8) -> u64 {
    match cur {
        LOWER | UPPER => {
            let prev_letter = prev == LOWER || prev == UPPER;
            let camel = prev == LOWER && cur == UPPER;
            let start = if !prev_letter || camel {
                one(L_WORD)
            } else {
                0
            };
            one(L_LETTER) | start
        }
        DIGIT => one(L_DIGIT) | if prev != DIGIT { one(L_DIGIT_RUN) } else { 0 },
        PUNCT => one(L_PUNCT) | if prev != PUNCT { one(L_PUNCT_RUN) } else { 0 },
        NEWLINE if prev != NEWLINE => one(L_NEWLINE_RUN),
        // The second char of a space run marks it as "length ≥ 2", exactly once per run.
        SPACE if prev == SPACE && before_prev != SPACE => one(L_SPACE_RUN),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(pairs: &[(&str, u64)]) -> Features {
        let mut f = Features::default();
        for &(k, v) in pairs {
            let slot = match k {
                "word" => &mut f.word_starts,
                "letter" => &mut f.letters,
                "nal" => &mut f.non_ascii_letters,
                "digit" => &mut f.digits,
                "drun" => &mut f.digit_runs,
                "punct" => &mut f.punct,
                "prun" => &mut f.punct_runs,
                "nl" => &mut f.newline_runs,
                "sp" => &mut f.space_runs,
                "cjk" => &mut f.cjk,
                "other" => &mut f.other,
                _ => panic!("unknown feature {k}"),
            };
            *slot = v;
        }
        f
    }

    #[test]
    fn the_symbols_counted_without_a_table_search_are_no_letters_and_no_cjk() {
        let symbols = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_symbol(c));
        let mut seen = 0;
        for c in symbols {
            assert!(!c.is_alphabetic() && !is_cjk(c) && !c.is_ascii(), "{c:?}");
            seen += 1;
        }
        assert_eq!(seen, 0x70 + 0xA0);
    }

    #[test]
    fn features_of_an_escaped_text_read_in_pieces_are_those_of_the_whole() {
        let body = r#"fn main() {\n    println!(\"héllo\");\n}\n\n\tcafé \u4e2d\u6587 x2  y\r\n"#;
        let raw = format!("\"{body}\"");
        let text = crate::transcript::scan::json_text(&raw).unwrap();
        let whole = Features::of(&serde_json::from_str::<String>(&format!("\"{body}\"")).unwrap());
        assert_eq!(Features::of_pieces(&text), whole);
    }

    #[test]
    fn camel_case_call() {
        // parse|Json|Line ( 42 ): 13 letters, 3 words, one digit run, "(" and ")" apart.
        let want = feats(&[
            ("word", 3),
            ("letter", 13),
            ("digit", 2),
            ("drun", 1),
            ("punct", 2),
            ("prun", 2),
        ]);
        assert_eq!(Features::of("parseJsonLine(42)"), want);
    }

    #[test]
    fn acronyms_split_only_lower_to_upper() {
        assert_eq!(Features::of("HTTPServer").word_starts, 1);
        assert_eq!(Features::of("getHTTPResponse").word_starts, 2);
        assert_eq!(Features::of("snake_case_name").word_starts, 3);
        assert_eq!(Features::of("abc123def").word_starts, 2);
    }

    #[test]
    fn digits_and_punct_runs() {
        let want = feats(&[
            ("word", 1),
            ("letter", 1),
            ("digit", 6),
            ("drun", 4),
            ("punct", 2),
            ("prun", 2),
            ("sp", 0),
        ]);
        assert_eq!(Features::of("x1 2,345.6"), want);
        // {"a":1} → `{"`, `":`, `}` are three punctuation runs of five chars.
        let json = Features::of(r#"{"a":1}"#);
        assert_eq!((json.punct, json.punct_runs), (5, 3));
    }

    #[test]
    fn cjk() {
        // 你 好 ，(U+FF0C full-width) 世 界 。(U+3002), then Hangul and kana.
        assert_eq!(Features::of("你好，世界。"), feats(&[("cjk", 6)]));
        assert_eq!(Features::of("한국어 カタカナ"), feats(&[("cjk", 7)]));
    }

    #[test]
    fn emoji_arrows_box_drawing_and_foreign_digits() {
        let want = feats(&[("word", 1), ("letter", 2), ("other", 3)]);
        assert_eq!(Features::of("ok 👍→│"), want);
        // Arabic-Indic digit three and a no-break space are "other", not digits or spaces.
        assert_eq!(Features::of("\u{0663}\u{00A0}"), feats(&[("other", 2)]));
    }

    #[test]
    fn non_ascii_letters() {
        let want = feats(&[("word", 2), ("letter", 11), ("nal", 3)]);
        assert_eq!(Features::of("café Ünïcode"), want);
        // é is lowercase, so a following capital starts a new word.
        assert_eq!(Features::of("éA").word_starts, 2);
        // Cyrillic continues a run of ASCII letters.
        assert_eq!(Features::of("abcд").word_starts, 1);
    }

    #[test]
    fn crlf_newline_runs() {
        let want = feats(&[("word", 3), ("letter", 3), ("nl", 2)]);
        assert_eq!(Features::of("a\r\nb\r\n\r\nc"), want);
        assert_eq!(Features::of("\n \n").newline_runs, 2);
    }

    #[test]
    fn multiple_spaces_counted_once_per_run() {
        let want = feats(&[("word", 5), ("letter", 5), ("sp", 3)]);
        assert_eq!(Features::of("a  b   c d\t\te"), want);
        assert_eq!(Features::of("        ").space_runs, 1);
        assert_eq!(Features::of(" \t").space_runs, 1);
    }

    #[test]
    fn empty_string() {
        assert_eq!(Features::of(""), Features::default());
        for family in [Family::Openai, Family::Claude, Family::Claude47] {
            assert_eq!(milli_tokens("", family), 0);
            assert_eq!(weighted(&Features::default(), family), 0.0);
        }
    }

    #[test]
    fn long_text_crosses_batches() {
        // Far longer than one 255-byte batch, so lane flushing and batch joins are exercised.
        let unit = "fooBar 123 x  y,\n";
        let text = unit.repeat(1000);
        let one = Features::of(unit);
        let all = Features::of(&text);
        assert_eq!(all.letters, one.letters * 1000);
        assert_eq!(all.word_starts, one.word_starts * 1000);
        assert_eq!(all.space_runs, 1000);
        assert_eq!(all.newline_runs, 1000);
        assert_eq!(all.punct, 1000);
    }

    /// Which run a char would continue, if any; a split between two chars of the same run
    /// kind is the only place additivity may fail.
    fn run_kind(c: char) -> u8 {
        let f = Features::of(c.encode_utf8(&mut [0; 4]));
        if f.letters > 0 {
            1
        } else if f.digits > 0 {
            2
        } else if f.punct > 0 {
            3
        } else if c == '\n' || c == '\r' {
            4
        } else if c == ' ' || c == '\t' {
            5
        } else {
            0
        }
    }

    #[test]
    fn additive_across_splits_where_no_run_crosses() {
        let text = "fooBar(42) 日本語 👍 naïve\r\n  x: [1, 2]\t\tÉcole→done";
        let whole = Features::of(text);
        let mut checked = 0;
        for (k, right_first) in text.char_indices().skip(1) {
            let left_last = text[..k].chars().next_back().unwrap();
            let kind = run_kind(left_last);
            if kind != 0 && kind == run_kind(right_first) {
                continue;
            }
            let mut sum = Features::of(&text[..k]);
            sum += Features::of(&text[k..]);
            assert_eq!(sum, whole, "split at byte {k}");
            assert_eq!(Features::of(&text[..k]) + Features::of(&text[k..]), whole);
            checked += 1;
        }
        assert!(checked > 20);
    }

    /// Char-by-char restatement of the definitions, written for clarity, not speed.
    fn reference(text: &str) -> Features {
        let mut f = Features::default();
        let is_letter = |c: char| c.is_alphabetic() && !is_cjk(c);
        let is_space = |c: char| c == ' ' || c == '\t';
        let is_nl = |c: char| c == '\n' || c == '\r';
        let (mut p2, mut p1): (Option<char>, Option<char>) = (None, None);
        for c in text.chars() {
            let prev_letter = p1.is_some_and(is_letter);
            if is_letter(c) {
                f.letters += 1;
                f.non_ascii_letters += u64::from(!c.is_ascii());
                let camel = p1.is_some_and(|p| p.is_lowercase()) && c.is_uppercase();
                f.word_starts += u64::from(!prev_letter || camel);
            } else if c.is_ascii_digit() {
                f.digits += 1;
                f.digit_runs += u64::from(!p1.is_some_and(|p| p.is_ascii_digit()));
            } else if c.is_ascii_punctuation() {
                f.punct += 1;
                f.punct_runs += u64::from(!p1.is_some_and(|p| p.is_ascii_punctuation()));
            } else if is_nl(c) {
                f.newline_runs += u64::from(!p1.is_some_and(is_nl));
            } else if is_space(c) {
                let second = p1.is_some_and(is_space) && !p2.is_some_and(is_space);
                f.space_runs += u64::from(second);
            } else if is_cjk(c) {
                f.cjk += 1;
            } else if !c.is_ascii() {
                f.other += 1;
            }
            (p2, p1) = (p1, Some(c));
        }
        f
    }

    #[test]
    fn fast_path_matches_reference_on_generated_text() {
        let alphabet: Vec<char> = "aZ9_. \t\n\r\x07éÉßдД日ｱ한👍─٣\u{301}ǅ{\""
            .chars()
            .collect();
        // A fixed LCG keeps the test deterministic without a dependency.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut text = String::new();
        for round in 0..300 {
            text.clear();
            for _ in 0..(round * 7) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            assert_eq!(Features::of(&text), reference(&text), "{text:?}");
        }
    }

    #[test]
    fn family_weights_differ() {
        let text = "fn main() {\n    println!(\"héllo 世界 🚀\");\n}\n";
        let f = Features::of(text);
        let o = f.milli_tokens(Family::Openai);
        let c = f.milli_tokens(Family::Claude);
        let c47 = f.milli_tokens(Family::Claude47);
        assert!(o != c && c != c47 && o != c47, "{o} {c} {c47}");
        // Opus 4.7's tokenizer is the densest on code-like text.
        assert!(c47 > o);
        assert_eq!(milli_tokens(text, Family::Openai), o);
        assert_eq!(weighted(&f, Family::Claude), c as f64 / 1000.0);
    }

    #[test]
    fn weights_match_spec_exactly() {
        // parseJsonLine(42): 3 words, 13 letters, 2 digits, 1 digit run, 2 punct, 2 punct runs.
        let f = Features::of("parseJsonLine(42)");
        let o = 3 * 758 + 13 * 65 + 2 * 156 + 1449 + 2 * 142 + 2 * 551;
        assert_eq!(f.milli_tokens(Family::Openai), o);
        let emoji = Features::of("🚀");
        assert_eq!(weighted(&emoji, Family::Openai), 1.607);
        assert_eq!(weighted(&emoji, Family::Claude), 0.488);
        assert_eq!(weighted(&emoji, Family::Claude47), 0.530);
    }
}
