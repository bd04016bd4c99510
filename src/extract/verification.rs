//! The commands a plan says to run to check the work. A plan the agent writes (Claude Code's
//! plan file, the `ExitPlanMode` call's `plan`, the accepted plan the user turn "Implement the
//! following plan:" carries) or reads (a project's `docs/plans/….md`) ends on a section headed
//! "Verification", "Testing", "Validation" or "How to test" that names the formatter, linter
//! and test commands the work must pass (`mise run fmt && mise run lint`, `go test ./cmd/...
//! -count=1`). The goal reaches the summaries compressed, so that section is gone by then, and
//! a session cut before the checks ran has no other trace of them; yet they are what the next
//! agent runs first to verify its work.
//!
//! A section runs from its heading (a Markdown `#` heading, or a line that opens on a bold
//! label: `**Verification:** \`mise run test\``) to the next heading of its level or above; the
//! plan's first heading is its title ("# Plan: add tests for X"), never a section. Its
//! commands are the lines of its shell code blocks and its inline code spans that read as a
//! build, test, lint or task-runner command; each is split at `&&`, `||` and `;` into the runs
//! it makes (a leading `cd DIR &&` kept on each, since it says where they run), and a run the
//! session already made is left out: the commands section shows it with its outcome.

use super::gates::is_gate;
use super::model::CommandUse;
use super::plumbing::{run_segment, run_segments};
use super::shell::{is_test_command, without_plumbing};
use super::text::without_gutter;

/// Words in a heading that mark the plan's checks (matched in lowercase, as word starts:
/// "Verification Plan", "Testing", "How to test", "Validation").
const CHECK_HEADINGS: [&str; 3] = ["verif", "test", "validat"];

/// Programs whose runs build, test, format, lint or run a project's tasks: a code span that
/// starts with one is a command to run, where `checkpoint_test.go` or `IsEnabled()` is a name.
const RUN_PROGRAMS: [&str; 38] = [
    "mise",
    "make",
    "just",
    "task",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "bunx",
    "pnpx",
    "go",
    "cargo",
    "pytest",
    "python",
    "python3",
    "uv",
    "uvx",
    "poetry",
    "tox",
    "nox",
    "deno",
    "node",
    "tsc",
    "gradle",
    "./gradlew",
    "mvn",
    "dotnet",
    "bazel",
    "swift",
    "xcodebuild",
    "bundle",
    "rake",
    "mix",
    "flutter",
    "gofmt",
    "prettier",
    "golangci-lint",
];

/// Languages of a fenced code block whose lines are shell commands (none given counts too).
const SHELL_FENCES: [&str; 7] = ["", "bash", "sh", "shell", "console", "zsh", "terminal"];

/// The most commands kept from one plan: a verification section names a handful.
const MOST: usize = 8;

/// The commands `plan`'s verification sections say to run, one run each, in the plan's order,
/// without repeats.
pub(super) fn verification_commands(plan: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut keep = |command: &str| {
        // A leading `cd DIR &&` says where every run of the line happens.
        let (cd, runs) = match command.strip_prefix("cd ").and_then(|r| r.split_once("&&")) {
            Some((dir, runs)) if !dir.trim().contains(char::is_whitespace) => {
                (format!("cd {} && ", dir.trim()), runs)
            }
            _ => (String::new(), command),
        };
        for run in run_segments(runs) {
            let run = format!("{cd}{}", without_plumbing(run).trim());
            if run.len() > cd.len() && !found.contains(&run) {
                found.push(run);
            }
        }
    };
    // The level of the check section the line is in (a bold label is below every heading).
    let mut section: Option<usize> = None;
    let mut fence: Option<bool> = None;
    let mut titled = false;
    for line in plan.lines() {
        let trimmed = without_gutter(line).trim();
        if let Some(shell) = fence {
            if is_fence(trimmed) {
                fence = None;
            } else if shell && section.is_some() {
                let command = trimmed.strip_prefix("$ ").unwrap_or(trimmed);
                if !command.starts_with('#') && reads_as_command(command) {
                    keep(command);
                }
            }
            continue;
        }
        if is_fence(trimmed) {
            let language = trimmed.trim_start_matches(['`', '~']).trim();
            fence = Some(SHELL_FENCES.contains(&language.to_ascii_lowercase().as_str()));
            continue;
        }
        if let Some((level, title)) = heading(trimmed) {
            let title = match std::mem::replace(&mut titled, true) {
                false if level == 1 => "",
                _ => title,
            };
            if section.is_none_or(|at| level <= at) {
                section = names_checks(title).then_some(level);
            }
        }
        if section.is_some() {
            for span in code_spans(trimmed) {
                if reads_as_command(span) {
                    keep(span);
                }
            }
        }
    }
    found.truncate(MOST);
    found
}

