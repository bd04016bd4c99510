//! What format detection sees of a line: its shape to three levels, without its contents.
//!
//! Detection asks a line only about keys and short names (`type`, `role`, `payload.id`,
//! `message.parts`, the `type` of a block in `content`), yet parsing its first lines into
//! `serde_json::Value`s copied every string and built a map per object: most of the work on a
//! small session. A [`Sketch`] keeps a line's objects and arrays to [`KEPT_LEVELS`] levels,
//! strings up to [`SHORT`] bytes (borrowed from the line where it has no escapes), and below
//! that level only whether a value is an object, an array or a string; serde skips the rest
//! without building anything.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// How many items of an array a sketch keeps; the rest are skipped unread, so that a line
/// holding a list of millions of numbers costs no memory. No format recognises itself by an
/// item further down a list.
pub const KEPT_ITEMS: usize = 4096;

/// How many levels of a line a sketch keeps whole: the line's fields, theirs, and theirs'
/// (a `content` block's `type`). Objects and arrays below keep their kind, not their contents.
pub const KEPT_LEVELS: usize = 3;

/// Strings longer than this (in bytes) keep their kind, not their text: detection compares
/// strings only with short names.
pub const SHORT: usize = 256;

/// One JSON value as detection sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Sketch<'a> {
    /// An object's fields in the order written. Empty below [`KEPT_LEVELS`].
    Object(Vec<(Cow<'a, str>, Sketch<'a>)>),
    /// An array's first [`KEPT_ITEMS`] items. Empty below [`KEPT_LEVELS`].
    Array(Vec<Sketch<'a>>),
    /// A string: its text up to [`SHORT`] bytes, `None` for a longer one.
    String(Option<Cow<'a, str>>),
    /// A number, a boolean or null.
    Scalar,
}

impl<'a> Sketch<'a> {
    /// The sketch of one JSON line; the error is serde_json's, as for any bad line.
    pub fn of(text: &'a str) -> Result<Sketch<'a>, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let sketch = Level(0).deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(sketch)
    }

    /// The sketch of an object line field by field, a field that cannot be read becoming
    /// [`Sketch::Scalar`] (as null): for a line whose whole sketch fails, so that its other
    /// fields still count. Fails when the line is no object.
    pub fn of_fields(text: &'a str) -> Result<Sketch<'a>, serde_json::Error> {
        let fields: Vec<(Cow<'a, str>, &'a RawValue)> = serde_json::from_str::<Fields<'a>>(text)?.0;
        Ok(Sketch::Object(
            fields
                .into_iter()
                .map(|(key, raw)| {
                    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
                    let value = Level(1).deserialize(&mut deserializer);
                    (key, value.unwrap_or(Sketch::Scalar))
                })
                .collect(),
        ))
    }

    /// The same sketch owning its text.
    pub fn into_owned(self) -> Sketch<'static> {
        match self {
            Sketch::Object(fields) => Sketch::Object(
                fields
                    .into_iter()
                    .map(|(key, value)| (Cow::Owned(key.into_owned()), value.into_owned()))
                    .collect(),
            ),
            Sketch::Array(items) => {
                Sketch::Array(items.into_iter().map(Sketch::into_owned).collect())
            }
            Sketch::String(text) => Sketch::String(text.map(|text| Cow::Owned(text.into_owned()))),
            Sketch::Scalar => Sketch::Scalar,
        }
    }

    /// The value of field `key` of an object (the last, when the key is written twice, as
    /// serde_json's own maps keep it); `None` for a missing key or a value that is no object.
    pub fn get(&self, key: &str) -> Option<&Sketch<'a>> {
        match self {
            Sketch::Object(fields) => fields
                .iter()
                .rev()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// Whether the object has field `key`.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The text of field `key` when it is a short string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Sketch::as_str)
    }

    /// The text of a short string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Sketch::String(Some(text)) => Some(text),
            _ => None,
        }
    }

    /// The items of an array.
    pub fn as_array(&self) -> Option<&[Sketch<'a>]> {
        match self {
            Sketch::Array(items) => Some(items),
            _ => None,
        }
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Sketch::Object(_))
    }

    /// Whether the value is a string, short or long.
    pub fn is_string(&self) -> bool {
        matches!(self, Sketch::String(_))
    }

    /// Whether the value is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Sketch::Array(_))
    }
}

