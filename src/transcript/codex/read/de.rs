//! The shapes' hand-written deserializers: the envelope, whose `payload` is read by the type
//! seen before it; a payload given its type; and a tool output, which comes in three shapes.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::shape::{
    Compacted, ContentItem, Envelope, Event, Item, Key, OutputObject, Payload, PayloadSeed,
    ToolOutput,
};
use crate::transcript::blocks::{BorrowedStr, StrOrSeq};

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Codex rollout line object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut envelope = Envelope::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => envelope.kind = Some(map.next_value::<BorrowedStr<'de>>()?.0),
                Key::Payload => match &envelope.kind {
                    Some(kind) => envelope.payload = Some(map.next_value_seed(PayloadSeed(kind))?),
                    None => envelope.raw_payload = Some(map.next_value()?),
                },
                Key::RecordType => {
                    envelope.record_type = Some(map.next_value::<BorrowedStr<'de>>()?.0)
                }
                Key::Id => {
                    envelope.has_id = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Instructions => {
                    envelope.has_instructions = true;
                    map.next_value::<IgnoredAny>()?;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(envelope)
    }
}

impl<'de> DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = Payload<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Ok(match self.0 {
            "response_item" => Payload::Item(Box::new(Item::deserialize(deserializer)?)),
            "event_msg" => Payload::Event(Event::deserialize(deserializer)?),
            "compacted" => Payload::Compacted(Compacted::deserialize(deserializer)?),
            _ => {
                IgnoredAny::deserialize(deserializer)?;
                Payload::Other
            }
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for ToolOutput<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OutputVisitor;

        impl<'de> Visitor<'de> for OutputVisitor {
            type Value = ToolOutput<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a tool output (string, list or object)")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ToolOutput::Text(v.into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            // A number or boolean output says nothing a model reads as text worth counting.
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ToolOutput::Absent)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(ToolOutput::Items(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let object = OutputObject::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(object.into())
            }
        }

        deserializer.deserialize_any(OutputVisitor)
    }
}

impl<'a> From<OutputObject<'a>> for ToolOutput<'a> {
    /// An object with a `type` is one content item; one without is read through its `content`.
    fn from(object: OutputObject<'a>) -> Self {
        match (object.kind, object.content) {
            (Some(kind), _) => ToolOutput::Items(vec![ContentItem {
                kind: Some(kind),
                text: object.text,
            }]),
            (None, StrOrSeq::Str(text)) => ToolOutput::Text(text),
            (None, StrOrSeq::Seq(items)) => ToolOutput::Items(items),
        }
    }
}
