//! A session handed over to opencode: not written yet. opencode resumes only sessions that
//! are rows of its database (`session`, `message`, `part`, with a `project` the session
//! belongs to); `docs/agents/opencode.md` ("A new session") has the rows a handoff needs.

use anyhow::{bail, Result};

use super::OpenCode;
use crate::transcript::handoff::{Handoff, Session};
use crate::transcript::write::Sink;

impl Handoff for OpenCode {
    fn write_handoff(&self, _session: &Session, _out: &mut Sink) -> Result<()> {
        bail!("--to opencode is not supported yet: opencode keeps sessions as rows of its database, which condense does not create")
    }
}
