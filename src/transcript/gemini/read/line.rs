//! A Gemini CLI line as read before it becomes a record: one flat shape every record kind
//! shares, and the Gemini API parts of its content.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::transcript::blocks::{borrowed_str, LenientU64};

/// A line, flattened: every field the record kinds read here use.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "borrowed_str")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) content: Parts<'a>,
    #[serde(borrow)]
    pub(super) thoughts: Option<Vec<Thought<'a>>>,
    #[serde(rename = "toolCalls", borrow)]
    pub(super) tool_calls: Option<Vec<ToolCall<'a>>>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow)]
    pub(super) tokens: Option<&'a RawValue>,
    #[serde(rename = "sessionId")]
    pub(super) session_id: Option<IgnoredAny>,
    #[serde(rename = "$set", borrow)]
    pub(super) set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow)]
    pub(super) rewind_to: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(super) id: Option<&'a RawValue>,
}

/// A thought summary of a model turn.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Thought<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) subject: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) description: Option<Cow<'a, str>>,
}

/// A tool call of a model turn and its result.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ToolCall<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) args: Option<&'a RawValue>,
    /// The parts sent back to the model; `null` when the call never ran.
    #[serde(borrow)]
    pub(super) result: Parts<'a>,
}

/// A `PartListUnion`: a string, one part, or a list of parts and strings; `null` is none.
/// Qwen Code's messages are Gemini `Content` too, whose `parts` it reads with this.
#[derive(Default)]
pub(crate) struct Parts<'a>(pub(super) Vec<GeminiPart<'a>>);

/// A Gemini API part, flattened. A bare string in a part list is a `text` part.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct GeminiPart<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) text: Option<Cow<'a, str>>,
    /// True on a thought part, whose `text` is reasoning.
    #[serde(borrow)]
    pub(super) thought: Option<&'a RawValue>,
    #[serde(rename = "inlineData", borrow)]
    pub(super) inline_data: Option<Blob<'a>>,
    #[serde(rename = "fileData", borrow)]
    pub(super) file_data: Option<Blob<'a>>,
    #[serde(rename = "functionCall", borrow)]
    pub(super) function_call: Option<FunctionCall<'a>>,
    #[serde(rename = "functionResponse", borrow)]
    pub(super) function_response: Option<FunctionResponse<'a>>,
}

/// Inline or file media; only the MIME type is read, the data is skipped.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Blob<'a> {
    #[serde(rename = "mimeType", borrow, deserialize_with = "borrowed_str")]
    pub(super) mime_type: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct FunctionCall<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub(super) args: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct FunctionResponse<'a> {
    /// The id of the call this answers.
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) id: Option<Cow<'a, str>>,
    /// Any object; Gemini CLI's tools put their text in `output`.
    #[serde(borrow)]
    pub(super) response: Option<&'a RawValue>,
}

/// The `output` of a function response, when it is a string.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ResponseOutput<'a> {
    #[serde(borrow, deserialize_with = "borrowed_str")]
    pub(super) output: Option<Cow<'a, str>>,
}

/// The token figures of a model turn.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Tokens {
    pub(super) total: LenientU64,
}

impl<'de: 'a, 'a> Deserialize<'de> for Parts<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(PartsVisitor)
    }
}

pub(super) struct PartsVisitor;

impl<'de> Visitor<'de> for PartsVisitor {
    type Value = Parts<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, a part or a list of parts")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Borrowed(v))]))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Owned(v.to_owned()))]))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Parts(vec![GeminiPart::text(Cow::Owned(v))]))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Parts::default())
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Parts::default())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(PartOrText(part)) = seq.next_element()? {
            parts.push(part);
        }
        Ok(Parts(parts))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok(Parts(vec![GeminiPart::deserialize(
            MapAccessDeserializer::new(map),
        )?]))
    }
}

/// An element of a part list: a part object or a bare string.
pub(super) struct PartOrText<'a>(GeminiPart<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for PartOrText<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PartVisitor;

        impl<'de> Visitor<'de> for PartVisitor {
            type Value = PartOrText<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a part or a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(PartOrText(GeminiPart::text(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Ok(PartOrText(GeminiPart::deserialize(
                    MapAccessDeserializer::new(map),
                )?))
            }
        }

        deserializer.deserialize_any(PartVisitor)
    }
}

impl<'a> GeminiPart<'a> {
    pub(super) fn text(text: Cow<'a, str>) -> Self {
        GeminiPart {
            text: Some(text),
            ..GeminiPart::default()
        }
    }
}
