//! A record's place in a session tree (its hashed id and parent) and what it does to the live
//! context (a compaction and what it keeps, a rewind, a roll-back, a usage figure voided).

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
    /// Claude Code's queue of what the user typed while the agent worked (a `queue-operation`
    /// line): which queued text reached the model, and where, is the agent's rule (see
    /// `claude_code::queued`).
    Queue(QueueOp),
}

/// One operation on Claude Code's queue of messages typed while the agent worked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueOp {
    /// A message joined the queue. The user's own words are read as a user message, which
    /// reaches the model only if a later [`QueueOp::Deliver`] takes it.
    Enqueue,
    /// The oldest queued message of the user's was handed to the model mid-turn, beside the
    /// tool results of the running turn; no other line carries its text.
    Deliver,
    /// The oldest queued message left the queue to run as the next turn: the `user` line that
    /// follows carries it.
    Dequeue,
    /// The oldest queued message of the user's left the queue unsent: taken back into the
    /// input box to be edited, or cleared.
    Withdraw,
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
