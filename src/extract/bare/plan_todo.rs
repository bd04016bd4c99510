//! The todo item the agent's plan is on. An agent often moves down its todo list without
//! ticking it: the list still marks "Add the --no-telemetry flag" in progress while its last
//! words say "Now let me add the prompt function", the list's next item. The items before
//! the one its plan names are done in all but the list, and the ones after it are what is
//! left; NEXT's todos start there (see `todos`).

use super::super::model::Todo;

/// Words too common in a step to tie it to an item ("also", "make sure", "then").
const COMMON: [&str; 16] = [
    "also", "after", "before", "from", "have", "into", "make", "need", "sure", "that", "them",
    "then", "there", "this", "when", "with",
];

/// The open todos from the one `plan` names on: the item that shares the most words with it,
/// when that is not the first item and shares more than the first does; else all of them.
pub(super) fn from_planned_item<'t>(plan: &str, todos: &'t [Todo]) -> &'t [Todo] {
    let said = words(plan);
    let shared = |todo: &Todo| {
        words(&todo.text)
            .iter()
            .filter(|w| said.contains(w))
            .count()
    };
    let Some(first) = todos.first().map(shared) else {
        return todos;
    };
    // The first of the items that share the most.
    let best = todos
        .iter()
        .enumerate()
        .map(|(n, todo)| (shared(todo), std::cmp::Reverse(n)))
        .max();
    match best {
        Some((score, std::cmp::Reverse(n))) if n > 0 && score > first => &todos[n..],
        _ => todos,
    }
}

/// The words of `text` that can tie a step to an item: lower case, of four letters or more,
/// not [`COMMON`]; an identifier counts by its parts (`promptTelemetryConsent`: prompt,
/// telemetry, consent).
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in text.split(|c: char| !c.is_alphanumeric()) {
        let mut part = String::new();
        let mut parts = Vec::new();
        for c in token.chars() {
            if c.is_uppercase() && !part.is_empty() {
                parts.push(std::mem::take(&mut part));
            }
            part.extend(c.to_lowercase());
        }
        parts.push(part);
        for part in parts {
            if part.chars().count() >= 4 && !COMMON.contains(&part.as_str()) && !out.contains(&part)
            {
                out.push(part);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(text: &str) -> Todo {
        Todo {
            text: text.into(),
            active: false,
            detail: None,
        }
    }

    #[test]
    fn the_todos_start_at_the_item_the_plan_is_on() {
        let todos = [
            todo("Add --no-telemetry flag to newEnableCmd()"),
            todo("Add promptTelemetryConsent() function in setup.go"),
            todo("Call promptTelemetryConsent() in runEnableInteractive()"),
        ];
        let left = from_planned_item("Add the prompt function after the shell completion", &todos);
        assert_eq!(left.len(), 2);
        assert_eq!(left[0].text, todos[1].text);
        // A plan on the first item, or on none, leaves the list whole.
        assert_eq!(from_planned_item("Add the telemetry flag", &todos).len(), 3);
        assert_eq!(from_planned_item("Read the docs", &todos).len(), 3);
        // An item that ties no better than the first does not win.
        let tied = [todo("Create tests for the parser"), todo("Run the tests")];
        assert_eq!(from_planned_item("Run the tests", &tied).len(), 2);
        assert_eq!(
            from_planned_item(
                "Run the tests and lint",
                &[tied[0].clone(), todo("Run fmt, lint, and tests")]
            )
            .len(),
            1
        );
        assert!(from_planned_item("x", &[]).is_empty());
    }

    #[test]
    fn identifiers_count_by_their_parts() {
        assert_eq!(
            words("Call promptTelemetryConsent() in runEnableInteractive"),
            [
                "call",
                "prompt",
                "telemetry",
                "consent",
                "enable",
                "interactive"
            ]
        );
    }
}
