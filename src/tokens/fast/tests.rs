//! Tests of the fast estimate: its definitions, and the chunked reading against a
//! char-by-char restatement of them.

use super::scalar::{is_cjk, is_symbol};
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
fn features_of_an_escaped_text_read_as_it_stands_are_those_of_the_whole() {
    let body = r#"fn main() {\n    println!(\"héllo\");\n}\n\n\tcafé \u4e2d\u6587 x2  y\r\n"#;
    let raw = format!("\"{body}\"");
    let text = crate::transcript::scan::json_text(&raw).unwrap();
    let whole = Features::of(&serde_json::from_str::<String>(&format!("\"{body}\"")).unwrap());
    assert_eq!(Features::of_text(&text), whole);
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

/// A fixed LCG, so generated texts are the same on every run without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.next() % from.len()]
    }
}

/// Pieces of text to build test texts from: each class of char alone and in short runs, the
/// bytes JSON escapes, controls, and non-ASCII letters (both cases and caseless), CJK,
/// symbols, marks and astral chars.
const UNITS: &[&str] = &[
    "a", "q", "Z", "aB", "Ab", "xyz", "9", "12", ".", "{\"", "/", "_", " ", "  ", "\t", "\n",
    "\r\n", "\\", "\"", "\\\\", "\u{0}", "\x07", "\x08", "\x0c", "\x1f", "\x7f", "é", "É", "ß",
    "д", "Д", "ǅ", "ا", "日", "ｱ", "한", "👍", "─", "→", "٣", "\u{301}", "\u{a0}", "𝔸",
];

/// A text of about `len` bytes from [`UNITS`].
fn generated(rng: &mut Lcg, len: usize) -> String {
    let mut text = String::new();
    while text.len() < len {
        text.push_str(rng.pick(UNITS));
    }
    text
}

#[test]
fn chunked_reading_matches_reference_on_generated_texts_of_every_length() {
    let mut rng = Lcg(0x2545_F491_4F6C_DD1D);
    for len in 0..=200 {
        for _ in 0..8 {
            let text = generated(&mut rng, len);
            assert_eq!(Features::of(&text), reference(&text), "{text:?}");
        }
    }
}

#[test]
fn runs_crossing_a_chunk_boundary_at_every_offset_match_reference() {
    let runs = [
        "abcdefgh",
        "aBcDeF",
        "ABCdef",
        "0123456789",
        "!!!!!!",
        "\n\n\r\n",
        "      ",
        " \t ",
        "a1.b2,",
        "xY",
        "\\\\\\",
        "é",
        "éA",
        "a\u{0}b",
    ];
    // A non-ASCII lead moves where the chunks start.
    for lead in ["", "é", "日本", "👍x"] {
        for filler in ["x", "X", " ", "1", ".", "\n", "\u{0}"] {
            for offset in 0..=130 {
                for run in runs {
                    let text = format!("{lead}{}{run}{}", filler.repeat(offset), filler.repeat(3));
                    assert_eq!(Features::of(&text), reference(&text), "{text:?}");
                }
            }
        }
    }
}

/// `text` as the body of a JSON string, each char written as it is where JSON allows that, or
/// by one of its escapes, chosen by `rng`; now and then a lone surrogate escape, which reads
/// as U+FFFD. Returns the body and whether it holds a lone surrogate.
fn escaped_body(rng: &mut Lcg, text: &str) -> (String, bool) {
    let mut body = String::new();
    let mut lone = false;
    for c in text.chars() {
        if rng.next().is_multiple_of(23) {
            body.push_str(["\\ud83d", "\\uDE00", "\\udbff"][rng.next() % 3]);
            lone = true;
        }
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            _ => None,
        };
        let must_escape = c == '"' || c == '\\' || c < ' ';
        // Half the chars as they are, where they may be; most of the rest by their short
        // escape, if they have one; the others as `\u` escapes, in either case of hex.
        let choice = rng.next() % 4;
        match short {
            _ if choice < 2 && !must_escape => body.push(c),
            Some(short) if choice < 3 => body.push_str(short),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    if rng.next().is_multiple_of(2) {
                        body.push_str(&format!("\\u{unit:04x}"));
                    } else {
                        body.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            }
        }
    }
    (body, lone)
}

