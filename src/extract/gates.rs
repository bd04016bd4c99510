//! The checks a project gates its work with besides tests: linters, format checks and type
//! checks (`mise run lint`, `golangci-lint run`, `npm run check`, `cargo clippy`, `ruff check`).
//! A session that ends on "lint passes" is in another state than one that ends on "lint
//! fails", and the next turn runs the same gate again, so a gate is shown like a test run: high
//! in the commands, with its outcome.

/// Words that name a linter, a format check or a type check when a command holds them as a
/// whole word (or a task name, `lint:fix`).
const GATE_WORDS: [&str; 17] = [
    "lint",
    "golangci-lint",
    "eslint",
    "clippy",
    "ruff",
    "flake8",
    "mypy",
    "pyright",
    "shellcheck",
    "typecheck",
    "type-check",
    "tsgo",
    "vue-tsc",
    "staticcheck",
    "biome",
    "pylint",
    "rubocop",
];

/// Task runners whose `check` task is the project's gate (`npm run check`, `make check`).
const CHECK_TASKS: [&str; 8] = [
    "npm run check",
    "pnpm run check",
    "pnpm check",
    "yarn check",
    "bun run check",
    "mise run check",
    "just check",
    "cargo fmt --check",
];

/// Words that start a tool through a runner (`npx eslint`, `uv run ruff`, `mise run lint`):
/// the gate is the word after them.
const LAUNCHERS: [&str; 17] = [
    "npx", "bunx", "pnpx", "uv", "uvx", "run", "exec", "npm", "pnpm", "yarn", "bun", "mise",
    "make", "just", "task", "poetry", "cargo",
];

/// True for a command that runs a linter, a format check or a type check: a segment whose
/// program (after any runner) is one, or a runner's `check` task. A gate's name elsewhere (a
/// commit message, a file name) is not one.
pub(super) fn is_gate(command: &str) -> bool {
    if CHECK_TASKS.iter().any(|t| command.contains(t)) {
        return true;
    }
    command
        .split(['&', '|', ';', '(', ')', '\n'])
        .any(|segment| {
            let program = segment
                .split_whitespace()
                .filter(|w| !w.contains('=') && !w.starts_with('-'))
                .find(|w| !LAUNCHERS.contains(w));
            program.is_some_and(|word| {
                let name = word.rsplit('/').next().unwrap_or(word);
                let task = name.split(':').next().unwrap_or(name);
                GATE_WORDS.contains(&task)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linters_and_checks_are_gates() {
        for gate in [
            "mise run fmt && mise run lint",
            "golangci-lint run ./...",
            "npm run lint:fix",
            "npm run check",
            "cargo clippy --all-targets -- -D warnings",
            "uv run ruff check .",
            "./node_modules/.bin/eslint src",
            "npx tsgo --noEmit",
        ] {
            assert!(is_gate(gate), "{gate}");
        }
        for other in [
            "git commit -m 'fix lint issues'",
            "npm run dev",
            "grep -rn lint src",
            "cat lint.log",
        ] {
            assert!(!is_gate(other), "{other}");
        }
    }
}
