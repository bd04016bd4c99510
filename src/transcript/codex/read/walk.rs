//! Reading a rollout line by walking it with the line's [`Scanner`] rather than parsing it with
//! serde: the same [`Line`] that [`Line::parse`] reads, field for field.
//!
//! Most of a Codex rollout's bytes are in what this reader skips: `session_meta`,
//! `turn_context` and `world_state` payloads, encrypted reasoning, generated images, tool
//! lists. serde_json passes over a skipped string byte by byte, looking for its end; the walk
//! passes over it, and over a skipped object, from one delimiter to the next on the line's
//! bitmap, and keeps message texts escaped ([`Text`](crate::transcript::text::Text)) so that counting them decodes
//! nothing. The line is scanned once: a payload that comes before `type`, or a bare legacy item
//! that is its own line, is walked again with the same scanner.
//!
//! Each function below reads what the serde type of the same name reads, and gives up (`None`)
//! wherever it is not sure to read the same: a repeated field, a key holding an escape, a value
//! of a shape the serde type would refuse or reads through a path of its own (a struct written
//! as an array, a number where a tool's output goes). [`super::Codex`] then reads the line with
//! serde, which says what is wrong with it, exactly as before the walk existed.

use serde::de::IgnoredAny;

use super::shape::{
    Compacted, ContentItem, Event, Item, Line, OutputObject, Payload, ToolOutput, ENVELOPE_TYPES,
};
use crate::transcript::blocks::StrOrSeq;
use crate::transcript::scan::{Scanner, Walk};

impl<'a> Line<'a> {
    /// The envelope keys `EnvelopeVisitor` (in `de`) reads.
    const KEYS: [&'static str; 5] = ["type", "payload", "record_type", "id", "instructions"];

    /// The line `text` holds, walked as [`Line::parse`] reads it; `None` when the walk gives
    /// up, and serde must read the line.
    pub(super) fn walk(text: &'a str) -> Option<Self> {
        let scanner = Scanner::new(text.as_bytes());
        let mut walk = Walk::new(&scanner, text, 0);
        let mut line = Line::default();
        // Where `payload` starts when it comes before `type`, which says how to read it.
        let mut early_payload = None;
        walk.fields(Self::KEYS, |field, walk| {
            match field {
                0 => line.kind = Some(walk.string()?.into_cow()),
                1 => match line.kind.as_deref() {
                    Some(kind) => line.payload = Some(Payload::walk(kind, walk)?),
                    None => early_payload = Some(walk.skip()?),
                },
                2 => line.record_type = Some(walk.string()?.into_cow()),
                3 => {
                    line.has_id = true;
                    walk.skip()?;
                }
                _ => {
                    line.has_instructions = true;
                    walk.skip()?;
                }
            }
            Some(())
        })?;
        if walk.position() != text.len() {
            return None;
        }
        let Some(kind) = line.kind.as_deref() else {
            // Without a type the payload is not read (`record_type` lines, the legacy header).
            return Some(line);
        };
        match early_payload {
            Some(span) => {
                let mut walk = Walk::new(&scanner, text, span.start);
                line.payload = Some(Payload::walk(kind, &mut walk)?);
                if walk.position() < span.end {
                    return None;
                }
            }
            // No payload at all: a bare response item of the legacy layout, the whole line.
            None if line.payload.is_none() && !ENVELOPE_TYPES.contains(&kind) => {
                let mut walk = Walk::new(&scanner, text, 0);
                line.payload = Some(Payload::Item(Box::new(Item::walk(&mut walk)?)));
                if walk.position() != text.len() {
                    return None;
                }
            }
            None => {}
        }
        Some(line)
    }
}

impl<'a> Payload<'a> {
    /// The payload of an envelope of type `kind`, as [`PayloadSeed`](super::shape::PayloadSeed) reads it.
    fn walk(kind: &str, walk: &mut Walk<'_, 'a>) -> Option<Self> {
        Some(match kind {
            "response_item" => Payload::Item(Box::new(Item::walk(walk)?)),
            "event_msg" => Payload::Event(Event::walk(walk)?),
            "compacted" => Payload::Compacted(Compacted::walk(walk)?),
            _ => {
                walk.skip()?;
                Payload::Other
            }
        })
    }
}

impl<'a> Item<'a> {
    /// The fields of [`Item`], in its order.
    const KEYS: [&'static str; 14] = [
        "type",
        "role",
        "content",
        "summary",
        "encrypted_content",
        "name",
        "call_id",
        "id",
        "arguments",
        "input",
        "output",
        "action",
        "tools",
        "result",
    ];

