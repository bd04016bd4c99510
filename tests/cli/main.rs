//! The one integration-test binary: every test runs the real `condense` binary (or, for the
//! byte-level contracts, the library) on files inside the repository.

mod agents;
mod budget;
mod caveman;
mod compact;
mod corpus;
mod docs;
mod estimate;
mod handoff;
mod hardening;
mod history;
mod in_place;
mod live;
mod pipeline;
mod properties;
mod quality;
mod race;
mod settings;
mod util;
