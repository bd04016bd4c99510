//! CI checks and workflows: `.github/workflows/` files a call names, and the listings of
//! `gh pr checks` and `gh run list|view|watch`.

use super::text::{has, one_line};

/// Workflow file names (`ci.yml`) under `.github/workflows/` in a text.
pub(super) fn workflow_files(text: &str) -> Vec<String> {
    const DIR: &str = ".github/workflows/";
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), DIR.as_bytes()) {
        rest = &rest[at + DIR.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if (name.ends_with(".yml") || name.ends_with(".yaml")) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

pub(super) fn is_gh_ci(command: &str) -> bool {
    has(command, "gh pr checks") || has(command, "gh run ")
}

/// Checks in the output of `gh pr checks` and `gh run list|view|watch`:
/// `(check, workflow, status)`.
pub(super) fn gh_checks(
    command: &str,
    output: &str,
) -> Vec<(Option<String>, Option<String>, Option<String>)> {
    let mut checks = Vec::new();
    let own = |s: &str| Some(one_line(s, 80)).filter(|s| !s.is_empty());
    let run_list = command.contains("gh run list");
    let mut in_jobs = false;
    for line in output.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        if run_list && fields.len() >= 4 {
            // status, conclusion, title, workflow, branch, event, id, elapsed, age
            let status = own(fields[1]).or_else(|| own(fields[0]));
            checks.push((None, own(fields[3]), status));
            continue;
        }
        if fields.len() >= 2
            && matches!(
                fields[1].trim(),
                "pass" | "fail" | "pending" | "skipping" | "cancel" | "neutral"
            )
        {
            checks.push((own(fields[0]), None, own(fields[1])));
            continue;
        }
        let trimmed = line.trim();
        if trimmed == "JOBS" {
            in_jobs = true;
            continue;
        }
        // The terminal form: a symbol, the name, then columns two spaces apart; `gh run
        // view`'s jobs: `✓ build in 1m2s (ID 1)`.
        let symbol = trimmed.chars().next();
        let status = match symbol {
            Some('✓') => "pass",
            Some('X' | '✗' | '×') => "fail",
            Some('*' | '-') if !in_jobs => "pending",
            _ => continue,
        };
        let rest = trimmed[symbol.map_or(0, char::len_utf8)..].trim_start();
        if rest.is_empty() || (!in_jobs && !line.contains("  ")) {
            continue;
        }
        let name = if in_jobs {
            rest.split(" in ").next().unwrap_or(rest)
        } else {
            rest.split("  ").next().unwrap_or(rest)
        };
        checks.push((own(name), None, Some(status.to_owned())));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::testkit::*;

    #[test]
    fn ci_checks_come_from_workflow_files_and_gh() {
        let records = [
            call("1", "Read", r#"{"file_path":".github/workflows/ci.yml"}"#),
            bash("2", "gh pr checks 12"),
            result(
                "2",
                "build\tpass\t1m\thttps://x\nlint\tfail\t20s\thttps://y\n",
            ),
        ];
        let ex = extract(&records);
        let check = ex.ci_check().unwrap();
        assert_eq!(check.label(), "lint@ci.yml → fail");
        let list = gh_checks(
            "gh run list",
            "completed\tfailure\tfix\tCI\tmain\tpush\t1\t1m\t1h",
        );
        assert_eq!(list, [(None, Some("CI".into()), Some("failure".into()))]);
        let view = gh_checks(
            "gh run view 1",
            "✓ main CI · 1\n\nJOBS\n✓ build in 1m (ID 1)\nX test in 2m (ID 2)",
        );
        assert_eq!(view.len(), 2);
        assert_eq!(view[1], (Some("test".into()), None, Some("fail".into())));
    }
}
