//! A Claude Code line as read before it becomes a record: the envelope fields its reading
//! needs, found by walking the line's top level, and the API message of a message line.

use std::borrow::Cow;

use anyhow::Result;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::transcript::blocks::{
    deserialize_anthropic_content, raw_json, walk_anthropic_content, walk_usage, AnthropicContent,
    LenientU64,
};
use crate::transcript::scan;

/// The envelope fields this reader uses. Scalars are kept raw so that an unexpected JSON type
/// in any of them reads as "absent" instead of failing the line.
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(super) kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) subtype: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default)]
    pub(super) is_sidechain: Option<&'a RawValue>,
    #[serde(rename = "requestId", borrow, default)]
    pub(super) request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) message: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub(super) uuid: Option<&'a RawValue>,
    #[serde(rename = "parentUuid", borrow, default)]
    pub(super) parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "compactMetadata", borrow, default)]
    pub(super) compact_metadata: Option<&'a RawValue>,
}

/// The raw JSON text of the envelope fields a line's reading needs.
#[derive(Default)]
pub(super) struct Fields<'a> {
    pub(super) kind: Option<&'a str>,
    pub(super) subtype: Option<&'a str>,
    pub(super) is_sidechain: Option<&'a str>,
    pub(super) request_id: Option<&'a str>,
    pub(super) message: Option<&'a str>,
    pub(super) uuid: Option<&'a str>,
    pub(super) parent_uuid: Option<&'a str>,
    pub(super) compact_metadata: Option<&'a str>,
    /// Where `message` starts in the line, and the line's scanner to walk it with (none when
    /// serde read the line).
    pub(super) message_walk: Option<(usize, scan::Scanner<'a>)>,
}

impl<'a> Fields<'a> {
    /// The fields, found by walking the line's top level without parsing what is skipped:
    /// lines carry whole files in `toolUseResult`, which a full parse would scan twice as
    /// slowly. A line the walk cannot follow goes to serde_json, which says what is wrong.
    pub(super) fn of(text: &'a str) -> Result<Self> {
        let scanner = scan::Scanner::new(text.as_bytes());
        if let Some((mut fields, message_start)) = Fields::walk(&scanner, text) {
            fields.message_walk = message_start.map(|start| (start, scanner));
            return Ok(fields);
        }
        let line: Line<'a> = serde_json::from_str(text)?;
        let get = |raw: Option<&'a RawValue>| raw.map(RawValue::get);
        Ok(Fields {
            kind: get(line.kind),
            subtype: get(line.subtype),
            is_sidechain: get(line.is_sidechain),
            request_id: get(line.request_id),
            message: get(line.message),
            uuid: get(line.uuid),
            parent_uuid: get(line.parent_uuid),
            compact_metadata: get(line.compact_metadata),
            message_walk: None,
        })
    }

    /// The fields found by walking the top level of the line `scanner` scanned, and where
    /// `message` starts; `None` where the walk gives up (an escaped key, a line that is no
    /// object).
    pub(super) fn walk(
        scanner: &scan::Scanner<'a>,
        text: &'a str,
    ) -> Option<(Fields<'a>, Option<usize>)> {
        let mut fields = Fields::default();
        let mut message_start = None;
        let mut walk = scan::Walk::new(scanner, text, 0);
        walk.object(|key, walk| {
            let slot = match key {
                b"type" => &mut fields.kind,
                b"subtype" => &mut fields.subtype,
                b"isSidechain" => &mut fields.is_sidechain,
                b"requestId" => &mut fields.request_id,
                b"message" => &mut fields.message,
                b"uuid" => &mut fields.uuid,
                b"parentUuid" => &mut fields.parent_uuid,
                b"compactMetadata" => &mut fields.compact_metadata,
                _ => return walk.skip().map(drop),
            };
            let start = walk.position();
            let value = walk.value()?;
            // The first of a repeated key wins, as serde's borrowed reading would reject it
            // anyway.
            if slot.is_none() {
                *slot = Some(value);
                if key == b"message" {
                    message_start = Some(start);
                }
            }
            Some(())
        })?;
        (walk.position() == text.len()).then_some((fields, message_start))
    }
}

/// The parts of an API message a message line needs; `role`, `stop_reason` … are skipped.
#[derive(Deserialize)]
pub(super) struct ApiMessage<'a> {
    #[serde(borrow, default, deserialize_with = "deserialize_anthropic_content")]
    pub(super) content: AnthropicContent<'a>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    pub(super) id: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "raw_json")]
    pub(super) model: Option<&'a str>,
    /// Read separately and leniently: usage is advisory and must never fail a line.
    #[serde(borrow, default, deserialize_with = "raw_json")]
    pub(super) usage: Option<&'a str>,
    /// The counts of `usage`, when the walk read them along with the message.
    #[serde(skip)]
    pub(super) usage_counts: Option<[LenientU64; 4]>,
}

impl<'a> ApiMessage<'a> {
    /// The message whose JSON text is `raw`, which starts at byte `start` of `line`, which
    /// `scanner` scanned. It is walked (see [`crate::transcript::scan`]), so that its text stays escaped
    /// until something needs it decoded; serde reads it when the walk gives up, and says what
    /// is wrong with it if anything is.
    pub(super) fn of(
        raw: &'a str,
        line: &'a str,
        walk: Option<&(usize, scan::Scanner<'a>)>,
    ) -> Result<Self> {
        let walked = walk.and_then(|(start, scanner)| {
            Self::walk(scan::Walk::new(scanner, line, *start), start + raw.len())
        });
        match walked {
            Some(message) => Ok(message),
            None => Ok(serde_json::from_str(raw)?),
        }
    }

    /// The message `walk` stands at, which must end at byte `end`.
    pub(super) fn walk(mut walk: scan::Walk<'_, 'a>, end: usize) -> Option<Self> {
        let mut message = ApiMessage {
            content: AnthropicContent::default(),
            id: None,
            model: None,
            usage: None,
            usage_counts: None,
        };
        walk.fields(["content", "id", "model", "usage"], |field, walk| {
            match field {
                0 => message.content = walk_anthropic_content(walk)?,
                1 => message.id = walk.raw()?,
                2 => message.model = walk.raw()?,
                _ => (message.usage, message.usage_counts) = walk_usage(walk, ApiUsage::KEYS)?,
            }
            Some(())
        })?;
        (walk.position() >= end).then_some(message)
    }
}

/// The token counts of an API response's `usage`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ApiUsage {
    pub(super) input_tokens: LenientU64,
    pub(super) cache_creation_input_tokens: LenientU64,
    pub(super) cache_read_input_tokens: LenientU64,
    pub(super) output_tokens: LenientU64,
}

impl ApiUsage {
    /// The fields, in the order of [`ApiUsage::counts`].
    const KEYS: [&'static str; 4] = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    ];

    pub(super) fn counts(&self) -> [LenientU64; 4] {
        [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
            self.output_tokens,
        ]
    }
}

/// The string a raw JSON value holds, or `None` when it is not a string. Borrows unless the
/// string has escapes.
pub(super) fn raw_str<'r>(raw: Option<&'r (impl AsRawJson + ?Sized)>) -> Option<Cow<'r, str>> {
    scan::json_string(raw?.json())
}

/// JSON text kept raw: a `RawValue`, or a span of a line.
pub(super) trait AsRawJson {
    fn json(&self) -> &str;
}

impl AsRawJson for RawValue {
    fn json(&self) -> &str {
        self.get()
    }
}

impl AsRawJson for str {
    fn json(&self) -> &str {
        self
    }
}
