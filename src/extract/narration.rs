//! The agent narrating its own way of working, which is no decision: "Let me verify rather
//! than speculate.", "I'll check instead of guessing." Such a sentence holds a choice mark
//! (`rather than`, `instead of`) and reads like a stated choice, but what it sets aside is a
//! way of thinking, not a design, a tool or a piece of code: the next reader acts on nothing
//! in it, and at caveman's budget it takes the line of a real decision.

/// Ways of thinking an agent sets aside when it narrates how it will work: the word right
/// after the choice mark. Lowercase.
const WAYS_OF_THINKING: [&str; 12] = [
    "speculate",
    "speculating",
    "guess",
    "guessing",
    "assume",
    "assuming",
    "theorize",
    "theorizing",
    "theorising",
    "hypothesize",
    "hypothesizing",
    "wonder",
];

/// The marks after which an agent names what it sets aside.
const SET_ASIDE: [&str; 2] = ["rather than ", "instead of "];

/// Words that may stand around the way of thinking without giving it an object ("rather than
/// just guess here").
const FILLERS: [&str; 6] = ["just", "keep", "to", "here", "further", "blindly"];

/// True when `lower` (a lowercased sentence) only narrates the agent's way of working: what it
/// sets aside after `rather than` / `instead of` is a way of thinking with no object, and the
/// sentence ends there ("rather than guessing it at runtime" sets aside a design).
pub(super) fn is_narration(lower: &str) -> bool {
    SET_ASIDE.iter().any(|mark| {
        lower.match_indices(mark).any(|(at, _)| {
            let mut words = lower[at + mark.len()..]
                .split(|c: char| !c.is_alphabetic())
                .filter(|w| !w.is_empty() && !FILLERS.contains(w));
            words.next().is_some_and(|w| WAYS_OF_THINKING.contains(&w)) && words.next().is_none()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_aside_a_way_of_thinking_is_narration() {
        for narration in [
            "let me verify rather than speculate.",
            "i'll check the code instead of guessing.",
            "let me measure it rather than just assume.",
        ] {
            assert!(is_narration(narration), "{narration}");
        }
        for choice in [
            "use `git diff --cached` instead of go-git's `worktree.status()`.",
            "it returns a proper error instead of silently continuing.",
            "we pin the version rather than guessing it at runtime because ci is offline.",
            "let me fix it since it's cleaner.",
        ] {
            assert!(!is_narration(choice), "{choice}");
        }
    }
}
