//! The records of one line, as [`read::read_records`](super::read::read_records) hands them
//! to [`load`](super::load): one record held in place, or a list of several.
//!
//! Almost every line is one record. A list per line, made on the reading threads and freed once
//! its records were moved into the transcript, left the heap with a hole the size of a record
//! between every two lines' parts (some 20 MB on a 100 MiB session), which none of the larger
//! allocations that come later could reuse: peak memory that no heap profile shows (issue 33).

use super::model::Record;

/// The records of one line, in order (see the module docs).
#[derive(Debug)]
pub enum LineRecords<'a> {
    /// One record, held in place.
    One(Record<'a>),
    /// Any other number of records (a line that holds several, or none).
    Many(Vec<Record<'a>>),
}

impl<'a> LineRecords<'a> {
    /// No records yet.
    pub fn new() -> Self {
        LineRecords::Many(Vec::new())
    }

    /// Adds the line's next record.
    pub fn push(&mut self, record: Record<'a>) {
        match self {
            LineRecords::Many(records) if records.is_empty() => *self = LineRecords::One(record),
            LineRecords::Many(records) => records.push(record),
            LineRecords::One(_) => {
                let LineRecords::One(first) = std::mem::take(self) else {
                    unreachable!("matched One");
                };
                *self = LineRecords::Many(vec![first, record]);
            }
        }
    }

    /// The records, in order.
    pub fn as_slice(&self) -> &[Record<'a>] {
        match self {
            LineRecords::One(record) => std::slice::from_ref(record),
            LineRecords::Many(records) => records,
        }
    }
}

impl Default for LineRecords<'_> {
    fn default() -> Self {
        LineRecords::new()
    }
}

impl<'a> IntoIterator for LineRecords<'a> {
    type Item = Record<'a>;
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<Record<'a>>, std::vec::IntoIter<Record<'a>>>;

    fn into_iter(self) -> Self::IntoIter {
        match self {
            LineRecords::One(record) => Some(record).into_iter().chain(Vec::new()),
            LineRecords::Many(records) => None.into_iter().chain(records),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Entry;

    fn record(line: usize) -> Record<'static> {
        Record::new(line, b"{}", Entry::Bookkeeping("x".into()))
    }

    fn lines(records: LineRecords) -> Vec<usize> {
        records.into_iter().map(|r| r.line).collect()
    }

    #[test]
    fn records_come_back_in_order_and_one_is_held_in_place() {
        let mut records = LineRecords::new();
        assert!(records.as_slice().is_empty());
        assert_eq!(lines(LineRecords::new()), Vec::<usize>::new());
        records.push(record(1));
        assert!(matches!(records, LineRecords::One(_)));
        assert_eq!(records.as_slice().len(), 1);
        assert_eq!(lines(records), [1]);
        let mut records = LineRecords::new();
        for line in 1..=3 {
            records.push(record(line));
        }
        assert_eq!(
            records
                .as_slice()
                .iter()
                .map(|r| r.line)
                .collect::<Vec<_>>(),
            [1, 2, 3]
        );
        assert_eq!(lines(records), [1, 2, 3]);
    }
}
