//! PLACEHOLDER: being written; replaced by the real anthropic reader.

use anyhow::{bail, Result};
use serde_json::Value;

use super::{Format, Record};

/// The anthropic format.
pub struct Anthropic;

impl Format for Anthropic {
    fn detect(&self, _head: &[Value]) -> bool {
        false
    }

    fn read<'a>(&self, _line: usize, _text: &'a str) -> Result<Record<'a>> {
        bail!("not written yet")
    }
}
