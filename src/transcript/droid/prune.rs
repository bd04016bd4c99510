//! Where prune may shrink a Droid session: the Anthropic-shaped message of a `message` record
//! (`tool_result` content, `tool_use` input, thinking blocks, removed whole), as
//! [`crate::transcript::anthropic`] finds them. condense reads no usage figure of Droid's, so a
//! prune appends no marker.

use serde_json::Value;

use super::Droid;
use crate::transcript::anthropic::prune::message_sites;
use crate::transcript::prune::{key, Prune, Site};

impl Prune for Droid {
    fn sites(&self, line: &Value, out: &mut Vec<Site>) {
        if line.get("type").and_then(Value::as_str) != Some("message") {
            return;
        }
        if let Some(message) = line.get("message") {
            message_sites(message, &[key("message")], false, out);
        }
    }
}
