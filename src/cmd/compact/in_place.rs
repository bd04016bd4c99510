//! `compact --in-place`: the rung chosen written into the session file through the safe paths
//! `prune --in-place` (a pruned file is replaced, verified) and `inject --in-place` (a
//! compaction is appended or replaced, verified, journaled for undo) take. Under the lock the
//! file is read again: if the agent wrote meanwhile, the prune or the plan is made anew over
//! what it holds; if not, what was read and parsed already is used.

use std::path::Path;

use anyhow::Result;

use super::Run;
use crate::cmd::options;
use crate::cmd::verified::{verify_pruned, write_compaction, Held, Verify};
use crate::compaction::check::check_plan;
use crate::compaction::ladder::{Choice, Pruned};
use crate::compaction::prune::pruned_toward;
use crate::compaction::report::SavedPlan;
use crate::compaction::writer::compaction;
use crate::output::Warnings;
use crate::persist;
use crate::settings::Settings;
use crate::transcript::load::Transcript;
use crate::verify::Planned;

impl Run<'_, '_> {
    /// Writes the pruned session into the file (pruned again if the agent wrote meanwhile).
    pub(super) fn prune_in_place(
        &self,
        path: &Path,
        pruned: &Pruned,
        settings: &Settings,
        warnings: &mut Warnings,
    ) -> Result<()> {
        let name = &self.transcript.name;
        let options = persist::Options {
            backup_suffix: &self.args.in_place.backup_suffix,
            // A pruned file is rewritten, as `prune --in-place` does.
            strategy: persist::Strategy::Replace,
            inputs: &[],
        };
        let knobs = options::prune(None, &settings.prune);
        let budget = self.goal.budget.unwrap_or_default();
        let load = options::load(&self.args.input.read);
        let verify = !self.args.in_place.no_verify;
        let done = persist::in_place_after(path, &options, self.bytes, |bytes, out| {
            // What was read and pruned already, unless the agent wrote since.
            if bytes == self.bytes {
                let prune = pruned.plan.pruned(self.transcript);
                let mut again = Held::over(bytes);
                pruned.plan.write(self.transcript, &mut again)?;
                let built = verify_pruned(verify, &prune, bytes, load, again)?;
                return Ok(built.write_to(out)?);
            }
            let now = Transcript::parse(name, bytes, load)?;
            match pruned_toward(&now, self.tokenizer, budget, &knobs)? {
                Some(plan) => {
                    let mut again = Held::over(bytes);
                    plan.write(&now, &mut again)?;
                    let built = verify_pruned(verify, &plan.pruned(&now), bytes, load, again)?;
                    Ok(built.write_to(out)?)
                }
                None => Ok(out.write_all(bytes)?),
            }
        })?;
        for warning in done.warnings {
            warnings.push(warning);
        }
        Ok(())
    }

    /// Writes the chosen compaction into the session file, through the safe paths `inject
    /// --in-place` takes; the plan is checked against what the file holds then, and records
    /// the agent appended meanwhile join the tail; a file unchanged since it was read is not parsed
    /// again.
    pub(super) fn write_in_place(
        &self,
        path: &Path,
        choice: &Choice,
        warnings: &mut Warnings,
    ) -> Result<()> {
        let args = self.args;
        let saved = SavedPlan::of(&choice.plan, self.transcript, self.tokenizer);
        let options = options::persist(&args.in_place, &[]);
        let name = path.display().to_string();
        let load = options::load(&args.input.read);
        let done = persist::in_place_after(path, &options, self.bytes, |bytes, out| {
            let parsed;
            let now = if bytes == self.bytes {
                self.transcript
            } else {
                parsed = Transcript::parse(&name, bytes, load)?;
                &parsed
            };
            let (plan, tokenizer) = check_plan(
                &saved,
                now,
                "nothing was written; run compact again, which plans anew",
            )?;
            let compacted = compaction(now, &plan, &choice.summary, tokenizer);
            let verify = Verify {
                enabled: !args.in_place.no_verify,
                name: &name,
                from: now.format,
                before: bytes,
                read: (!load.whole_file).then_some(now),
                summary: &choice.summary,
            };
            verify.build(
                out,
                |out| {
                    write_compaction(now.format, &compacted, out).map(|()| Planned::of(&compacted))
                },
                |planned| Some(planned),
            )?;
            Ok(())
        })?;
        for warning in done.warnings {
            warnings.push(warning);
        }
        Ok(())
    }
}
