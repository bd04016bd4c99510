//! Why a plan cannot be made: an `--upto` past the end, or between a tool call and its result.

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// `--upto` points past the end.
    UptoOutOfRange {
        /// The index asked for.
        index: usize,
        /// How many records there are.
        records: usize,
    },
    /// `--upto` would separate a tool call from its result.
    UptoSplitsToolCall {
        /// The record `--upto` named.
        result_record: usize,
    },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            PlanError::UptoOutOfRange { index, records } => write!(
                f,
                "--upto {index} is past the last record (the transcript has {records})"
            ),
            PlanError::UptoSplitsToolCall { result_record } => write!(
                f,
                "--upto {result_record} would separate a tool result from the call it answers; \
                 choose a record that starts a turn"
            ),
        }
    }
}

impl std::error::Error for PlanError {}