/// The planned commands no command in `run` made already: a run shown under the commands, with
/// its outcome, needs no second line.
pub(super) fn not_run(planned: Vec<String>, run: &[CommandUse]) -> Vec<String> {
    planned
        .into_iter()
        .filter(|command| {
            let planned = run_segment(command);
            !run.iter().any(|used| {
                run_segments(&used.command)
                    .into_iter()
                    .any(|segment| without_plumbing(segment).trim() == planned)
            })
        })
        .collect()
}

/// A line that opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    line.starts_with("```") || line.starts_with("~~~")
}

/// A heading's level and title: `## Verification` is level 2; a line that opens on a bold
/// label (`**Testing:**`, `**Verification:** run …`) is level 7, below every `#` heading.
fn heading(line: &str) -> Option<(usize, &str)> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        return Some((hashes, line[hashes..].trim()));
    }
    let label = line.strip_prefix("**")?;
    let end = label.find("**")?;
    Some((7, &label[..end]))
}

/// True for a heading title that names the plan's checks.
fn names_checks(title: &str) -> bool {
    let lower = title.to_ascii_lowercase();
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| CHECK_HEADINGS.iter().any(|c| word.starts_with(c)))
}

/// The inline code spans of a Markdown line, in order.
fn code_spans(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// True for text that reads as a build, test, lint or task command: its program is one that
/// runs those, or the whole is a test run or a gate.
fn reads_as_command(text: &str) -> bool {
    let text = text.trim();
    if text.is_empty() || text.contains('\n') {
        return false;
    }
    let program = text.split_whitespace().next().unwrap_or_default();
    RUN_PROGRAMS.contains(&program) || is_test_command(text) || is_gate(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = "# Plan: rewind restores each agent's transcript

## Changes
1. `manual_commit_rewind.go`: call `ComputeTranscriptPath` instead of the Claude path.
2. Run `go generate ./...` after editing the enum.

```go
func restore(ctx context.Context) error
```

## Verification

1. `go build ./...`
2. `mise run fmt && mise run lint` — formatting and lint pass
3. `cd web && npm test` — the web app's tests
3. Unit tests in `rewind_test.go`, then:
   ```bash
   # the whole suite
   $ mise run test:ci 2>&1 | tail -20
   ```
4. Manual: `entire rewind` in a repo with two agents' sessions.

### Edge cases
- `go test ./cmd/entire/cli/... -count=1`

## Rollout
- `make release`
";

    #[test]
    fn a_plans_checks_are_the_commands_of_its_verification_section() {
        assert_eq!(
            verification_commands(PLAN),
            [
                "go build ./...",
                "mise run fmt",
                "mise run lint",
                "cd web && npm test",
                "mise run test:ci",
                "go test ./cmd/entire/cli/... -count=1",
            ]
        );
        // A bold label heads a section too, up to the next heading.
        let labelled = "## Task 4\n**Verification:** `mise run fmt && mise run test`\n\
                        **Files:** `hooks.go`\n`make release`";
        assert_eq!(
            verification_commands(labelled),
            ["mise run fmt", "mise run test"]
        );
        // A plan with no such section names none, nor does its title.
        assert!(verification_commands("## Steps\n- `go test ./...`").is_empty());
        assert!(verification_commands("# Plan: add tests\n- `go test ./...`").is_empty());
    }

    #[test]
    fn a_check_the_session_ran_is_left_to_the_commands_section() {
        let ran = |command: &str| CommandUse {
            command: command.to_owned(),
            runs: 1,
            ..CommandUse::default()
        };
        let planned = verification_commands(PLAN);
        let run = [
            ran("mise run fmt && mise run lint 2>&1"),
            ran("go build ./..."),
            ran("cd web && npm test"),
        ];
        assert_eq!(
            not_run(planned, &run),
            ["mise run test:ci", "go test ./cmd/entire/cli/... -count=1"]
        );
    }
}
