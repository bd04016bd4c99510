//! What the fuzz targets share: turning an input's leading bytes into the choices a command
//! line makes (mode, budgets, estimator, format), and the invariants more than one target
//! checks. Every check panics on failure, which libFuzzer reports as a crash.

use std::collections::HashMap;

use condense::plan::{Kept, Mode, Plan};
use condense::tokens::{Family, Tokenizer};
use condense::transcript::load::{region_lines, Transcript};
use condense::transcript::{FormatId, Record};

/// Bytes of choices before the transcript: mode, estimator, format, flags, two `u32`s.
pub const HEADER: usize = 12;

/// What a command line would choose, read from the front of a fuzz input.
#[derive(Debug, Clone, Copy)]
pub struct Choices {
    mode: u8,
    /// The estimator (never an exact BPE one: the fuzz build leaves the tables out).
    pub tokenizer: Tokenizer,
    /// `--from`, or `None` to detect.
    pub from: Option<FormatId>,
    flags: u8,
    p0: u32,
    p1: u32,
}

/// The format a byte names (every format, in [`FormatId::DETECTION_ORDER`]).
pub fn format_of(byte: u8) -> FormatId {
    FormatId::DETECTION_ORDER[usize::from(byte) % FormatId::DETECTION_ORDER.len()]
}

/// The estimator a byte names.
pub fn tokenizer_of(byte: u8) -> Tokenizer {
    match byte % 6 {
        0 => Tokenizer::Chars4,
        1 => Tokenizer::Chars35,
        2 => Tokenizer::KimiCode,
        3 => Tokenizer::Fast(Family::Openai),
        4 => Tokenizer::Fast(Family::Claude),
        _ => Tokenizer::Fast(Family::Claude47),
    }
}

impl Choices {
    /// The choices and the rest of the input, or `None` when it is shorter than [`HEADER`].
    pub fn split(data: &[u8]) -> Option<(Choices, &[u8])> {
        if data.len() < HEADER {
            return None;
        }
        let (head, rest) = data.split_at(HEADER);
        let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
        let choices = Choices {
            mode: head[0],
            tokenizer: tokenizer_of(head[1]),
            from: (head[2] % 8 < 6).then(|| format_of(head[2])),
            flags: head[3],
            p0: word(4),
            p1: word(8),
        };
        Some((choices, rest))
    }

    /// A spare flag bit for a target's own use (bits 4 to 7).
    pub fn flag(&self, bit: u8) -> bool {
        self.flags & (1 << (4 + bit)) != 0
    }

    /// The mode, for a transcript of `records` records. Budgets are small unless a flag asks
    /// for huge ones (near `u64::MAX`), to look for overflow.
    pub fn mode(&self, records: usize) -> Mode {
        let budget = |p: u32| {
            if self.flags & 2 != 0 {
                u64::MAX - u64::from(p)
            } else {
                u64::from(p % 4096)
            }
        };
        match self.mode % 4 {
            0 => Mode::Tail {
                preserve: if self.flags & 1 != 0 {
                    i64::from(self.p0 as i32)
                } else {
                    i64::from(self.p0 % 8)
                },
            },
            1 => Mode::Budgets {
                head_tokens: budget(self.p0),
                tail_tokens: budget(self.p1),
            },
            2 => Mode::User {
                keep_user_tokens: budget(self.p0),
                user_head_tokens: budget(self.p1),
            },
            _ => Mode::Upto {
                index: if self.flags & 1 != 0 {
                    usize::MAX - self.p0 as usize
                } else {
                    self.p0 as usize % (records + 2)
                },
            },
        }
    }
}

/// A transcript's lines tile its input, and its records index its non-blank lines.
pub fn check_transcript(transcript: &Transcript, input: &[u8]) {
    let all: Vec<u8> = transcript
        .line_bytes(0, transcript.lines.len())
        .flatten()
        .copied()
        .collect();
    assert_eq!(all, input, "the lines do not tile the input");
    assert_eq!(transcript.records.len(), transcript.record_lines.len());
    for (index, record) in transcript.records.iter().enumerate() {
        let line = transcript.lines[transcript.record_lines[index]];
        // A record is its line, or (one of several on a line) a part of it.
        let within = line.text.as_ptr_range();
        let own = record.raw.as_ptr_range();
        assert!(
            record.raw == line.text || (within.start <= own.start && own.end <= within.end),
            "record {index} is not its line"
        );
        assert_eq!(record.line, line.number);
        assert!(!line.is_blank());
    }
    assert!(transcript.record_lines.windows(2).all(|w| w[0] <= w[1]));
    // The live context names each record at most once.
    let mut seen = vec![false; transcript.records.len()];
    for &index in &transcript.live.order {
        assert!(
            !std::mem::replace(&mut seen[index], true),
            "record {index} twice in the context"
        );
    }
    assert_eq!(transcript.context().len(), transcript.live.order.len());
}

/// The regions of a plan are consecutive, cover every record, tile the input's lines, never
/// part a tool call from its result, and name only real records.
pub fn check_plan(plan: &Plan, transcript: &Transcript, input: &[u8]) {
    let n = transcript.records.len();
    assert_eq!(plan.records, n);
    assert_eq!(plan.lead.start, 0);
    assert_eq!(plan.lead.end, plan.head.start);
    assert_eq!(plan.head.end, plan.compact.start);
    assert_eq!(plan.compact.end, plan.tail.start);
    assert_eq!(plan.tail.end, n);
    // With no record every region is 0..0 and `split --emit tail` prints every line itself.
    if n > 0 {
        let mut rebuilt: Vec<u8> = Vec::new();
        for region in [&plan.lead, &plan.head, &plan.compact, &plan.tail] {
            let lines = region_lines(transcript, region);
            rebuilt.extend(
                transcript
                    .line_bytes(lines.start, lines.end)
                    .flatten()
                    .copied(),
            );
        }
        assert_eq!(rebuilt, input, "the regions do not tile the input");
    }
    if plan.noop.is_some() {
        assert_eq!(plan.tail, 0..n);
        assert!(plan.kept_head.is_empty() && plan.kept_tail.is_empty());
        return;
    }
    check_tool_pairs(plan, &transcript.records);
    for kept in plan.kept_head.iter().chain(&plan.kept_tail) {
        assert!(kept.record < n);
        let message = transcript.records[kept.record].message();
        assert!(message.is_some(), "a kept user record is not a message");
        if let Kept::Text(text) = &kept.kept {
            assert!(!text.is_empty());
        }
    }
    let order: Vec<usize> = plan
        .kept_head
        .iter()
        .chain(&plan.kept_tail)
        .map(|k| k.record)
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "kept users out of order"
    );
}

/// Each result answers the nearest call before it with its id (as the planner links them); no
/// such pair may straddle the tail's start.
fn check_tool_pairs(plan: &Plan, records: &[Record]) {
    let mut last_call: HashMap<&str, usize> = HashMap::new();
    for (index, record) in records.iter().enumerate() {
        let Some(message) = record.message() else {
            continue;
        };
        for id in message.answered_ids() {
            if let Some(&call) = last_call.get(id) {
                assert!(
                    !(call < plan.tail.start && index >= plan.tail.start),
                    "result {index} is kept but the call {call} it answers is not in the tail"
                );
            }
        }
        for id in message.call_ids() {
            last_call.insert(id, index);
        }
    }
}
