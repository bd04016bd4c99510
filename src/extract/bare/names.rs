//! `NOW: <task> [names]`: the code names the latest edits wrote or replaced, after the task:
//! what the work is changing. Only names a next turn looks up count: no quoted message, no host
//! name (`github.com` of an import path, `example.io` of a URL).

use super::super::shorten::Shortening;

/// Names of the latest edits shown after the current task (fewer when the current request's
/// other file takes their room, see `request_file`).
pub(super) const NOW_NAMES: usize = 3;

/// The current task and ` [names]`, the first `count` names the latest edits wrote or
/// replaced that the line does not show yet: the code the work is changing. A quoted message
/// (`"failed to update"`) is no name the next turn looks up, and in a hundred tokens it
/// takes the room of three identifiers: only single words count. When the line is
/// cut, they stay while the task before them shortens.
pub(super) fn with_names(now: Shortening, touched: &[String], count: usize) -> Shortening {
    let names: Vec<&str> = touched
        .iter()
        .map(String::as_str)
        .filter(|n| !n.contains(char::is_whitespace) && !is_host(n))
        .filter(|n| !now.full.contains(n))
        .take(count)
        .collect();
    if names.is_empty() || now.full == "none" {
        return now;
    }
    // The names are kept whole longest, like the latest request after the one it leans on.
    Shortening {
        tail: now.tail,
        full: format!("{} [{}]", now.full, names.join(" ")),
        fallback: now.fallback,
    }
}

/// Endings of host names: a word that ends in one (`github.com`) names a place on the web, not
/// code.
const HOST_ENDINGS: [&str; 4] = [".com", ".io", ".org", ".net"];

/// True for a host name (see [`HOST_ENDINGS`]).
fn is_host(name: &str) -> bool {
    HOST_ENDINGS.iter().any(|e| name.ends_with(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_names_identifiers_not_quoted_messages_or_hosts() {
        let task = Shortening::plain("add the telemetry prompt".to_owned());
        let touched = [
            "\"failed to update\"",
            "github.com",
            "promptTelemetryConsent",
            "runEnable",
        ]
        .map(String::from);
        let now = with_names(task, &touched, NOW_NAMES);
        assert_eq!(
            now.full,
            "add the telemetry prompt [promptTelemetryConsent runEnable]"
        );
    }
}
