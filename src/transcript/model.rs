//! The common transcript model every agent format is read into.
//!
//! A transcript is a sequence of [`Record`]s, one per non-blank line. A record either is a
//! [`Message`] the model saw (a role and its [`Part`]s) or is bookkeeping (checkpoints, usage,
//! snapshots, progress, metadata …) that commands carry through untouched and never count as a
//! message. Every record keeps the exact bytes of its line, so a record no command changes can be
//! written back byte-identical.
//!
//! Tool calls and tool results keep the ids the format links them by, so a call can be paired
//! with its result: see [`Message::call_ids`] and [`Message::answered_ids`].
//!
//! Strings borrow from the input line where JSON escaping allows it (`Cow`), which keeps reading
//! a large file allocation-light; a part's text may even stay JSON-escaped until something
//! reads it ([`Text`]), so that counting it decodes nothing.

use std::borrow::Cow;

pub use super::text::Text;

/// Who a message is from, normalised across formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// System or developer instructions.
    System,
    /// The user, or the harness speaking as the user (tool results in Anthropic shape).
    User,
    /// The model.
    Assistant,
    /// A tool result message (OpenAI `tool`, pi `toolResult`).
    Tool,
}

impl Role {
    /// Every role, in the order reports list them.
    pub const ALL: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    /// The lowercase name used in output and in rendered prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    /// The role of an OpenAI / kimi-cli / Anthropic style `role` string, if it is a message role.
    pub fn from_chat(role: &str) -> Option<Role> {
        match role {
            "system" | "developer" => Some(Role::System),
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "tool" | "function" => Some(Role::Tool),
            _ => None,
        }
    }
}

/// The kind of a media part; media is never counted as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A picture (base64 or URL).
    Image,
    /// A sound clip.
    Audio,
    /// A video clip.
    Video,
    /// A document such as a PDF.
    Document,
}

/// One piece of a message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    /// Visible text.
    Text(Text<'a>),
    /// Reasoning text (thinking blocks, reasoning summaries). Empty when the provider encrypted it.
    Thinking(Text<'a>),
    /// A tool call: its id, the tool's name and its arguments as JSON text.
    ToolCall {
        /// The call's id as the format stores it, which its result refers to: OpenAI / kimi-cli
        /// `tool_calls[].id`, Anthropic / Claude Code `tool_use.id`, Codex `call_id` (for
        /// `local_shell_call`, `id` when it has no `call_id`, as Codex itself does), pi
        /// `toolCall.id`, Gemini `toolCalls[].id` (or `functionCall.id` in a part list).
        /// `None` when the call has none (e.g. OpenAI's legacy `function_call`, Codex
        /// `web_search_call`).
        id: Option<Cow<'a, str>>,
        /// The tool's name.
        name: Cow<'a, str>,
        /// The arguments, as the JSON text the format stores (or an object serialised compactly).
        arguments: Text<'a>,
    },
    /// What a tool returned: its text, and the id of the call it answers when the format stores
    /// that id on the result itself.
    ToolResult {
        /// The [`Part::ToolCall::id`] of the call this answers: Anthropic / Claude Code
        /// `tool_use_id`, Codex `call_id` of `function_call_output`, `custom_tool_call_output`
        /// and `tool_search_output`, Gemini `functionResponse.id` (for a result stored inside a
        /// model turn's `toolCalls[]`, that call's `id` when the response has none). `None` in
        /// formats that key the whole message instead (see [`Message::call_id`]) and for results
        /// no call produced (pi `bashExecution`).
        call_id: Option<Cow<'a, str>>,
        /// The text the tool returned.
        text: Text<'a>,
    },
    /// An image, audio, video or document part.
    Media(MediaKind),
    /// A part type the model does not know; named for reports.
    Other(Cow<'a, str>),
}

/// The kinds of [`Part`], for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PartKind {
    /// [`Part::Text`]
    Text,
    /// [`Part::Thinking`]
    Thinking,
    /// [`Part::ToolCall`]
    ToolCall,
    /// [`Part::ToolResult`]
    ToolResult,
    /// [`Part::Media`]
    Media,
    /// [`Part::Other`]
    Other,
}

impl PartKind {
    /// Every part kind, in the order reports list them.
    pub const ALL: [PartKind; 6] = [
        PartKind::Text,
        PartKind::Thinking,
        PartKind::ToolCall,
        PartKind::ToolResult,
        PartKind::Media,
        PartKind::Other,
    ];

    /// The snake_case name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            PartKind::Text => "text",
            PartKind::Thinking => "thinking",
            PartKind::ToolCall => "tool_call",
            PartKind::ToolResult => "tool_result",
            PartKind::Media => "media",
            PartKind::Other => "other",
        }
    }
}

