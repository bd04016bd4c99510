//! PLACEHOLDER: being written; replaced by the real claude_code reader.

use anyhow::{bail, Result};
use serde_json::Value;

use super::{Format, Record};

/// The claude_code format.
pub struct ClaudeCode;

impl Format for ClaudeCode {
    fn detect(&self, _head: &[Value]) -> bool {
        false
    }

    fn read<'a>(&self, _line: usize, _text: &'a str) -> Result<Record<'a>> {
        bail!("not written yet")
    }
}
