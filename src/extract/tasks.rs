//! Claude Code's task list (the tools that replaced `TodoWrite`), rebuilt as it stood at the end
//! of the transcript from the calls and results that changed it, so that its open items reach
//! the extract's todos like every other agent's todo list.
//!
//! The tools, as Claude Code 2.1 defines them (`sdk-tools.d.ts` of npm `@anthropic-ai/claude-code`:
//! `TaskCreateInput`, `TaskUpdateInput`, `TaskListOutput`; the result texts from each tool's
//! `mapToolResultToToolResultBlockParam` in the bundled `claude` binary):
//!
//! - `TaskCreate {subject, description, activeForm?}`: the call carries no id; Claude Code's
//!   store gives the next number and the result says it, `Task #<id> created successfully:
//!   <subject>`. Ids only grow within a list (the eval corpus continues at #7, #10 after a
//!   compaction).
//! - `TaskUpdate {taskId, status?, subject?, description?, activeForm?, owner?, addBlocks?,
//!   addBlockedBy?}`: status `pending`, `in_progress`, `completed`, or `deleted` (which removes
//!   the task); the subject can change too. It answers `Updated task #<id> <fields>`, or an
//!   error (`Task not found`, a `TaskCompleted` hook's objection) when nothing changed.
//! - `TaskList {}`: the whole list, one `#<id> [<status>] <subject>` line per task (an owner
//!   in parentheses and `[blocked by #…]` may follow), or `No tasks found` once the list is
//!   gone; `TaskGet` shows one task and changes nothing.
//!
//! The rule is Claude Code's own, from the function in its bundle that rebuilds the list from a
//! transcript (the observer around `/^Task #(\S+) created successfully/`): a create becomes a
//! task under the id its result gives (a create with no result yet is still on the list,
//! pending; one whose result gives no id never happened); an update applies to the task of its
//! `taskId`, `deleted` removing it. Two refinements: an update whose result came back without
//! `Updated task #` (the store refused it) is dropped, as the bundle's reader of task calls
//! does; and a `TaskList` result, the list as the store holds it, replaces what was rebuilt.
//!
//! What the extract keeps is the open tasks, the one in progress first, then by id: the same
//! [`Todo`]s `TodoWrite` gives, dated by the list's last task call or result, each with its
//! description as the item's detail (the files, functions and commands of the step, which the
//! subject leaves out; caveman shows it, bare has no room).

use serde_json::Value;

use super::limits::SAID_CHARS;
use super::model::Todo;
use super::text::one_line;

/// What a task's status says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Pending,
    InProgress,
    Completed,
}

impl Status {
    fn parse(text: &str) -> Option<Status> {
        match text {
            "pending" => Some(Status::Pending),
            "in_progress" => Some(Status::InProgress),
            "completed" => Some(Status::Completed),
            _ => None,
        }
    }
}

/// One task of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Task {
    id: String,
    subject: String,
    description: Option<String>,
    status: Status,
}

/// A change to one task, from a `TaskUpdate` call.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Update {
    id: String,
    subject: Option<String>,
    description: Option<String>,
    /// `None` leaves the status; `Some(None)` is `deleted`.
    status: Option<Option<Status>>,
}

/// A task tool call waiting for its result.
#[derive(Debug, Clone)]
enum Call {
    Create {
        subject: String,
        description: Option<String>,
    },
    Update(Update),
    List,
}

/// The task list as rebuilt so far.
#[derive(Debug, Default)]
pub(super) struct TaskList {
    /// The tasks, in the order they were created.
    tasks: Vec<Task>,
    /// Task calls by call id, until their result comes.
    waiting: Vec<(String, Call)>,
    /// The record index of the latest task call or result: the list's date.
    at: Option<usize>,
}

/// The task tool a name calls: Claude Code's, or any agent's of the same names (`mcp__x__`
/// prefixes and case aside).
fn task_tool(name: &str) -> Option<&'static str> {
    let base = name.rsplit("__").next().unwrap_or(name);
    ["TaskCreate", "TaskUpdate", "TaskList"]
        .into_iter()
        .find(|tool| tool.eq_ignore_ascii_case(base))
}