impl Part<'_> {
    /// Which kind of part this is.
    pub fn kind(&self) -> PartKind {
        match self {
            Part::Text(_) => PartKind::Text,
            Part::Thinking(_) => PartKind::Thinking,
            Part::ToolCall { .. } => PartKind::ToolCall,
            Part::ToolResult { .. } => PartKind::ToolResult,
            Part::Media(_) => PartKind::Media,
            Part::Other(_) => PartKind::Other,
        }
    }
}

/// A message the model saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// Who it is from.
    pub role: Role,
    /// Its content, in order.
    pub parts: Vec<Part<'a>>,
    /// True for a sub-agent's message stored in the parent's file (Claude Code `isSidechain`).
    /// Sidechain messages never reach the main agent's context.
    pub sidechain: bool,
    /// For a tool-role message, the [`Part::ToolCall::id`] of the call it answers, in formats
    /// that key the whole message: OpenAI / kimi-cli `tool_call_id`, pi `toolCallId`. Formats
    /// that key each result (Anthropic, Claude Code, Codex, Gemini) leave this `None` and set
    /// [`Part::ToolResult::call_id`] instead, so an id is never stored twice.
    pub call_id: Option<Cow<'a, str>>,
}

impl<'a> Message<'a> {
    /// A main-chain message with these parts, answering no call.
    pub fn new(role: Role, parts: Vec<Part<'a>>) -> Self {
        Message {
            role,
            parts,
            sidechain: false,
            call_id: None,
        }
    }

    /// This message, answering the call with this id (its [`Message::call_id`]).
    pub fn answering(mut self, call_id: Option<Cow<'a, str>>) -> Self {
        self.call_id = call_id;
        self
    }

    /// The ids of the tool calls this message makes, in order; calls without an id are
    /// left out.
    pub fn call_ids(&self) -> impl Iterator<Item = &str> + use<'_, 'a> {
        self.parts.iter().filter_map(|part| match part {
            Part::ToolCall { id, .. } => id.as_deref(),
            _ => None,
        })
    }

    /// The ids of the tool calls this message answers: its own [`Message::call_id`], then the
    /// [`Part::ToolResult::call_id`] of each of its tool results, in order; results without an
    /// id are left out.
    pub fn answered_ids(&self) -> impl Iterator<Item = &str> + use<'_, 'a> {
        let results = self.parts.iter().filter_map(|part| match part {
            Part::ToolResult { call_id, .. } => call_id.as_deref(),
            _ => None,
        });
        self.call_id.as_deref().into_iter().chain(results)
    }

    /// True when this message answers a tool call: a tool-role message (OpenAI `tool`, pi
    /// `toolResult`, Codex call outputs), or one holding results that name the call they
    /// answer (Anthropic `tool_result` blocks, Gemini `functionResponse` parts). Such a message
    /// belongs with the call. A result naming no call (pi's `bashExecution`, a command the user
    /// ran) is the user's own message, and so is a turn holding its own calls' results (a
    /// Gemini model turn's `toolCalls[].result`).
    pub fn answers_a_call(&self) -> bool {
        self.role == Role::Tool
            || self
                .answered_ids()
                .any(|id| !self.call_ids().any(|call| call == id))
    }
}