/// Checks that `body`, read as it stands, has the features of what it decodes to.
fn check_escaped(body: &str, lone_surrogate: bool) {
    let raw = format!("\"{body}\"");
    let text = crate::transcript::scan::json_text(&raw).expect("a valid body");
    assert_eq!(text.escaped_body().is_some(), body.contains('\\'), "{body}");
    let raw_features = Features::of_text(&text);
    let decoded = text.as_str().to_owned();
    if !lone_surrogate {
        let serde: String = serde_json::from_str(&raw).unwrap();
        assert_eq!(decoded, serde, "{body}");
    }
    assert_eq!(raw_features, reference(&decoded), "{body}");
    assert_eq!(raw_features, Features::of(&decoded), "{body}");
    // Decoded once, the text is read as a plain string, with the same result.
    assert_eq!(Features::of_text(&text), raw_features, "{body}");
}

#[test]
fn escaped_bodies_read_as_they_stand_match_their_decoding() {
    let mut rng = Lcg(0x9E37_79B9_7F4A_7C15);
    for len in 0..=200 {
        for _ in 0..8 {
            let text = generated(&mut rng, len);
            let (body, lone) = escaped_body(&mut rng, &text);
            check_escaped(&body, lone);
        }
    }
}

#[test]
fn escapes_at_every_offset_of_a_chunk_match_their_decoding() {
    let escapes = [
        r"\n",
        r"\r\n",
        r"\t\t",
        r"\\",
        r"\\n",
        r#"\""#,
        r"\/",
        r"\b",
        r"\f",
        r"\u0041",
        r"\u0061B",
        r"\u00e9",
        r"\u65e5",
        r"\ud83d\ude00",
        r"\ud83d",
        r"\ude00x",
        r"\ud83d\u0041",
        r"\u000a\u000A",
        r"\u0020 ",
        r"\u0009\t",
        r"\u005c",
        r"\\\\\\",
        r"\\u0041",
        r"é\n",
    ];
    for filler in ["a", "A", " ", "1", ".", r"\n", "é"] {
        for offset in 0..=130 {
            for escape in escapes {
                let body = format!("{}{escape}{}", filler.repeat(offset), filler.repeat(3));
                let lone = [r"\ud83d", r"\ude00"]
                    .iter()
                    .any(|lone| body.contains(lone) && !body.contains(r"\ud83d\ude00"));
                check_escaped(&body, lone);
            }
        }
    }
}

proptest::proptest! {
    #[test]
    fn any_string_escaped_by_serde_json_reads_as_the_string(text in ".{0,300}") {
        let raw = serde_json::to_string(&text).unwrap();
        let body = &raw[1..raw.len() - 1];
        let parsed = crate::transcript::scan::json_text(&raw).unwrap();
        proptest::prop_assert_eq!(Features::of_text(&parsed), reference(&text), "{}", body);
        proptest::prop_assert_eq!(Features::of(&text), reference(&text));
    }

    #[test]
    fn mostly_ascii_strings_read_raw_and_decoded_alike(
        text in "[a-zA-Z0-9 \t\n\r\\\\\"/{}.,:_é日👍\u{0}-\u{1f}]{0,300}"
    ) {
        let raw = serde_json::to_string(&text).unwrap();
        let parsed = crate::transcript::scan::json_text(&raw).unwrap();
        proptest::prop_assert_eq!(Features::of_text(&parsed), reference(&text));
        proptest::prop_assert_eq!(Features::of(&text), reference(&text));
    }
}

#[test]
fn a_model_name_picks_its_tokenizer_family() {
    for (model, family) in [
        ("claude-opus-4-6", Family::Claude),
        ("claude-sonnet-4-5-20250929", Family::Claude),
        (
            "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
            Family::Claude,
        ),
        ("claude-opus-4-7", Family::Claude47),
        ("anthropic/Claude-Opus-4.7", Family::Claude47),
        ("gpt-5.1-codex-max", Family::Openai),
        ("gemini-3-flash-preview", Family::Openai),
        ("kimi-k2", Family::Openai),
        ("", Family::Openai),
    ] {
        assert_eq!(Family::of_model(model), family, "{model}");
    }
}