/// Reads a value at this level of the line (0 for the line itself).
#[derive(Clone, Copy)]
struct Level(usize);

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Sketch<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Sketch<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Sketch<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Sketch<'de>, E> {
        Ok(Sketch::Scalar)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Sketch<'de>, E> {
        Ok(Sketch::Scalar)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Sketch<'de>, E> {
        Ok(Sketch::Scalar)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Sketch<'de>, E> {
        Ok(Sketch::Scalar)
    }

    fn visit_unit<E>(self) -> Result<Sketch<'de>, E> {
        Ok(Sketch::Scalar)
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Sketch<'de>, E> {
        Ok(Sketch::String(
            (text.len() <= SHORT).then_some(Cow::Borrowed(text)),
        ))
    }

    fn visit_str<E>(self, text: &str) -> Result<Sketch<'de>, E> {
        Ok(Sketch::String(
            (text.len() <= SHORT).then(|| Cow::Owned(text.to_owned())),
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Sketch<'de>, A::Error> {
        let mut kept = Vec::new();
        if self.0 < KEPT_LEVELS {
            while kept.len() < KEPT_ITEMS {
                match items.next_element_seed(Level(self.0 + 1))? {
                    Some(item) => kept.push(item),
                    None => return Ok(Sketch::Array(kept)),
                }
            }
        }
        while items.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Sketch::Array(kept))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Sketch<'de>, A::Error> {
        let mut kept = Vec::new();
        if self.0 < KEPT_LEVELS {
            while let Some(key) = fields.next_key_seed(Key)? {
                kept.push((key, fields.next_value_seed(Level(self.0 + 1))?));
            }
        } else {
            while fields.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        }
        Ok(Sketch::Object(kept))
    }
}

/// Reads a key, borrowed from the line unless it holds an escape.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

/// An object line's fields, each value left unread.
struct Fields<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Fields<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key_seed(Key)? {
                    fields.push((key, map.next_value()?));
                }
                Ok(Fields(fields))
            }
        }
        deserializer.deserialize_map(Each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_three_levels_and_short_strings() {
        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi","more":{"deep":1}}]},"n":1}"#;
        let sketch = Sketch::of(line).unwrap();
        assert_eq!(sketch.str("type"), Some("user"));
        let message = sketch.get("message").unwrap();
        assert_eq!(message.str("role"), Some("user"));
        // The block is at the third level: kept as an object, its fields not read.
        let blocks = message.get("content").unwrap().as_array().unwrap();
        assert_eq!(blocks, &[Sketch::Object(Vec::new())]);
        assert!(sketch.has("n") && !sketch.has("x"));
    }

    #[test]
    fn a_long_string_keeps_its_kind_and_escapes_are_decoded() {
        let long = "a".repeat(SHORT + 1);
        let line = format!(r#"{{"long":"{long}","esc":"a\nb","type":"x","type":"y"}}"#);
        let sketch = Sketch::of(&line).unwrap();
        assert_eq!(sketch.get("long"), Some(&Sketch::String(None)));
        assert_eq!(sketch.str("esc"), Some("a\nb"));
        // A key written twice reads as its last value, as serde_json's maps keep it.
        assert_eq!(sketch.str("type"), Some("y"));
    }

    #[test]
    fn a_field_serde_cannot_hold_reads_as_null_field_by_field() {
        let line = r#"{"type":"user","usage":1e999}"#;
        assert!(Sketch::of(line).is_err());
        let sketch = Sketch::of_fields(line).unwrap();
        assert_eq!(sketch.str("type"), Some("user"));
        assert_eq!(sketch.get("usage"), Some(&Sketch::Scalar));
        assert!(Sketch::of_fields("[1]").is_err());
    }

    #[test]
    fn a_long_list_keeps_its_first_items() {
        let line = format!("{{\"list\":[{}1]}}", "1,".repeat(KEPT_ITEMS + 10));
        let sketch = Sketch::of(&line).unwrap();
        assert_eq!(
            sketch.get("list").unwrap().as_array().unwrap().len(),
            KEPT_ITEMS
        );
    }
}