/// What a record is.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry<'a> {
    /// A message the model saw.
    Message(Message<'a>),
    /// A record carried through untouched: its format-specific kind (`_checkpoint`,
    /// `file-history-snapshot`, `event_msg`, …), for reports.
    Bookkeeping(Cow<'a, str>),
}

/// A context size the provider itself reported at this point of the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Tokens in the context window after this call (prompt plus output).
    pub context_tokens: u64,
    /// Records with the same key repeat one provider response (Claude Code writes one API
    /// response as several lines, each carrying the same usage); `None` when every usage record
    /// stands alone. A hash, like a [`NodeId`]: keys are only ever compared, and `estimate`
    /// keeps one per line.
    pub response_key: Option<NodeId>,
}

/// One non-blank line of a transcript, read into the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Record<'a> {
    /// 1-based line number in its input.
    pub line: usize,
    /// The line's exact bytes, without its line terminator.
    pub raw: &'a [u8],
    /// What the line is.
    pub entry: Entry<'a>,
    /// The provider's own context size recorded on this line, if any.
    pub usage: Option<Usage>,
    /// True when this line is the agent's own compaction marker (Claude Code
    /// `compact_boundary`, Codex `compacted`, pi `compaction`): what came before it is no longer
    /// in the agent's context.
    pub compaction: bool,
    /// Where the line sits in the session's tree and what it does to the live context.
    pub link: Link,
}

/// A hashed id (Claude Code `uuid`, pi `id`, Gemini message `id`): records are linked by
/// equality of ids only, so a 64-bit hash serves and keeps a node small enough for `estimate`
/// to hold one per line of a file of any size.
pub type NodeId = u64;

/// The [`NodeId`] of an id string.
pub fn node_id(id: &str) -> NodeId {
    // Eight bytes at a time (ids are uuids, hashed three times a line by `estimate`): each word
    // is mixed in by a multiply, which no two words that differ survive alike, then the
    // length and a finalising mix, so ids differing in one character spread apart.
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut words = id.as_bytes().chunks_exact(8);
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for word in &mut words {
        let word: [u8; 8] = word.try_into().expect("chunks of eight");
        hash = (hash ^ u64::from_le_bytes(word))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    hash = (hash ^ u64::from_le_bytes(last)).wrapping_mul(K) ^ id.len() as u64;
    let mixed = (hash ^ (hash >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    mixed ^ (mixed >> 33)
}

/// A record's parent in a session tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Parent {
    /// The format or line has no parent field: the record follows the one before it.
    #[default]
    Unlinked,
    /// The record starts a tree (a `null` parent).
    Root,
    /// The record hangs under this node.
    Node(NodeId),
}

/// What a record does to the live context beyond being part of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Event {
    /// Nothing: the record is simply in the context (or not) by its place in the tree.
    #[default]
    None,
    /// A compaction marker whose summary replaces what came before, keeping what `keep` says.
    Compaction(Keep),
    /// Gemini `$rewindTo`: the message with this id and everything after it are dropped.
    RewindTo(NodeId),
    /// Gemini `$set` with a `messages` list: the list so far is replaced by the messages the
    /// line carries, which are read as the records right after this one.
    Reset,
    /// Codex `thread_rolled_back`: the last this many user turns are dropped.
    RollBack(u32),
    /// The context changed under the usage figures recorded so far (Claude Code
    /// `microcompact_boundary`, and the marker `condense prune` appends): a figure on any
    /// record before this one no longer describes it. The marker `condense prune` writes holds
    /// the context size after the prune, which then stands for every record before it.
    VoidUsage(Option<u64>),
    /// Claude Code's `microcompact_boundary` that cleared old tool results from the request:
    /// the figure recorded before it stands, less the tokens it says it saved
    /// (`microcompactMetadata.tokensSaved`).
    ShrinkUsage(u64),
}

/// The records a compaction marker keeps from before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Keep {
    /// None: the context restarts at the marker (Codex, Claude Code without a kept tail).
    #[default]
    Nothing,
    /// The real user messages before it (a Codex `compacted` line without a
    /// `replacement_history`, which Codex rebuilds from them and the summary).
    UserMessages,
    /// pi v2/v3 `firstKeptEntryId`: the path from this entry up to the marker.
    FromNode(NodeId),
    /// Droid `anchorMessage.id`: the messages after this one, the last the summary replaced.
    After(NodeId),
    /// pi v1 `firstKeptEntryIndex`: the entries from this one (the header is entry 0).
    FromEntry(usize),
    /// Claude Code `compactMetadata.preservedMessages`: these records, chained one after
    /// another under `anchor` (the summary line), in this order.
    Preserved {
        /// The node the first preserved record is re-linked under.
        anchor: NodeId,
        /// The preserved records, in context order.
        nodes: Vec<NodeId>,
    },
    /// Claude Code `compactMetadata.preservedSegment`: the chain walked back from `tail` to
    /// `head`, re-linked under `anchor`.
    Segment {
        /// The first record of the segment.
        head: NodeId,
        /// The node the segment is re-linked under.
        anchor: NodeId,
        /// The last record of the segment.
        tail: NodeId,
    },
}

