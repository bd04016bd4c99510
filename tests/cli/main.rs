//! The one integration-test binary: every test runs the real `condense` binary (or, for the
//! byte-level contracts, the library) on files inside the repository.

mod agents;
mod budget;
mod caveman;
mod codex_remote;
mod compact;
mod corpus;
mod docs;
mod doctor;
mod estimate;
mod eval;
mod explain;
mod gemini_legacy;
mod handoff;
mod hardening;
mod history;
mod in_place;
mod install;
mod layers;
mod live;
mod manners;
mod opencode_db;
mod pipeline;
mod properties;
mod prune;
mod quality;
mod race;
mod recipes;
mod request;
mod sessions;
mod settings;
mod torn;
mod trace;
mod undo;
mod util;
mod verify;