/// A non-empty string argument.
fn text_field(args: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl TaskList {
    /// A tool call: true when it is a task tool's, which the list then waits to see answered.
    /// The `id` and `active_form` spellings are Claude Code's own aliases (`coerceInput`).
    pub(super) fn call(&mut self, index: usize, id: Option<&str>, name: &str, args: &str) -> bool {
        let Some(tool) = task_tool(name) else {
            return false;
        };
        let Some(id) = id else { return true };
        let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
        let call = match tool {
            "TaskCreate" => match text_field(&args, &["subject"]) {
                Some(subject) => Call::Create {
                    subject,
                    description: text_field(&args, &["description"]),
                },
                None => return true,
            },
            "TaskUpdate" => {
                let Some(task) = text_field(&args, &["taskId", "id", "task_id"]) else {
                    return true;
                };
                let status = text_field(&args, &["status"]).and_then(|s| match s.as_str() {
                    "deleted" => Some(None),
                    other => Status::parse(other).map(Some),
                });
                Call::Update(Update {
                    id: task.trim_start_matches('#').to_owned(),
                    subject: text_field(&args, &["subject"]),
                    description: text_field(&args, &["description"]),
                    status,
                })
            }
            _ => Call::List,
        };
        self.waiting.push((id.to_owned(), call));
        self.at = Some(index);
        true
    }

    /// A tool result; one that answers no task call is ignored.
    pub(super) fn result(&mut self, index: usize, id: Option<&str>, text: &str) {
        let Some(n) = id.and_then(|id| self.waiting.iter().position(|(c, _)| c == id)) else {
            return;
        };
        let (_, call) = self.waiting.remove(n);
        let text = text.trim();
        match call {
            Call::Create {
                subject,
                description,
            } => {
                if let Some(id) = created_id(text) {
                    self.create(id, subject, description);
                }
            }
            Call::Update(update) => {
                if text.starts_with("Updated task #") {
                    self.update(update);
                }
            }
            Call::List => match listed(text) {
                Some(tasks) => self.listed(tasks),
                None => return,
            },
        }
        self.at = Some(index);
    }

    /// The open tasks and the record index of the list's last change, or `None` when the
    /// transcript never used the task tools.
    pub(super) fn open(mut self) -> Option<(usize, Vec<Todo>)> {
        let at = self.at?;
        // Calls the transcript ends before answering: a create is on the list, pending, as
        // Claude Code shows it; an update is taken as made.
        for (call, waiting) in std::mem::take(&mut self.waiting) {
            match waiting {
                Call::Create {
                    subject,
                    description,
                } => self.create(format!("?{call}"), subject, description),
                Call::Update(update) => self.update(update),
                Call::List => {}
            }
        }
        let mut open: Vec<&Task> = self
            .tasks
            .iter()
            .filter(|t| t.status != Status::Completed)
            .collect();
        // In progress first; the rest in id order, which is the order they were planned.
        open.sort_by_key(|t| (t.status != Status::InProgress, id_number(&t.id)));
        let todos = open
            .into_iter()
            .map(|t| Todo {
                text: one_line(&t.subject, SAID_CHARS),
                active: t.status == Status::InProgress,
                detail: t.description.as_deref().map(|d| one_line(d, SAID_CHARS)),
            })
            .collect();
        Some((at, todos))
    }

    fn create(&mut self, id: String, subject: String, description: Option<String>) {
        // A new task under a known id is a new list that started its numbers again.
        self.tasks.retain(|t| t.id != id);
        self.tasks.push(Task {
            id,
            subject,
            description,
            status: Status::Pending,
        });
    }

    fn update(&mut self, update: Update) {
        let Some(n) = self.tasks.iter().position(|t| t.id == update.id) else {
            // A task created before the transcript begins: known only if the update names it.
            if let (Some(subject), Some(Some(status))) = (update.subject, update.status) {
                self.tasks.push(Task {
                    id: update.id,
                    subject,
                    description: update.description,
                    status,
                });
            }
            return;
        };
        match update.status {
            Some(None) => {
                self.tasks.remove(n);
                return;
            }
            Some(Some(status)) => self.tasks[n].status = status,
            None => {}
        }
        if let Some(subject) = update.subject {
            self.tasks[n].subject = subject;
        }
        if let Some(description) = update.description {
            self.tasks[n].description = Some(description);
        }
    }

    fn listed(&mut self, listed: Vec<Task>) {
        let known = std::mem::take(&mut self.tasks);
        self.tasks = listed
            .into_iter()
            .map(|mut task| {
                // A line may end on an owner in parentheses, which a subject can too: the
                // subject the list was told keeps whole when the line starts with it.
                // The list shows no description: the one the list was told stays.
                if let Some(was) = known.iter().find(|k| k.id == task.id) {
                    if task.subject.starts_with(&was.subject) {
                        task.subject.clone_from(&was.subject);
                    }
                    task.description.clone_from(&was.description);
                }
                task
            })
            .collect();
        self.tasks.sort_by_key(|t| id_number(&t.id));
    }
}

/// The id a `TaskCreate` result gives: `Task #<id> created successfully: …`.
fn created_id(text: &str) -> Option<String> {
    let rest = text.strip_prefix("Task #")?;
    let (id, rest) = rest.split_once(' ')?;
    (!id.is_empty() && rest.starts_with("created successfully")).then(|| id.to_owned())
}

/// The tasks of a `TaskList` result, or `None` when the text is not one.
fn listed(text: &str) -> Option<Vec<Task>> {
    if text == "No tasks found" {
        return Some(Vec::new());
    }
    let mut tasks = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rest = line.trim().strip_prefix('#')?;
        let (id, rest) = rest.split_once(" [")?;
        let (status, subject) = rest.split_once("] ")?;
        let subject = match subject.rfind(" [blocked by #") {
            Some(at) if subject.ends_with(']') => &subject[..at],
            _ => subject,
        };
        tasks.push(Task {
            id: id.to_owned(),
            subject: subject.to_owned(),
            description: None,
            status: Status::parse(status)?,
        });
    }
    (!tasks.is_empty()).then_some(tasks)
}

