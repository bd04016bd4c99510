//! A plan the work has gone past: the agent said "let me check how X handles the input",
//! then made call after call without another word. Its last words still announce that first
//! step, but the next turn picks up where the calls got to, so NEXT names the latest call
//! after the plan: `Check how X handles the input. | continue read session.go`. A plan whose
//! call the transcript stopped in the middle of names that call too (see `open_call`).

use super::continued::by_file_names;
use super::model::Extract;
use super::open_call::plan_call_running;

/// Calls after the agent's last text from which its plan no longer says where the work is.
/// One to three calls are the step the plan announced (a read, a search, the edit); by the
/// fifth the agent is on a later one. Measured on the eval corpus (bare): 4 to 8 gain one next
/// probe and lose nothing; 3 and 2 cost 4 and 5 probes (now, goal, test, file), as a plan
/// still on course gives up NOW's room for a call it names already; 10 and more gain none.
const STALE_AFTER: usize = 5;

/// `next` and ` | continue <latest call>` when `next` is the plan of the agent's last words
/// and the agent has made [`STALE_AFTER`] calls or more since, or the call after it is still
/// running; `next` as it is otherwise. A
/// call with no object (`search`, `todo`) says nothing of where the work is and is left out.
pub(super) fn with_latest_call(ex: &Extract, next: &str) -> String {
    let is_plan = ex.plan.as_ref().is_some_and(|p| p.text == next);
    let call = ex
        .last_call
        .as_ref()
        .filter(|_| is_plan && (ex.calls_after_words >= STALE_AFTER || plan_call_running(ex)))
        .filter(|call| call.text.contains(' '));
    match call {
        Some(call) => format!(
            "{next} | {}",
            by_file_names(&format!("continue {}", call.text))
        ),
        None => next.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    fn read(id: &str, path: &str) -> crate::transcript::Record<'static> {
        call(id, "Read", &format!(r#"{{"file_path":"{path}"}}"#))
    }

    #[test]
    fn a_plan_followed_by_many_silent_calls_names_the_latest_one() {
        let mut records = vec![
            user("find why the path is not stored"),
            assistant("The path is empty. Let me check how the hook handles the input."),
        ];
        for (n, path) in [
            "src/hook.rs",
            "src/input.rs",
            "src/state.rs",
            "src/store.rs",
        ]
        .iter()
        .enumerate()
        {
            records.push(read(&n.to_string(), path));
            records.push(result(&n.to_string(), "fn main() {}"));
        }
        let ex = extract(&records);
        let plan = ex.plan.clone().expect("a plan").text;
        // Four calls, each answered: still the step the plan announced.
        assert_eq!(with_latest_call(&ex, &plan), plan);
        records.push(read("4", "src/session.rs"));
        let ex = extract(&records);
        assert_eq!(
            with_latest_call(&ex, &plan),
            format!("{plan} | continue read session.rs")
        );
        // Anything but the plan stays as it is.
        assert_eq!(with_latest_call(&ex, "await user"), "await user");
        // A new text starts the count again.
        records.push(assistant("Found it: the store drops the path."));
        assert_eq!(extract(&records).calls_after_words, 0);
    }
}
