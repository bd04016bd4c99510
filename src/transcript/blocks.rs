//! Deserialisation pieces several formats share: content that is either a string or a list,
//! numbers read leniently, and Anthropic content blocks (used by `anthropic` and `claude-code`).
//!
//! Everything deserialises straight from the line into flat structs with borrowed strings; no
//! `serde_json::Value` tree is built for ordinary lines, which keeps reading fast.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::scan;
use super::text::Text;
use super::{MediaKind, Part};

/// A JSON field that holds either a string or a list of `T` (`content` in most formats).
/// `null` reads as an empty list.
#[derive(Debug)]
pub enum StrOrSeq<'a, T> {
    /// The bare-string form.
    Str(Text<'a>),
    /// The list form.
    Seq(Vec<T>),
}

impl<T> Default for StrOrSeq<'_, T> {
    fn default() -> Self {
        StrOrSeq::Seq(Vec::new())
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for StrOrSeq<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrOrSeqVisitor<'a, T>(PhantomData<(&'a (), T)>);

        impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for StrOrSeqVisitor<'a, T> {
            type Value = StrOrSeq<'a, T>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a list")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(StrOrSeq::Str(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(StrOrSeq::Str(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(StrOrSeq::Str(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StrOrSeq::Seq(Vec::new()))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(StrOrSeq::Seq(Vec::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(StrOrSeq::Seq(items))
            }
        }

        deserializer.deserialize_any(StrOrSeqVisitor(PhantomData))
    }
}

/// A string that borrows from the line unless it has escapes.
#[derive(serde::Deserialize)]
pub struct BorrowedStr<'a>(#[serde(borrow)] pub Cow<'a, str>);

/// An optional string that borrows from the line unless it has escapes, for
/// `#[serde(borrow, deserialize_with = "borrowed_str")]` on an `Option<Cow<str>>` field: serde
/// borrows a bare `Cow<str>` field but always copies one inside an `Option`.
pub fn borrowed_str<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    Ok(Option::<BorrowedStr<'a>>::deserialize(deserializer)?.map(|text| text.0))
}

/// [`borrowed_str`] for a field that holds a part's [`Text`].
pub fn borrowed_text<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Text<'a>>, D::Error> {
    Ok(borrowed_str(deserializer)?.map(Text::from))
}

/// A value kept as its raw JSON text, for
/// `#[serde(borrow, deserialize_with = "raw_json")]` on an `Option<&str>` field (`null` is
/// `None`, as for a `RawValue`).
pub fn raw_json<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'a str>, D::Error> {
    Ok(Option::<&'a RawValue>::deserialize(deserializer)?.map(RawValue::get))
}

/// A count read leniently: any non-negative number becomes `Some`, anything else (a string, a
/// negative or fractional number out of range, an object) becomes `None` instead of failing the
/// whole line. Usage figures are advisory; a strange one must not make a transcript unreadable.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LenientU64(pub Option<u64>);

