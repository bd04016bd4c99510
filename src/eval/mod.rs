//! `condense eval`'s core (pure): what a compaction kept and what it lost.
//!
//! At a cut ([`cuts`]) a session splits into the **prefix**, the live context the summary was
//! written from, and the **suffix**, what the user and the agent wrote next. The entities
//! ([`entity`]; found by [`entities`] and [`constraints`]) the suffix **re-used** from the
//! prefix are what the agent needed to carry on; each summary is graded ([`grade`]) by which of
//! them it **carried**, and by the hand-written [`probes`] of the cut when there are some.
//! [`report`] shapes the result. The texts looked in are cut from records by [`pieces`]; shell
//! commands are read by [`commands`]; the word lists are in [`words`].
//!
//! `docs/EVAL.md` defines the kinds and the matching in prose; these modules are the one place
//! they are defined in code, and `benches/quality` keeps its own older matchers (see there).

pub mod commands;
pub mod constraints;
pub mod cuts;
pub mod entities;
pub mod entity;
pub mod grade;
pub mod pieces;
pub mod probes;
pub mod report;
pub mod words;
