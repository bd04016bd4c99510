//! The 11 counts of the spec's "local" heuristic ([`Features`]): what [`super`] weighs into an
//! estimate and what the readers (`walk`, `chunk`, `scalar`) count into.

use std::ops::{Add, AddAssign};

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
