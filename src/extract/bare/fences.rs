//! The agent's prose bare quotes without the code blocks in it. An agent's last words often
//! sketch code in a fenced block (```go type Event int const ( EventUserPromptSubmit …```), and
//! on one line of a hundred tokens that sketch reads as a run of words which takes the room of
//! the sentence around it; the names in it are the code's to come, not the code the next turn
//! opens. The block gives way to `…`, whether it closes or the text was cut inside it.

use std::borrow::Cow;

/// A Markdown code fence.
const FENCE: &str = "```";

/// `text` with each fenced code block, fences and all, replaced by `…`; a block left open runs
/// to the end of the text.
pub(super) fn without_code_blocks(text: &str) -> Cow<'_, str> {
    if !text.contains(FENCE) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(FENCE) {
        out.push_str(rest[..open].trim_end());
        if !out.ends_with('…') {
            out.push('…');
        }
        let inside = &rest[open + FENCE.len()..];
        rest = inside
            .find(FENCE)
            .map_or("", |close| &inside[close + FENCE.len()..]);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_give_way_to_an_ellipsis_and_prose_stays() {
        assert_eq!(
            without_code_blocks(
                "Build it as a pure state machine: ```go type Event int``` then wire it."
            ),
            "Build it as a pure state machine:… then wire it."
        );
        assert_eq!(
            without_code_blocks("A pure component: ```go type Event int const ( EventStop…"),
            "A pure component:…"
        );
        assert!(matches!(
            without_code_blocks("no code here"),
            Cow::Borrowed(_)
        ));
    }
}
