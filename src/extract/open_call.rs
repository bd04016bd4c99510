//! A plan whose call is still running: the agent said what it would do ("Let me try a
//! different approach:"), made the call, and the transcript stops before its result came. The
//! plan's words say what kind of step it is, often no more than that ("Run the tests:"); the
//! running call says which command or file the step is, the one the next turn waits on or runs
//! again. So NEXT names that call beside the plan, as it does for a plan gone stale (see
//! `stale_plan`, which prints it).

use super::model::Extract;

/// True when the agent's last call came after its last words and has no result yet: the plan
/// those words state is the step of that call, cut off while it ran.
pub(super) fn plan_call_running(ex: &Extract) -> bool {
    ex.last_call_open && ex.calls_after_words >= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::stale_plan::with_latest_call;
    use crate::extract::testkit::*;

    #[test]
    fn a_call_after_the_plan_with_no_result_is_running() {
        let mut records = vec![
            user("the cli cannot find its package.json"),
            assistant("Let me try a different approach:"),
            bash("1", "npx tsx src/cli.ts --help"),
        ];
        let ex = extract(&records);
        assert!(plan_call_running(&ex));
        let plan = ex.plan.clone().expect("a plan").text;
        assert_eq!(
            with_latest_call(&ex, &plan),
            format!("{plan} | continue $ npx tsx cli.ts --help")
        );
        // Its result came: the step is done, the plan is what it says.
        records.push(result("1", "Usage: pi [options]"));
        assert!(!plan_call_running(&extract(&records)));
        // A call waiting while the agent has spoken since is not the plan's.
        let spoken = [
            user("run the tests"),
            bash("1", "cargo test"),
            assistant("The tests are running."),
        ];
        assert!(!plan_call_running(&extract(&spoken)));
    }
}
