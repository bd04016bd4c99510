//! The one integration-test binary: every test runs the real `condense` binary (or, for the
//! byte-level contracts, the library) on files inside the repository.

mod budget;
mod caveman;
mod corpus;
mod docs;
mod estimate;
mod hardening;
mod history;
mod live;
mod manners;
mod pipeline;
mod properties;
mod quality;
mod sessions;
mod util;
