//! A slash command as the user's request. Claude Code records a command the user typed as
//! `<command-name>/x</command-name>`, in two shapes:
//! - a harness command it runs itself (`/clear`, `/model`, `/compact`) always carries a
//!   `<command-args>` element, empty when nothing followed the name, and its output comes back
//!   as `<local-command-stdout>`;
//! - a prompt command (a skill such as `/github-pr-review`, a custom or built-in prompt such as
//!   `/review`) carries `<command-args>` only when the user typed some, and the prompt it
//!   expands to follows as a meta message the agent then acts on.
//!
//! A prompt command is the user asking for that work even with no arguments: after
//! `/github-pr-review` the agent is answering the PR's review threads, and the command's name
//! is the one place the session says so in the user's voice. A harness command with no
//! arguments asks the agent for nothing. A command's name alone is no goal: it says what the
//! agent does now, not what the session is for.

use super::text::{between, has};

/// The request a command message makes: `<name> <args>` when the user typed arguments, the
/// name alone for a prompt command typed bare, nothing for a bare harness command (or a
/// message that names no command).
pub(super) fn command_request(text: &str) -> Option<String> {
    let name = between(text, "<command-name>", "</command-name>")?.trim();
    if name.is_empty() {
        return None;
    }
    if !has(text, "<command-args>") {
        return Some(name.to_owned());
    }
    let args = between(text, "<command-args>", "</command-args>")?.trim();
    (!args.is_empty()).then(|| format!("{name} {args}"))
}

/// True for a request that is a command's name alone (`/gsd:progress`): what the agent is
/// doing now, but no statement of what the session is for, so it is never the goal.
pub(super) fn is_bare_command(request: &str) -> bool {
    request.starts_with('/') && !request.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_command_is_a_request_with_or_without_arguments() {
        let bare = "<command-message>github-pr-review</command-message>\n<command-name>/github-pr-review</command-name>";
        assert_eq!(command_request(bare).as_deref(), Some("/github-pr-review"));
        let with_args = "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>this branch</command-args>";
        assert_eq!(
            command_request(with_args).as_deref(),
            Some("/review this branch")
        );
    }

    #[test]
    fn a_harness_command_asks_only_with_arguments() {
        let clear = "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>";
        assert_eq!(command_request(clear), None);
        let compact =
            "<command-name>/compact</command-name>\n<command-args>keep the plan</command-args>";
        assert_eq!(
            command_request(compact).as_deref(),
            Some("/compact keep the plan")
        );
        assert_eq!(command_request("no command here"), None);
    }

    #[test]
    fn a_name_alone_is_no_goal_and_a_name_with_words_is() {
        assert!(is_bare_command("/github-pr-review"));
        assert!(!is_bare_command("/review this branch"));
        assert!(!is_bare_command("fix the build"));
    }
}
