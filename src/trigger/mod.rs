//! Each agent's own auto-compaction trigger set beside the one condense's `--check` uses: what
//! `estimate --explain` reports. The rules themselves, as each agent's code computes them, and
//! the compactions its sessions record, are the agents' (each folder's `trigger.rs`, behind
//! [`crate::transcript::trigger::Trigger`]); this module compares and reports.

pub mod report;
