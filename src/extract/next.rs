//! The next step, in this order: a request the agent has not acted on yet (it is what comes
//! next, whatever was planned before it); the newer of the agent's stated plan and its first
//! open todo; `await user` when its turn is over; else `continue <last call>`, what it was doing
//! when the transcript stopped mid-work.

use super::model::Extract;

/// What `next` says when the agent's turn is over.
pub(super) const AWAIT_USER: &str = "await user";

/// What `next` says of a request not acted on; the renderers show the request itself.
pub(super) const NEW_ASK: &str = "the ask above (not started)";

/// True when the latest request (record `task`) came after the agent's last words and its
/// last call: the transcript ends on a request the agent has not acted on.
pub(super) fn is_fresh(
    task: Option<usize>,
    last_text: Option<usize>,
    last_call: Option<usize>,
) -> bool {
    task.is_some_and(|task| last_text.max(last_call).is_none_or(|last| last < task))
}

/// The next step of an extract (see the module docs).
pub(super) fn next_step(ex: &Extract) -> Option<String> {
    if ex.fresh {
        return Some(NEW_ASK.to_owned());
    }
    let todo = ex
        .todos
        .first()
        .map(|t| (t.text.clone(), ex.todo_at.unwrap_or(0)));
    let plan = ex.plan.as_ref().map(|p| (p.text.clone(), p.index));
    let newest = match (plan, todo) {
        (Some(p), Some(t)) => Some(if p.1 >= t.1 { p } else { t }),
        (p, t) => p.or(t),
    };
    if let Some((text, _)) = newest {
        return Some(text);
    }
    if ex.answered {
        return Some(AWAIT_USER.to_owned());
    }
    ex.last_call
        .as_ref()
        .map(|call| format!("continue {}", call.text))
}

impl Extract {
    /// The next action (the rule of this file): a request not acted on yet, else the newer
    /// of the agent's stated plan and its first open todo, else `await user` when its turn is
    /// over, or `continue <last call>` when it stopped mid-work.
    pub fn next(&self) -> Option<String> {
        next_step(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn a_request_not_acted_on_is_next_whatever_was_planned() {
        let records = [
            user("add the retry flag"),
            call(
                "1",
                "TodoWrite",
                r#"{"todos":[{"content":"wire the flag","status":"pending"}]}"#,
            ),
            bash("2", "cargo test"),
            user("wait, call it --retries, not --retry"),
        ];
        let ex = extract(&records);
        assert!(ex.fresh);
        assert_eq!(ex.next().unwrap(), NEW_ASK);
        // Once the agent acts on it, the plan and the todos are next again.
        let mut acted = records.to_vec();
        acted.push(bash("3", "rg -n retry src"));
        let ex = extract(&acted);
        assert!(!ex.fresh);
        assert_eq!(ex.next().unwrap(), "wire the flag");
        assert!(is_fresh(Some(3), Some(1), None));
        assert!(!is_fresh(Some(3), Some(1), Some(4)));
        assert!(!is_fresh(None, None, None));
    }
}
