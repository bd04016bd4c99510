//! An Anthropic message list belongs to no agent's session folder.

use std::path::Path;

use anyhow::{bail, Result};

use super::Anthropic;
use crate::transcript::home::{Home, NewSession, Placement};

impl Home for Anthropic {
    fn place(&self, _home: &Path, _session: &NewSession) -> Result<Placement> {
        bail!(
            "--to-session-dir: an Anthropic message list belongs to no agent's session folder; \
             leave the flag out to write it to standard output"
        )
    }
}
