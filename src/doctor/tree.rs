//! The links between records, as the tree agents' loaders index them (pure): the first record
//! of an id wins, a parent is the record of that id, and the walk from a record to its root
//! either reaches a root, stops at a parent the file lacks (dangling), or comes round (a
//! cycle).

use std::collections::HashMap;

use crate::transcript::{NodeId, Parent, Record};

/// Where the walk up from a record ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// At a root (or a record with no parent field).
    Root,
    /// At a record whose parent the file lacks, or that closes a cycle: that record's index.
    Broken(usize),
}

/// The records' links.
#[derive(Debug)]
pub struct Links {
    /// Each record's parent record, when it names one the file has.
    parent: Vec<Option<usize>>,
    /// True for a record that names a parent the file lacks.
    missing: Vec<bool>,
    /// The first record of each id.
    by_id: HashMap<NodeId, usize>,
    /// Where each record's walk ends.
    end: Vec<End>,
    /// The records that close a cycle (the first of the cycle in file order).
    closing: Vec<usize>,
}

impl Links {
    /// The links of `records`.
    pub fn of(records: &[Record]) -> Self {
        let mut by_id = HashMap::with_capacity(records.len());
        for (index, record) in records.iter().enumerate() {
            if let Some(id) = record.link.id {
                by_id.entry(id).or_insert(index);
            }
        }
        let mut missing = vec![false; records.len()];
        let parent: Vec<Option<usize>> = records
            .iter()
            .enumerate()
            .map(|(index, record)| match record.link.parent {
                Parent::Node(id) => {
                    let found = by_id.get(&id).copied();
                    missing[index] = found.is_none();
                    found
                }
                Parent::Root | Parent::Unlinked => None,
            })
            .collect();
        let mut links = Links {
            parent,
            missing,
            by_id,
            end: vec![End::Root; records.len()],
            closing: Vec::new(),
        };
        links.walk();
        links
    }

    /// Finds where each record's walk ends, each record visited once: a walk that reaches a
    /// record already settled takes its end; one that reaches a record of its own walk has
    /// found a cycle, closed by the earliest record of it.
    fn walk(&mut self) {
        const NEW: u8 = 0;
        const ON_WALK: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.parent.len()];
        let mut path = Vec::new();
        for start in 0..self.parent.len() {
            let mut current = start;
            let end = loop {
                match state[current] {
                    DONE => break self.end[current],
                    ON_WALK => {
                        let at = path.iter().position(|&i| i == current).unwrap_or(0);
                        let first = path[at..].iter().copied().min().unwrap_or(current);
                        self.closing.push(first);
                        break End::Broken(first);
                    }
                    _ => {}
                }
                state[current] = ON_WALK;
                path.push(current);
                if self.missing[current] {
                    break End::Broken(current);
                }
                match self.parent[current] {
                    Some(up) => current = up,
                    None => break End::Root,
                }
            };
            for index in path.drain(..) {
                state[index] = DONE;
                self.end[index] = end;
            }
        }
        self.closing.sort_unstable();
    }

    /// The records whose parent the file lacks.
    pub fn dangling(&self) -> Vec<usize> {
        (0..self.missing.len())
            .filter(|&i| self.missing[i])
            .collect()
    }

    /// The record that closes each cycle.
    pub fn cycles(&self) -> Vec<usize> {
        self.closing.clone()
    }

    /// The broken links, dangling or closing a cycle, in file order.
    pub fn broken(&self) -> Vec<usize> {
        let mut all = self.dangling();
        all.extend(&self.closing);
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The broken link the walk up from record `index` stops at, if it stops at one.
    pub fn broken_at(&self, index: usize) -> Option<usize> {
        match self.end[index] {
            End::Broken(at) => Some(at),
            End::Root => None,
        }
    }

    /// True when the walk up from record `index` reaches a root.
    pub fn rooted(&self, index: usize) -> bool {
        self.end[index] == End::Root
    }

    /// The records whose id an earlier record has, with different bytes (a byte-for-byte
    /// replay of a line, which resumed sessions write, costs the agent nothing).
    pub fn duplicates(&self, records: &[Record]) -> Vec<usize> {
        records
            .iter()
            .enumerate()
            .filter(|(index, record)| {
                record.link.id.is_some_and(|id| {
                    let first = self.by_id[&id];
                    first != *index && records[first].raw != record.raw
                })
            })
            .map(|(index, _)| index)
            .collect()
    }
}
