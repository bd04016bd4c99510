//! Byte-pair merging of one piece that is not itself a token: how many tokens it becomes.
//!
//! The rule is tiktoken's: start from single bytes, and while some adjacent pair of parts is a
//! token, merge the pair of lowest rank, the leftmost of equal ranks. A short piece (the common
//! case) rescans its few parts for each merge; a long one (a run of letters can be thousands of
//! bytes) keeps its candidate pairs in a heap, so a merge costs a logarithm, not a rescan.
//! Both give the same parts; only their number is kept.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::table::Vocabulary;

/// Pieces up to this long are merged by rescanning (tiktoken draws its line at 100 too).
const SHORT: usize = 100;

/// No pair: a rank above every real one.
const NONE: u32 = u32::MAX;

/// Buffers reused from piece to piece.
#[derive(Default)]
pub struct Scratch {
    /// Short path: (start of the part, rank of it joined with the next part).
    parts: Vec<(usize, u32)>,
    /// Long path: for each starting byte of a part, the part's end, the previous part's start,
    /// and the rank of the part joined with the next one; `dead` once merged into its left.
    nodes: Vec<Node>,
    heap: BinaryHeap<Reverse<(u32, usize)>>,
}

#[derive(Clone, Copy)]
struct Node {
    end: usize,
    prev: usize,
    rank: u32,
    dead: bool,
}

impl Scratch {
    /// The number of tokens `piece` (at least two bytes) merges into.
    pub fn count(&mut self, vocabulary: &Vocabulary, piece: &[u8]) -> usize {
        if piece.len() < 2 {
            return piece.len();
        }
        if piece.len() < SHORT {
            self.count_short(vocabulary, piece)
        } else {
            self.count_long(vocabulary, piece)
        }
    }

    fn count_short(&mut self, vocabulary: &Vocabulary, piece: &[u8]) -> usize {
        let rank = |from: usize, to: usize| vocabulary.rank(&piece[from..to]).unwrap_or(NONE);
        let parts = &mut self.parts;
        parts.clear();
        parts.extend((0..piece.len() - 1).map(|i| (i, rank(i, i + 2))));
        // Two sentinels: the last byte's part (no pair after it) and the end of the piece.
        parts.push((piece.len() - 1, NONE));
        parts.push((piece.len(), NONE));
        // The leftmost pair of lowest rank (min_by_key keeps the first of equals), while there
        // is a pair that is a token.
        while let Some((i, _)) = parts[..parts.len() - 1]
            .iter()
            .enumerate()
            .min_by_key(|(_, &(_, r))| r)
            .filter(|(_, &(_, r))| r != NONE)
        {
            // Part i absorbs part i + 1; its pair is now with part i + 2, and the pair on its
            // left spans the merged part.
            parts[i].1 = if i + 3 < parts.len() {
                rank(parts[i].0, parts[i + 3].0)
            } else {
                NONE
            };
            if i > 0 {
                parts[i - 1].1 = rank(parts[i - 1].0, parts[i + 2].0);
            }
            parts.remove(i + 1);
        }
        // The parts less the end sentinel.
        parts.len() - 1
    }

    fn count_long(&mut self, vocabulary: &Vocabulary, piece: &[u8]) -> usize {
        let len = piece.len();
        let rank = |from: usize, to: usize| vocabulary.rank(&piece[from..to]).unwrap_or(NONE);
        let nodes = &mut self.nodes;
        let heap = &mut self.heap;
        nodes.clear();
        heap.clear();
        for i in 0..len {
            let pair = if i + 2 <= len { rank(i, i + 2) } else { NONE };
            nodes.push(Node {
                end: i + 1,
                prev: i.wrapping_sub(1),
                rank: pair,
                dead: false,
            });
            if pair != NONE {
                heap.push(Reverse((pair, i)));
            }
        }
        let mut count = len;
        while let Some(Reverse((pair, i))) = heap.pop() {
            // Entries go stale when a neighbour merges; the node's own rank is the truth, and
            // every live pair has an entry with its current rank.
            if nodes[i].dead || nodes[i].rank != pair {
                continue;
            }
            let next = nodes[i].end;
            let after = nodes[next].end;
            nodes[next].dead = true;
            nodes[i].end = after;
            if after < len {
                nodes[after].prev = i;
                nodes[i].rank = rank(i, nodes[after].end);
            } else {
                nodes[i].rank = NONE;
            }
            if nodes[i].rank != NONE {
                heap.push(Reverse((nodes[i].rank, i)));
            }
            let prev = nodes[i].prev;
            if prev != usize::MAX {
                nodes[prev].rank = rank(prev, after);
                if nodes[prev].rank != NONE {
                    heap.push(Reverse((nodes[prev].rank, prev)));
                }
            }
            count -= 1;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::bpe::Encoding;

    #[test]
    fn both_paths_agree_on_every_length() {
        let vocabulary = Vocabulary::get(Encoding::O200k);
        let mut scratch = Scratch::default();
        let text: Vec<u8> = (0..400u32)
            .map(|i| b"etaoinshrdlu"[(i * i % 12) as usize])
            .collect();
        for len in 2..text.len() {
            let piece = &text[..len];
            let short = scratch.count_short(vocabulary, piece);
            let long = scratch.count_long(vocabulary, piece);
            assert_eq!(short, long, "length {len}");
        }
    }
}
