//! When Droid compacts by itself (`chunk-9qgty9w5.js` → `src/core/AgentLoop.ts`, and
//! `getCompactionTokenLimitForModel`, `chunk-20tv27n2.js`): after a model call whose reported
//! tokens exceed the compaction limit: the settings' `compactionTokenLimitPerModel[model]`,
//! else `compactionTokenLimit`, else the model's own default, else 250,000, capped at the
//! model's window. Its `compaction_state` records no context size.

use super::Droid;
use crate::transcript::trigger::{Native, Trigger};

/// Droid's limit when neither the settings nor the model set one.
const DEFAULT_LIMIT: u64 = 250_000;

impl Trigger for Droid {
    fn native(&self, window: u64, _model: Option<&str>) -> Option<Native> {
        let limit = DEFAULT_LIMIT.min(window);
        Some(Native {
            agent: "Factory Droid",
            window,
            // Droid compacts when the tokens exceed the limit: the first count that does.
            compacts_at: limit + 1,
            rule: format!(
                "tokens > min({DEFAULT_LIMIT}, window {window}); compactionTokenLimit (or \
                 compactionTokenLimitPerModel) in ~/.factory/settings.json replaces {DEFAULT_LIMIT}"
            ),
            source: "Droid 0.225.2 src/core/AgentLoop.ts threshold check, \
                     getCompactionTokenLimitForModel (default 250000)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::trigger::testing::edge;

    #[test]
    fn compacts_above_the_limit() {
        let native = Droid.native(200_000, None).unwrap();
        assert_eq!(native.compacts_at, 200_001);
        edge(&native, |t| t > 200_000);
        assert_eq!(Droid.native(1_000_000, None).unwrap().compacts_at, 250_001);
    }
}