    /// The response item the walk stands at.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        let mut item = Item::default();
        walk.fields(Self::KEYS, |field, walk| {
            match field {
                0 => item.kind = walk.optional_str()?,
                1 => item.role = walk.optional_str()?,
                2 => item.content = StrOrSeq::walk(walk, ContentItem::walk)?,
                3 => item.summary = StrOrSeq::walk(walk, ContentItem::walk)?,
                4 => item.encrypted_content = ignored(walk)?,
                5 => item.name = walk.optional_str()?,
                6 => item.call_id = walk.optional_str()?,
                7 => item.id = walk.optional_str()?,
                8 => item.arguments = walk.raw()?,
                9 => item.input = walk.raw()?,
                10 => item.output = ToolOutput::walk(walk)?,
                11 => item.action = walk.raw()?,
                12 => item.tools = walk.raw()?,
                _ => item.result = ignored(walk)?,
            }
            Some(())
        })?;
        Some(item)
    }
}

/// A value passed over as serde reads an `Option<IgnoredAny>` field: `null` is none, anything
/// else is some (and is not looked into).
fn ignored(walk: &mut Walk<'_, '_>) -> Option<Option<IgnoredAny>> {
    if walk.null()? {
        return Some(None);
    }
    walk.skip()?;
    Some(Some(IgnoredAny))
}

impl<'a> ContentItem<'a> {
    /// The content item the walk stands at.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        let mut item = ContentItem::default();
        walk.fields(["type", "text"], |field, walk| {
            match field {
                0 => item.kind = walk.optional_str()?,
                _ => item.text = walk.optional_string()?,
            }
            Some(())
        })?;
        Some(item)
    }
}

impl<'a> ToolOutput<'a> {
    /// The tool output the walk stands at, as [`ToolOutput`]'s visitor reads it. A number
    /// (which the visitor reads as no output) is left to serde, which checks that it is one.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        Some(match walk.peek()? {
            b'"' => ToolOutput::Text(walk.string()?),
            b'[' => {
                let mut items = Vec::new();
                walk.array(|walk| {
                    items.push(ContentItem::walk(walk)?);
                    Some(())
                })?;
                ToolOutput::Items(items)
            }
            b'{' => OutputObject::walk(walk)?.into(),
            _ => match walk.value()? {
                "null" | "true" | "false" => ToolOutput::Absent,
                _ => return None,
            },
        })
    }
}

impl<'a> OutputObject<'a> {
    /// The tool output object the walk stands at.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        let mut object = OutputObject::default();
        walk.fields(["type", "text", "content"], |field, walk| {
            match field {
                0 => object.kind = walk.optional_str()?,
                1 => object.text = walk.optional_string()?,
                _ => object.content = StrOrSeq::walk(walk, ContentItem::walk)?,
            }
            Some(())
        })?;
        Some(object)
    }
}

impl<'a> Event<'a> {
    /// The `event_msg` payload the walk stands at.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        let mut event = Event::default();
        walk.fields(["type", "info", "num_turns"], |field, walk| {
            match field {
                0 => event.kind = walk.optional_str()?,
                1 => event.info = walk.raw()?,
                _ => event.num_turns = walk.raw()?,
            }
            Some(())
        })?;
        Some(event)
    }
}

impl<'a> Compacted<'a> {
    /// The `compacted` payload the walk stands at.
    fn walk(walk: &mut Walk<'_, 'a>) -> Option<Self> {
        let mut compacted = Compacted::default();
        walk.fields(["message", "replacement_history"], |field, walk| {
            match field {
                0 => compacted.message = walk.optional_str()?,
                _ => {
                    compacted.replacement_history = match walk.null()? {
                        true => None,
                        false => {
                            let mut items = Vec::new();
                            walk.array(|walk| {
                                items.push(Item::walk(walk)?);
                                Some(())
                            })?;
                            Some(items)
                        }
                    }
                }
            }
            Some(())
        })?;
        Some(compacted)
    }
}
