//! `NEXT: <next step> | todo: <item>; <item>`: the first open items of the agent's todo list
//! after the step NEXT names, when the list holds steps that line does not show. The agent's
//! plan sentence says what it does with its next call; the open todos say what is left of the
//! task after it ("update the callers", "run the linter"), which is what a continuing agent
//! and a person checking on the work ask next. The first item comes with its detail where the
//! list keeps one (a Claude Code task's description): the title says "update all callers", the
//! detail which files they are in and the command that checks them. A detail that starts with
//! the title's verb says the step again in more words, and stands for it. Cut short, the step
//! shortens before the todos do.

use super::super::model::Todo;
use super::super::shorten::Shortening;

/// Open todo items NEXT shows after the next step.
const NEXT_TODOS: usize = 2;

/// `next` and ` | todo: ` with the first [`NEXT_TODOS`] open items it does not already hold,
/// the first as `<title>: <detail>`. Shortening cuts the step first and keeps the todos whole:
/// the step is the agent's next call, often a look around ("check if there's a GeminiSession
/// type"), while the todos name the work and its checks (`mise run test:ci`). Measured on the
/// eval corpus: next probes 33 -> 34, one fact probe the step held lost.
pub(super) fn with_todos(next: Shortening, todos: &[Todo]) -> Shortening {
    let open: Vec<String> = todos
        .iter()
        .filter(|t| !next.full.contains(t.text.as_str()))
        .take(NEXT_TODOS)
        .enumerate()
        .map(|(n, t)| match &t.detail {
            Some(detail) if n == 0 && restates(&t.text, detail) => detail.clone(),
            Some(detail) if n == 0 => format!("{}: {detail}", t.text),
            _ => t.text.clone(),
        })
        .collect();
    if open.is_empty() {
        return next;
    }
    let full = format!("{} | todo: {}", next.full, open.join("; "));
    if next.tail < next.full.len() {
        // A protected tail (a plan-mode step) stays where it is, the todos after it.
        return Shortening {
            tail: next.tail,
            full,
            fallback: next.fallback,
        };
    }
    // The todos stay whole while the step before them shortens; with no room for them and a
    // few characters of the step, the whole line is cut from the end.
    Shortening {
        tail: next.full.len(),
        fallback: full.clone(),
        full,
    }
}

/// True when `detail` starts with the verb `title` starts with: it says the step again, in
/// more words, and the title adds nothing but length.
fn restates(title: &str, detail: &str) -> bool {
    let first = |t: &str| t.split_whitespace().next().map(str::to_lowercase);
    first(title).is_some() && first(title) == first(detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(text: &str, active: bool) -> Todo {
        Todo {
            text: text.into(),
            active,
            detail: None,
        }
    }

    #[test]
    fn the_first_open_todo_brings_its_detail() {
        let mut todos = [
            todo("Update all callers", false),
            todo("Run fmt, lint, and tests", false),
        ];
        todos[0].detail = Some("in explain.go and rewind.go".into());
        todos[1].detail = Some("mise run lint && mise run test:ci".into());
        let next = Shortening::plain("Read its signature".into());
        assert_eq!(
            with_todos(next, &todos).full,
            "Read its signature | todo: Update all callers: in explain.go and rewind.go; \
             Run fmt, lint, and tests"
        );
        // A detail that says the step again in more words stands for it.
        todos[1].detail = Some("Run mise run lint && mise run test:ci".into());
        assert!(with_todos(Shortening::plain("x".into()), &todos[1..])
            .full
            .ends_with("todo: Run mise run lint && mise run test:ci"));
    }

    #[test]
    fn cut_short_the_step_shortens_and_the_todos_stay() {
        let mut todos = [todo("Run fmt, lint, and tests", true)];
        todos[0].detail = Some("mise run lint && mise run test:ci".into());
        let step = Shortening::plain("Also check if there's a GeminiSession type:".into());
        let next = with_todos(step, &todos);
        let cut = next.at(80);
        assert!(
            cut.ends_with("| todo: Run fmt, lint, and tests: mise run lint && mise run test:ci"),
            "{cut}"
        );
        assert!(cut.starts_with("Also check…"), "{cut}");
        // With no room for the todos whole, the line is cut from the end.
        assert!(next.at(20).starts_with("Also check"), "{}", next.at(20));
    }

    #[test]
    fn next_lists_the_open_todos_it_does_not_show() {
        let todos = [
            todo("fix the parser", true),
            todo("update the callers", false),
            todo("run the linter", false),
            todo("write the changelog", false),
        ];
        let next = Shortening::plain("fix the parser".into());
        assert_eq!(
            with_todos(next, &todos).full,
            "fix the parser | todo: update the callers; run the linter"
        );
        let plan = Shortening::plain("Let me read lexer.rs".into());
        assert_eq!(
            with_todos(plan, &todos[2..]).full,
            "Let me read lexer.rs | todo: run the linter; write the changelog"
        );
        let none = Shortening::plain("await user".into());
        assert_eq!(with_todos(none, &[]).full, "await user");
    }
}
