//! The part of a command line that is the run. Agents wrap a run in reporting and set-up:
//! `make report; echo "exit $?"`, `cd app && npm test || true`, `sleep 2; curl …`. The run is
//! the last segment (between `&&`, `||` and `;`) that is no such plumbing, so that a later
//! `make report; echo "exit $?"` that passes is known to fix what `make report` met.

/// Programs that set up or report on a run rather than being it.
const PLUMBING: [&str; 8] = [
    "echo", "printf", "true", "false", "cd", "sleep", "exit", "set",
];

/// The segment of `command` that is its run (see the module docs); the whole line when every
/// segment is plumbing.
pub(super) fn run_segment(command: &str) -> &str {
    run_segments(command).pop().unwrap_or(command)
}

/// Every segment of `command` that runs something, in order: `npm run check && npm test`
/// runs both.
pub(super) fn run_segments(command: &str) -> Vec<&str> {
    segments(command)
        .into_iter()
        .map(str::trim)
        .filter(|segment| {
            segment
                .split_whitespace()
                .next()
                .is_some_and(|program| !PLUMBING.contains(&program))
        })
        .collect()
}

/// The segments of a command line between `&&`, `||` and `;` outside quotes.
fn segments(command: &str) -> Vec<&str> {
    let bytes = command.as_bytes();
    let mut quote: Option<u8> = None;
    let mut start = 0;
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b';' => {
                out.push(&command[start..i]);
                start = i + 1;
            }
            None if (b == b'&' || b == b'|') && bytes.get(i + 1) == Some(&b) => {
                out.push(&command[start..i]);
                start = i + 2;
                i += 1;
            }
            None => {}
        }
        i += 1;
    }
    out.push(&command[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_without_its_reporting_and_set_up() {
        assert_eq!(run_segment("make report; echo \"exit $?\""), "make report");
        assert_eq!(run_segment("cd app && npm test || true"), "npm test");
        assert_eq!(
            run_segment("mise run fmt && mise run test"),
            "mise run test"
        );
        assert_eq!(
            run_segment("sleep 2; curl -s localhost:3000"),
            "curl -s localhost:3000"
        );
        assert_eq!(
            run_segment("go test ./... 2>&1 | tail -5"),
            "go test ./... 2>&1 | tail -5"
        );
        assert_eq!(run_segment("echo hi"), "echo hi");
        assert_eq!(
            run_segments("cd app && npm run check && npm test; echo done"),
            ["npm run check", "npm test"]
        );
        assert_eq!(
            run_segment("python3 -c 'import a; print(a)' && echo ok"),
            "python3 -c 'import a; print(a)'"
        );
    }
}
