//! When Copilot CLI compacts by itself (`copilot-sdk/types.d.ts`, `InfiniteSessionConfig`):
//! a background compaction once the context reaches `backgroundCompactionThreshold` (0.80) of
//! the model's prompt limit, and a blocking one at `bufferExhaustionThreshold` (0.95). Its
//! `session.compaction_complete` records `preCompactionTokens`, its own estimate of the context
//! just before.

use serde_json::Value;

use super::read::COMPACTION;
use super::Copilot;
use crate::transcript::trigger::{at_least, Earlier, Native, Trigger};

/// `InfiniteSessionConfig.backgroundCompactionThreshold`'s default.
const BACKGROUND: f64 = 0.80;

impl Trigger for Copilot {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        Some(Native {
            agent: "Copilot CLI",
            window,
            compacts_at: at_least(window, BACKGROUND),
            rule: format!(
                "context >= {BACKGROUND} x the model's prompt limit {window} (background \
                 compaction; blocking at 0.95)"
            ),
            source: "@github/copilot 1.0.102 copilot-sdk/types.d.ts InfiniteSessionConfig \
                     backgroundCompactionThreshold 0.80",
        })
    }

    /// A successful compaction's `preCompactionTokens`.
    fn recorded(&self, line: usize, text: &[u8]) -> Option<Earlier> {
        memchr::memmem::find(text, b"preCompactionTokens")?;
        let value: Value = serde_json::from_slice(text).ok()?;
        if value["type"] != COMPACTION || value["data"]["success"] != true {
            return None;
        }
        Some(Earlier {
            line,
            tokens: value["data"]["preCompactionTokens"].as_u64()?,
            field: "preCompactionTokens",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_at_eighty_percent() {
        let native = Copilot.native(168_000, None).unwrap();
        assert_eq!(native.compacts_at, 134_400);
        edge(&native, |t| t as f64 >= 168_000.0 * 0.8);
    }

    #[test]
    fn reads_the_size_before_a_compaction() {
        let line = br#"{"type":"session.compaction_complete","data":{"success":true,"preCompactionTokens":13958,"summaryContent":"s"}}"#;
        assert_eq!(Copilot.recorded(4, line).unwrap().tokens, 13_958);
        let failed = br#"{"type":"session.compaction_complete","data":{"success":false,"preCompactionTokens":1}}"#;
        assert_eq!(Copilot.recorded(4, failed), None);
    }
}