/// A record's place in the session: its own id, its parent, and its [`Event`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Link {
    /// Its id, when it has one.
    pub id: Option<NodeId>,
    /// Its parent.
    pub parent: Parent,
    /// What it does to the context.
    pub event: Event,
    /// The API response a fragment belongs to (Claude Code writes one response as several
    /// `assistant` lines sharing `message.id`; parallel tool calls can leave some of them
    /// beside the chain).
    pub response: Option<NodeId>,
}

impl<'a> Record<'a> {
    /// A record holding this entry, with no usage and no compaction mark.
    pub fn new(line: usize, raw: &'a [u8], entry: Entry<'a>) -> Self {
        Record {
            line,
            raw,
            entry,
            usage: None,
            compaction: false,
            link: Link::default(),
        }
    }

    /// The message, if this record is one.
    pub fn message(&self) -> Option<&Message<'a>> {
        match &self.entry {
            Entry::Message(message) => Some(message),
            Entry::Bookkeeping(_) => None,
        }
    }
}

impl Record<'_> {
    /// This record with nothing borrowed from the text it was read from, standing for the line
    /// `raw` (a line read from a copy of itself, see [`super::read`]).
    pub fn owned_as<'b>(self, raw: &'b [u8]) -> Record<'b> {
        let owned = |text: Cow<'_, str>| -> Cow<'b, str> { Cow::Owned(text.into_owned()) };
        let text = |text: Text<'_>| -> Text<'b> { Text::from(text.into_owned()) };
        let entry = match self.entry {
            Entry::Bookkeeping(kind) => Entry::Bookkeeping(owned(kind)),
            Entry::Message(message) => Entry::Message(Message {
                role: message.role,
                sidechain: message.sidechain,
                call_id: message.call_id.map(owned),
                parts: message
                    .parts
                    .into_iter()
                    .map(|part| match part {
                        Part::Text(t) => Part::Text(text(t)),
                        Part::Thinking(t) => Part::Thinking(text(t)),
                        Part::ToolCall {
                            id,
                            name,
                            arguments,
                        } => Part::ToolCall {
                            id: id.map(owned),
                            name: owned(name),
                            arguments: text(arguments),
                        },
                        Part::ToolResult { call_id, text: t } => Part::ToolResult {
                            call_id: call_id.map(owned),
                            text: text(t),
                        },
                        Part::Media(kind) => Part::Media(kind),
                        Part::Other(kind) => Part::Other(owned(kind)),
                    })
                    .collect(),
            }),
        };
        Record {
            line: self.line,
            raw,
            entry,
            usage: self.usage,
            compaction: self.compaction,
            link: self.link,
        }
    }
}