/// A task id's number, for ordering; ids that are no number go last.
fn id_number(id: &str) -> u64 {
    id.parse().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds (call id, tool, arguments, result) steps, a `None` result leaving the call open.
    fn run(steps: &[(&str, &str, &str, Option<&str>)]) -> Option<(usize, Vec<Todo>)> {
        let mut list = TaskList::default();
        for (n, (id, tool, args, result)) in steps.iter().enumerate() {
            assert!(list.call(2 * n, Some(id), tool, args));
            if let Some(text) = result {
                list.result(2 * n + 1, Some(id), text);
            }
        }
        list.open()
    }

    fn create(id: &str, subject: &str, task: u32) -> (String, String, String) {
        (
            id.to_owned(),
            format!(r#"{{"subject":"{subject}","description":"d","activeForm":"a"}}"#),
            format!("Task #{task} created successfully: {subject}"),
        )
    }

    fn texts(todos: &[Todo]) -> Vec<(&str, bool)> {
        todos.iter().map(|t| (t.text.as_str(), t.active)).collect()
    }

    #[test]
    fn creates_take_their_ids_from_the_results_and_updates_move_them() {
        let (a, b, c) = (
            create("c1", "Add the flag", 1),
            create("c2", "Wire the flag", 2),
            create("c3", "Run the tests", 3),
        );
        let steps = [
            ("c1", "TaskCreate", a.1.as_str(), Some(a.2.as_str())),
            ("c2", "TaskCreate", b.1.as_str(), Some(b.2.as_str())),
            ("c3", "TaskCreate", c.1.as_str(), Some(c.2.as_str())),
            (
                "u1",
                "TaskUpdate",
                r#"{"taskId":"1","status":"completed"}"#,
                Some("Updated task #1 status"),
            ),
            (
                "u2",
                "TaskUpdate",
                r#"{"taskId":"2","status":"in_progress"}"#,
                Some("Updated task #2 status"),
            ),
        ];
        let (at, todos) = run(&steps).unwrap();
        assert_eq!(at, 9);
        assert_eq!(
            texts(&todos),
            [("Wire the flag", true), ("Run the tests", false)]
        );
        // The one in progress leads whatever its id.
        let mut later = steps.to_vec();
        later.push((
            "u3",
            "TaskUpdate",
            r#"{"taskId":"3","status":"in_progress"}"#,
            Some("Updated task #3 status"),
        ));
        later.push((
            "u4",
            "TaskUpdate",
            r#"{"taskId":"2","status":"pending"}"#,
            Some("Updated task #2 status"),
        ));
        assert_eq!(
            texts(&run(&later).unwrap().1),
            [("Run the tests", true), ("Wire the flag", false)]
        );
    }

    #[test]
    fn deletion_renaming_and_refused_updates() {
        let (a, b) = (create("c1", "Old name", 1), create("c2", "Dropped", 2));
        let steps = [
            ("c1", "TaskCreate", a.1.as_str(), Some(a.2.as_str())),
            ("c2", "TaskCreate", b.1.as_str(), Some(b.2.as_str())),
            (
                "u1",
                "TaskUpdate",
                r#"{"taskId":"1","subject":"New name","description":"in src/cli.rs"}"#,
                Some("Updated task #1 subject, description"),
            ),
            (
                "u2",
                "TaskUpdate",
                r#"{"id":"2","status":"deleted"}"#,
                Some("Updated task #2 deleted"),
            ),
            // A hook refused to let it complete: the task stays open.
            (
                "u3",
                "TaskUpdate",
                r#"{"taskId":"1","status":"completed"}"#,
                Some("Run the tests before completing this task"),
            ),
            // An update of a task never seen, with nothing to show for it.
            (
                "u4",
                "TaskUpdate",
                r#"{"taskId":"9","status":"in_progress"}"#,
                Some("Task not found"),
            ),
        ];
        let (_, todos) = run(&steps).unwrap();
        assert_eq!(texts(&todos), [("New name", false)]);
        assert_eq!(todos[0].detail.as_deref(), Some("in src/cli.rs"));
    }

    #[test]
    fn a_create_the_transcript_ends_before_answering_is_pending_and_a_failed_one_is_not() {
        let (a, b) = (
            create("c1", "Refactor the parser", 1),
            create("c3", "Update the docs", 2),
        );
        let steps = [
            ("c1", "TaskCreate", a.1.as_str(), Some(a.2.as_str())),
            (
                "c2",
                "TaskCreate",
                r#"{"subject":"Never made","description":"d"}"#,
                Some("<tool_use_error>InputValidationError</tool_use_error>"),
            ),
            ("c3", "TaskCreate", b.1.as_str(), None),
            // Claude Code's own alias for the id, on an update still unanswered.
            (
                "u1",
                "TaskUpdate",
                r#"{"task_id":"1","status":"in_progress"}"#,
                None,
            ),
        ];
        let (at, todos) = run(&steps).unwrap();
        assert_eq!(at, 6);
        assert_eq!(
            texts(&todos),
            [("Refactor the parser", true), ("Update the docs", false)]
        );
    }

    #[test]
    fn a_task_list_result_is_the_list() {
        let (a, b) = (
            create("c1", "Wire Transition() into Stop (EventTurnEnd)", 1),
            create("c2", "Run fmt", 2),
        );
        let steps = [
            ("c1", "TaskCreate", a.1.as_str(), Some(a.2.as_str())),
            ("c2", "TaskCreate", b.1.as_str(), Some(b.2.as_str())),
            (
                "l1",
                "TaskList",
                "{}",
                Some(
                    "#2 [in_progress] Run fmt (worker-1)\n\
                     #10 [pending] Refactor into a package [blocked by #2]\n\
                     #1 [pending] Wire Transition() into Stop (EventTurnEnd)\n\
                     #3 [completed] Add types",
                ),
            ),
        ];
        assert_eq!(
            texts(&run(&steps).unwrap().1),
            [
                ("Run fmt", true),
                ("Wire Transition() into Stop (EventTurnEnd)", false),
                ("Refactor into a package", false),
            ]
        );
        let mut cleared = steps.to_vec();
        cleared.push(("l2", "TaskList", "{}", Some("No tasks found")));
        assert_eq!(run(&cleared).unwrap().1, []);
    }

    #[test]
    fn other_tools_and_transcripts_without_tasks() {
        let mut list = TaskList::default();
        assert!(!list.call(0, Some("x"), "TodoWrite", r#"{"todos":[]}"#));
        assert!(!list.call(1, Some("y"), "TaskOutput", r#"{"task_id":"b1"}"#));
        assert!(list.call(2, Some("z"), "mcp__tasks__taskcreate", "not json"));
        list.result(3, Some("y"), "Task #4 created successfully: no");
        assert!(list.open().is_none());
        assert_eq!(
            created_id("Task #12 created successfully: x"),
            Some("12".into())
        );
        assert_eq!(created_id("Task #12 was not created"), None);
        assert_eq!(listed("a line of something else"), None);
    }

    #[test]
    fn the_list_reaches_the_extract_as_its_todos_and_next_step() {
        use crate::extract::testkit::{call, extract, result, user};
        let records = [
            user("add a --retries flag"),
            call(
                "t0",
                "TodoWrite",
                r#"{"todos":[{"content":"an older list","status":"pending"}]}"#,
            ),
            call(
                "c1",
                "TaskCreate",
                r#"{"subject":"Add the flag","description":"in src/cli.rs, RetryArgs"}"#,
            ),
            result("c1", "Task #1 created successfully: Add the flag"),
            call(
                "c2",
                "TaskCreate",
                r#"{"subject":"Run the tests","description":"cargo test --locked"}"#,
            ),
            result("c2", "Task #2 created successfully: Run the tests"),
            call(
                "u1",
                "TaskUpdate",
                r#"{"taskId":"1","status":"in_progress"}"#,
            ),
            result("u1", "Updated task #1 status"),
        ];
        let ex = extract(&records);
        assert_eq!(
            texts(&ex.todos),
            [("Add the flag", true), ("Run the tests", false)]
        );
        assert_eq!(ex.todos[1].detail.as_deref(), Some("cargo test --locked"));
        assert_eq!(ex.todo_at, Some(7));
        assert_eq!(ex.next().as_deref(), Some("Add the flag"));
    }
}