impl<'de> Deserialize<'de> for LenientU64 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LenientVisitor;

        impl<'de> Visitor<'de> for LenientVisitor {
            type Value = LenientU64;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LenientU64(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LenientU64(u64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                let whole = v.is_finite() && v >= 0.0 && v < u64::MAX as f64;
                Ok(LenientU64(whole.then_some(v as u64)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LenientU64(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LenientU64(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LenientU64(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LenientU64(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientU64(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientU64(None))
            }
        }

        deserializer.deserialize_any(LenientVisitor)
    }
}

impl LenientU64 {
    /// The value, or 0 when absent or unreadable.
    pub fn or_zero(self) -> u64 {
        self.0.unwrap_or(0)
    }

    /// The value the walk stands at, read as [`Deserialize`] reads it; `None` where the walk
    /// gives up and serde must read it: a fraction or exponent (serde's float rounding decides
    /// those), an object or array (whose contents serde checks), or no valid JSON value.
    pub fn walk(walk: &mut scan::Walk<'_, '_>) -> Option<Self> {
        match walk.peek()? {
            b'"' => walk.string().map(|_| LenientU64(None)),
            b't' | b'f' | b'n' => {
                matches!(walk.value()?, "true" | "false" | "null").then_some(LenientU64(None))
            }
            b'-' | b'0'..=b'9' => walk.integer().map(LenientU64),
            _ => None,
        }
    }
}

/// The counts named `keys` of the object the walk stands at, read as serde reads a struct of
/// [`LenientU64`] fields with those names (absent ones are none, other members are skipped);
/// `None` where the walk gives up and serde must read the object.
pub fn walk_counts<const N: usize>(
    walk: &mut scan::Walk<'_, '_>,
    keys: [&str; N],
) -> Option<[LenientU64; N]> {
    let mut counts = [LenientU64(None); N];
    walk.fields(keys, |field, walk| {
        counts[field] = LenientU64::walk(walk)?;
        Some(())
    })?;
    Some(counts)
}

/// The `usage` value the walk stands at: its JSON text (`None` for `null`) and, read from the
/// same place, its counts named `keys` when the walk can read them (see [`walk_counts`]).
pub fn walk_usage<'a, const N: usize>(
    walk: &mut scan::Walk<'_, 'a>,
    keys: [&str; N],
) -> Option<(Option<&'a str>, Option<[LenientU64; N]>)> {
    let mut counts = walk.clone();
    let raw = walk.raw()?;
    Some((raw, raw.and_then(|_| walk_counts(&mut counts, keys))))
}

/// The counts of a `usage` object: those the walk read, or else those serde reads from its
/// JSON text `raw` as a `T`, which `counts` lists; `None` without a usage or when serde
/// cannot read it.
pub fn usage_counts<T: de::DeserializeOwned, const N: usize>(
    walked: Option<[LenientU64; N]>,
    raw: Option<&str>,
    counts: impl FnOnce(T) -> [LenientU64; N],
) -> Option<[LenientU64; N]> {
    match walked {
        Some(walked) => Some(walked),
        None => serde_json::from_str(raw?).ok().map(counts),
    }
}

/// An Anthropic Messages API content block, flattened: every field any block type uses.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
pub struct AnthropicBlock<'a> {
    /// `text`, `thinking`, `tool_use`, `tool_result`, `image`, …
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub kind: Option<Cow<'a, str>>,
    /// Text of a `text` block.
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub text: Option<Text<'a>>,
    /// Reasoning of a `thinking` block.
    #[serde(borrow, deserialize_with = "borrowed_text")]
    pub thinking: Option<Text<'a>>,
    /// Id of a `tool_use` block (and of the server and MCP tool-use blocks).
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub id: Option<Cow<'a, str>>,
    /// Tool name of a `tool_use` block.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub name: Option<Cow<'a, str>>,
    /// Arguments of a `tool_use` block, as raw JSON.
    #[serde(borrow, deserialize_with = "raw_json")]
    pub input: Option<&'a str>,
    /// The `tool_use` id a `tool_result` block (or another `…tool_result` block) answers.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub tool_use_id: Option<Cow<'a, str>>,
    /// Content of a `tool_result` block: a string or nested blocks.
    #[serde(borrow)]
    pub content: Option<StrOrSeq<'a, AnthropicBlock<'a>>>,
}

impl<'a, T> StrOrSeq<'a, T> {
    /// The content the walk stands at (see [`scan::Walk`]), with `item` reading each element
    /// of a list; `None` when the walk gives up, and serde must read it.
    pub fn walk(
        walk: &mut scan::Walk<'_, 'a>,
        item: impl Fn(&mut scan::Walk<'_, 'a>) -> Option<T>,
    ) -> Option<Self> {
        Self::walk_into(walk, |walk, items| {
            items.push(item(walk)?);
            Some(())
        })
    }

    /// As [`StrOrSeq::walk`], with `items` reading each element of a list into the items so
    /// far: an element may stand for several items (an Anthropic tool result for its parts).
    pub fn walk_into(
        walk: &mut scan::Walk<'_, 'a>,
        mut items: impl FnMut(&mut scan::Walk<'_, 'a>, &mut Vec<T>) -> Option<()>,
    ) -> Option<Self> {
        match walk.peek()? {
            b'"' => walk.string().map(StrOrSeq::Str),
            b'[' => {
                let mut list = Vec::new();
                walk.array(|walk| items(walk, &mut list))?;
                // Every message's parts are held until the file is read, and most messages
                // have one or two, for which a Vec reserves four: let the rest go.
                list.shrink_to_fit();
                Some(StrOrSeq::Seq(list))
            }
            _ => walk.null()?.then(|| StrOrSeq::Seq(Vec::new())),
        }
    }
}

impl<'a> AnthropicBlock<'a> {
    /// The keys a block's walk reads, in the order of the fields.
    const KEYS: [&'static str; 8] = [
        "type",
        "text",
        "thinking",
        "id",
        "name",
        "input",
        "tool_use_id",
        "content",
    ];

    /// The block the walk stands at, read as serde would read it; `None` when the walk gives
    /// up (anything but the plain shape), and serde must read it.
    pub fn walk(walk: &mut scan::Walk<'_, 'a>) -> Option<Self> {
        let mut block = AnthropicBlock::default();
        walk.fields(Self::KEYS, |field, walk| {
            match field {
                0 => block.kind = walk.optional_str()?,
                1 => block.text = walk.optional_string()?,
                2 => block.thinking = walk.optional_string()?,
                3 => block.id = walk.optional_str()?,
                4 => block.name = walk.optional_str()?,
                5 => block.input = walk.raw()?,
                6 => block.tool_use_id = walk.optional_str()?,
                _ => {
                    block.content = match walk.null()? {
                        true => None,
                        false => Some(StrOrSeq::walk(walk, AnthropicBlock::walk)?),
                    }
                }
            }
            Some(())
        })?;
        Some(block)
    }
}

/// Anthropic content (a string or blocks) with each block read into its model parts as it is
/// read: a block is over three times a part's size, and a list of blocks kept only to be turned
/// into parts cost an allocation and a copy of every block.
pub type AnthropicContent<'a> = StrOrSeq<'a, Part<'a>>;

/// The content the walk stands at (see [`StrOrSeq::walk`]). The parts are held no larger than
/// they are: most messages have one or two, and a list grown part by part has room for four, so
/// a whole session read into memory (`compact`, `caveman`) held twice the parts it had.
pub fn walk_anthropic_content<'a>(walk: &mut scan::Walk<'_, 'a>) -> Option<AnthropicContent<'a>> {
    let mut content = StrOrSeq::walk_into(walk, |walk, parts| {
        push_anthropic_block(AnthropicBlock::walk(walk)?, parts);
        Some(())
    })?;
    if let StrOrSeq::Seq(parts) = &mut content {
        parts.shrink_to_fit();
    }
    Some(content)
}

/// Anthropic content as serde reads it, for
/// `#[serde(deserialize_with = "deserialize_anthropic_content")]`.
pub fn deserialize_anthropic_content<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<AnthropicContent<'a>, D::Error> {
    let content = StrOrSeq::<AnthropicBlock>::deserialize(deserializer)?;
    Ok(match content {
        StrOrSeq::Str(text) => StrOrSeq::Str(text),
        StrOrSeq::Seq(blocks) => {
            let mut parts = Vec::with_capacity(blocks.len());
            for block in blocks {
                push_anthropic_block(block, &mut parts);
            }
            StrOrSeq::Seq(parts)
        }
    })
}

/// The model parts of Anthropic content read as [`AnthropicContent`].
pub fn anthropic_parts(content: AnthropicContent<'_>) -> Vec<Part<'_>> {
    match content {
        StrOrSeq::Str(text) => vec![Part::Text(text)],
        StrOrSeq::Seq(parts) => parts,
    }
}

fn push_anthropic_block<'a>(block: AnthropicBlock<'a>, parts: &mut Vec<Part<'a>>) {
    let kind = block.kind.unwrap_or(Cow::Borrowed(""));
    match kind.as_ref() {
        "text" => parts.push(Part::Text(block.text.unwrap_or_default())),
        "thinking" => parts.push(Part::Thinking(block.thinking.unwrap_or_default())),
        // Redacted thinking is an encrypted blob: no readable text reaches a tokenizer.
        "redacted_thinking" => parts.push(Part::Thinking(Cow::Borrowed("").into())),
        "tool_use" | "server_tool_use" | "mcp_tool_use" => parts.push(Part::ToolCall {
            id: block.id,
            name: block.name.unwrap_or_default(),
            arguments: block.input.unwrap_or("{}").into(),
        }),
        "image" => parts.push(Part::Media(MediaKind::Image)),
        "document" => parts.push(Part::Media(MediaKind::Document)),
        _ if kind.ends_with("tool_result") => {
            push_tool_result(block.tool_use_id, block.content, parts)
        }
        _ => parts.push(Part::Other(kind)),
    }
}

/// A tool result becomes one [`Part::ToolResult`] answering `call_id` (its `tool_use_id`), with
/// its text parts joined by newlines, followed by any media it carried (screenshots returned by
/// a tool).
fn push_tool_result<'a>(
    call_id: Option<Cow<'a, str>>,
    content: Option<StrOrSeq<'a, AnthropicBlock<'a>>>,
    parts: &mut Vec<Part<'a>>,
) {
    match content.unwrap_or_default() {
        StrOrSeq::Str(text) => parts.push(Part::ToolResult { call_id, text }),
        StrOrSeq::Seq(blocks) => {
            let mut texts: Vec<Text<'a>> = Vec::new();
            let mut extras = Vec::new();
            for block in blocks {
                match block.kind.as_deref() {
                    Some("text") => texts.push(block.text.unwrap_or_default()),
                    _ => push_anthropic_block(block, &mut extras),
                }
            }
            parts.push(Part::ToolResult {
                call_id,
                text: join_texts(texts),
            });
            parts.extend(extras);
        }
    }
}

/// Joins text pieces with newlines, keeping a lone one as it is (borrowed, or still escaped).
pub fn join_texts<'a, T: Into<Text<'a>>>(texts: Vec<T>) -> Text<'a> {
    let mut texts: Vec<Text<'a>> = texts.into_iter().map(Into::into).collect();
    match texts.len() {
        0 => Text::default(),
        1 => texts.pop().unwrap_or_default(),
        _ => texts
            .iter()
            .map(Text::as_str)
            .collect::<Vec<&str>>()
            .join("\n")
            .into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_reads_string_list_and_null() {
        let s: StrOrSeq<AnthropicBlock> = serde_json::from_str(r#""hi""#).unwrap();
        assert!(matches!(s, StrOrSeq::Str(ref text) if text.is_borrowed() && *text == "hi"));
        let l: StrOrSeq<AnthropicBlock> =
            serde_json::from_str(r#"[{"type":"text","text":"a"}]"#).unwrap();
        assert!(matches!(l, StrOrSeq::Seq(ref v) if v.len() == 1));
        let n: StrOrSeq<AnthropicBlock> = serde_json::from_str("null").unwrap();
        assert!(matches!(n, StrOrSeq::Seq(ref v) if v.is_empty()));
    }

    #[test]
    fn walked_counts_read_what_serde_reads_or_leave_it_to_serde() {
        let serde = |s: &str| serde_json::from_str::<LenientU64>(s).ok();
        for value in [
            "0",
            "42",
            "-0",
            "-7",
            "18446744073709551615",
            "18446744073709551616",
            "184467440737095516150",
            "99999999999999999999999",
            "7 ",
            "-99999999999999999999",
            "\"7\"",
            "\"\\u00e9\"",
            "true",
            "false",
            "null",
        ] {
            let text = format!("[{value}]");
            let scanner = scan::Scanner::new(text.as_bytes());
            let mut walk = scan::Walk::new(&scanner, &text, 1);
            assert_eq!(LenientU64::walk(&mut walk), serde(value), "{value}");
        }
        // What serde must decide: floats, containers, and what is no JSON at all.
        for value in [
            "1.5",
            "1e3",
            "-0.0",
            "{\"a\":1}",
            "[1]",
            "01",
            "00",
            "-00",
            "-01",
            "-",
            "-a",
            "12x",
            "1-2",
            "0x1",
            "nul",
            "\"\\q\"",
        ] {
            let text = format!("[{value}]");
            let scanner = scan::Scanner::new(text.as_bytes());
            let mut walk = scan::Walk::new(&scanner, &text, 1);
            assert_eq!(LenientU64::walk(&mut walk), None, "{value}");
        }
        let usage = r#"{"b":"x","a":3,"c":{"d":1},"e":-1}"#;
        let scanner = scan::Scanner::new(usage.as_bytes());
        let mut walk = scan::Walk::new(&scanner, usage, 0);
        let counts = walk_counts(&mut walk, ["a", "b", "e", "absent"]).unwrap();
        assert_eq!(counts.map(|c| c.0), [Some(3), None, None, None]);
        let repeated = r#"{"a":1,"a":2}"#;
        let scanner = scan::Scanner::new(repeated.as_bytes());
        assert!(walk_counts(&mut scan::Walk::new(&scanner, repeated, 0), ["a"]).is_none());
    }

    #[test]
    fn lenient_numbers_never_fail() {
        let read = |s: &str| serde_json::from_str::<LenientU64>(s).unwrap().0;
        assert_eq!(read("42"), Some(42));
        assert_eq!(read("-1"), None);
        assert_eq!(read("1.5e300"), None);
        assert_eq!(read("\"7\""), None);
        assert_eq!(read("{\"a\":[1]}"), None);
    }

    #[test]
    fn tool_result_blocks_join_text_and_keep_media() {
        let json = r#"[{"type":"tool_use","id":"t","name":"Read","input":{"p":1}},
                {"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]}]"#;
        let content =
            deserialize_anthropic_content(&mut serde_json::Deserializer::from_str(json)).unwrap();
        let parts = anthropic_parts(content);
        assert_eq!(
            parts,
            vec![
                Part::ToolCall {
                    id: Some("t".into()),
                    name: "Read".into(),
                    arguments: r#"{"p":1}"#.into()
                },
                Part::ToolResult {
                    call_id: Some("t".into()),
                    text: "a\nb".into()
                },
                Part::Media(MediaKind::Image),
            ]
        );
    }
}
