//! The checker a task runner's run started, as its output echoes it: mise prints `[lint] $
//! golangci-lint run ./...` before each command of a task.
//!
//! `mise run lint → ok` says the check passed but not what checked: the next turn that reads
//! the linter's config, or runs the linter itself on one package, looks for `golangci-lint`,
//! which the session's commands never named. So the checker a task ran goes beside it, once a
//! summary: `mise run lint [golangci-lint] → ok`. Only a `[task] $ program` echo counts
//! (mise's form, unambiguous); a bare `$ ` line of a log is no task's command.

use super::gates::is_gate;

/// The most programs kept of one run: a task that runs many steps (`lint` running four
/// linters) is named by its first, the one its config and its findings belong to.
const MOST_PROGRAMS: usize = 1;

/// Programs whose subcommand says what ran (`cargo clippy`, `go vet`).
const WITH_SUBCOMMAND: [&str; 5] = ["go", "cargo", "npm", "pnpm", "uv"];

/// The distinct checkers (linters, type checks; see `gates`) `output` echoes as a task's
/// commands (`[lint] $ golangci-lint run` gives `golangci-lint`; `[fmt] $ gofmt` and `[test]
/// $ go test` give none), in order, at most [`MOST_PROGRAMS`], leaving out the ones `command`
/// itself names.
pub(super) fn task_programs(command: &str, output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in output.lines() {
        let Some(program) = echoed_program(line.trim_start()) else {
            continue;
        };
        // Only a checker: its config and its findings are what the next turn looks for; a
        // test runner's counts say what it did (`→ 12pass`), and a formatter leaves nothing.
        if !out.contains(&program) && !names(command, &program) && is_gate(&program) {
            out.push(program);
            if out.len() == MOST_PROGRAMS {
                break;
            }
        }
    }
    out
}

/// The program of one `[task] $ program args` line.
fn echoed_program(line: &str) -> Option<String> {
    let rest = line.strip_prefix('[')?;
    let (task, rest) = rest.split_once("] $ ")?;
    let task_like = !task.is_empty()
        && task
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c));
    if !task_like {
        return None;
    }
    let mut words = rest.split_whitespace();
    let program = words.next()?;
    let program_like = program.starts_with(|c: char| c.is_ascii_alphabetic())
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        // `VERSION=1 go build`: an assignment is no program, and what follows is not read.
        && !program.contains('=');
    if !program_like {
        return None;
    }
    let program = program.rsplit('/').next().unwrap_or(program);
    let sub = words.next().filter(|w| {
        WITH_SUBCOMMAND.contains(&program) && w.chars().all(|c| c.is_ascii_lowercase())
    });
    Some(match sub {
        Some(sub) => format!("{program} {sub}"),
        None => program.to_owned(),
    })
}

/// Whether `command` names `program` already, as a whole word.
fn names(command: &str, program: &str) -> bool {
    command.match_indices(program).any(|(at, _)| {
        let before = command[..at].chars().next_back();
        let after = command[at + program.len()..].chars().next();
        let glued =
            |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
        !glued(before) && !glued(after)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_runner_names_the_programs_it_ran() {
        let output = "[lint:go] $ golangci-lint run ./...\n0 issues.\n[lint:gofmt] $ gofmt -l .\n\
                      [lint:shellcheck] $ shellcheck scripts/*.sh";
        assert_eq!(task_programs("mise run lint", output), ["golangci-lint"]);
        let output = "[fmt] $ gofmt -w .\n[lint] $ golangci-lint run ./...\n0 issues.";
        assert_eq!(
            task_programs("mise run fmt && mise run lint", output),
            ["golangci-lint"]
        );
        // A test runner and a formatter are left out.
        let output = "[test:ci] $ go test -tags=integration ./...\nok  \tpkg\t0.1s";
        assert!(task_programs("mise run test:ci", output).is_empty());
    }

    #[test]
    fn echoes_of_the_command_itself_and_other_dollar_lines_are_not_programs() {
        assert!(task_programs("golangci-lint run", "[lint] $ golangci-lint run ./...").is_empty());
        assert!(task_programs("make", "$ go test ./...\n[build] $ VERSION=1 go build").is_empty());
        assert!(task_programs("mise run x", "[a b] $ ls\n[x] $ # comment").is_empty());
    }
}