/// Checks the corpus tests of every format share.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::HashSet;
    use std::path::Path;

    use crate::transcript::sketch::Sketch;
    use crate::transcript::DETECT_LINES;

    /// A main-chain message record holding one text.
    pub fn text_record(role: Role, text: &str) -> super::Record<'static> {
        super::Record::new(
            0,
            b"",
            super::Entry::Message(Message::new(role, vec![Part::Text(text.to_owned().into())])),
        )
    }

    /// Parses literal lines, as detection sees them.
    pub fn head<'a>(lines: &[&'a str]) -> Vec<Sketch<'a>> {
        lines.iter().map(|line| Sketch::of(line).unwrap()).collect()
    }

    /// Every non-blank line of a file under `fixtures/corpus/`, with its 1-based number.
    pub fn corpus(path: &str) -> Vec<(usize, String)> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/corpus")
            .join(path);
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(index, line)| (index + 1, line.to_owned()))
            .collect()
    }

    /// The bytes of a file under `fixtures/corpus/`.
    pub fn corpus_bytes(path: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/corpus")
            .join(path);
        std::fs::read(path).unwrap()
    }

    /// The top-level keys of a JSON object line, in the order written (a writer copies the
    /// agent's own key order).
    pub fn keys(line: &[u8]) -> Vec<String> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Vec<String>, A::Error> {
                let mut keys = Vec::new();
                while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                    keys.push(key);
                }
                Ok(keys)
            }
        }
        let mut de = serde_json::Deserializer::from_slice(line);
        serde::Deserializer::deserialize_map(&mut de, Keys).unwrap()
    }

    /// Reads corpus lines with `format`, panicking on a bad line, and counts the messages,
    /// compaction markers and usage figures among the records.
    pub fn read_all<'l>(
        format: &dyn crate::transcript::format::Format,
        lines: &'l [(usize, String)],
    ) -> (Vec<crate::transcript::Record<'l>>, (usize, usize, usize)) {
        let records: Vec<_> = lines
            .iter()
            .map(|(number, line)| {
                format
                    .read(*number, line)
                    .unwrap_or_else(|err| panic!("line {number}: {err}"))
            })
            .collect();
        let count =
            |f: fn(&crate::transcript::Record) -> bool| records.iter().filter(|r| f(r)).count();
        let counts = (
            count(|r| r.message().is_some()),
            count(|r| r.compaction),
            count(|r| r.usage.is_some()),
        );
        (records, counts)
    }

    /// The lines detection looks at.
    pub fn corpus_head(lines: &[(usize, String)]) -> Vec<Sketch<'_>> {
        lines
            .iter()
            .filter_map(|(_, line)| Sketch::of(line).ok())
            .take(DETECT_LINES)
            .collect()
    }

    use super::{Message, Part, Role};

    /// Tool results of a transcript and how many of them are orphaned.
    #[derive(Debug, Default, PartialEq, Eq)]
    pub struct Links {
        /// Tool results: each message with a [`Message::call_id`], and each
        /// [`Part::ToolResult`] of a message without one; a tool-role message with neither
        /// counts as one result without an id.
        pub results: usize,
        /// Those whose id no earlier tool call of the transcript has, or that have no id.
        pub orphans: usize,
    }

    /// Counts the tool results of these messages (in transcript order) and which answer no
    /// call made before them. Parts are taken in order, so a call and its result in one
    /// message (Gemini) link.
    pub fn links<'m, 'a: 'm>(messages: impl IntoIterator<Item = &'m Message<'a>>) -> Links {
        let mut calls: HashSet<&str> = HashSet::new();
        let mut links = Links::default();
        let mut result = |calls: &HashSet<&str>, id: Option<&str>| {
            links.results += 1;
            links.orphans += usize::from(!id.is_some_and(|id| calls.contains(id)));
        };
        for message in messages {
            let keyed = message.call_id.is_some();
            if keyed {
                result(&calls, message.call_id.as_deref());
            }
            let mut parts_results = 0;
            for part in &message.parts {
                match part {
                    Part::ToolCall { id: Some(id), .. } => {
                        calls.insert(id);
                    }
                    Part::ToolResult { call_id, .. } if !keyed => {
                        parts_results += 1;
                        result(&calls, call_id.as_deref());
                    }
                    _ => {}
                }
            }
            if !keyed && parts_results == 0 && message.role == Role::Tool {
                result(&calls, None);
            }
        }
        links
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: Option<&'static str>) -> Part<'static> {
        Part::ToolCall {
            id: id.map(Cow::Borrowed),
            name: "Shell".into(),
            arguments: "{}".into(),
        }
    }

    fn result(call_id: Option<&'static str>) -> Part<'static> {
        Part::ToolResult {
            call_id: call_id.map(Cow::Borrowed),
            text: "ok".into(),
        }
    }

    #[test]
    fn new_answers_nothing_and_answering_sets_the_call() {
        let message = Message::new(Role::Tool, vec![Part::Text("ok".into())]);
        assert_eq!(message.call_id, None);
        assert!(!message.sidechain);
        let answer = message.answering(Some("call_1".into()));
        assert_eq!(answer.call_id.as_deref(), Some("call_1"));
        assert_eq!(answer.answering(None).call_id, None);
    }

    #[test]
    fn call_ids_are_the_calls_made_in_order() {
        let message = Message::new(
            Role::Assistant,
            vec![
                Part::Text("Running.".into()),
                call(Some("a")),
                call(None),
                result(Some("x")),
                call(Some("b")),
            ],
        )
        .answering(Some("y".into()));
        assert_eq!(message.call_ids().collect::<Vec<_>>(), ["a", "b"]);
        let text = Message::new(Role::User, vec![Part::Text("hi".into())]);
        assert_eq!(text.call_ids().count(), 0);
    }

    #[test]
    fn answered_ids_are_the_message_id_then_each_result_id() {
        let keyed =
            Message::new(Role::Tool, vec![Part::Text("ok".into())]).answering(Some("m".into()));
        assert_eq!(keyed.answered_ids().collect::<Vec<_>>(), ["m"]);
        let parts = Message::new(
            Role::User,
            vec![
                result(Some("a")),
                Part::Media(MediaKind::Image),
                result(None),
                call(Some("c")),
                result(Some("b")),
            ],
        );
        assert_eq!(parts.answered_ids().collect::<Vec<_>>(), ["a", "b"]);
        let both = Message::new(Role::Tool, vec![result(Some("p"))]).answering(Some("m".into()));
        assert_eq!(both.answered_ids().collect::<Vec<_>>(), ["m", "p"]);
        let none = Message::new(Role::Tool, vec![result(None)]);
        assert_eq!(none.answered_ids().count(), 0);
    }

    #[test]
    fn links_count_results_and_orphans() {
        let messages = [
            Message::new(Role::Assistant, vec![call(Some("a")), result(Some("a"))]),
            Message::new(Role::Tool, vec![Part::Text("ok".into())]).answering(Some("a".into())),
            // Answers a call made only later, and a call never made.
            Message::new(Role::User, vec![result(Some("b")), result(Some("z"))]),
            Message::new(Role::Assistant, vec![call(Some("b"))]),
            // Keyed at the message level: its parts are not results of their own.
            Message::new(Role::Tool, vec![result(None)]).answering(Some("b".into())),
            // No id at all.
            Message::new(Role::Tool, vec![Part::Text("?".into())]),
            Message::new(Role::User, vec![result(None)]),
        ];
        assert_eq!(
            testing::links(&messages),
            testing::Links {
                results: 7,
                orphans: 4
            }
        );
    }
}
