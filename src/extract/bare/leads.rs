//! The agent's sentences without the words it leads them with: "Now let me run the tests" is
//! `Run the tests` on bare's lines. An agent narrates its steps in the first person ("Let me",
//! "I'll", "Now I need to"); on a line that says what comes next those words carry nothing,
//! and in a hundred tokens they are the room of a file name.

use super::super::model::Extract;

/// The agent's words in `ex` (its last text, its closing words, its plan) without their leads.
pub(super) fn drop_leads(ex: &mut Extract) {
    for said in [&mut ex.doing, &mut ex.closing, &mut ex.plan]
        .into_iter()
        .flatten()
    {
        said.text = without_leads(&said.text);
    }
}

/// Leads of a sentence that only say the agent will do what follows, longest first where one
/// starts another. "I'll help you update X" goes whole: without "I'll" alone it would read
/// "Help you update X", a fragment.
const LEADS: [&str; 15] = [
    "First, let me ",
    "Now let me ",
    "Let me help you ",
    "Let me ",
    "Now let's ",
    "Let's ",
    "Next, I will ",
    "Now I'll ",
    "I'll help you ",
    "I'll ",
    "I will help you ",
    "I will ",
    "Now I need to ",
    "I need to ",
    "Now I will ",
];

/// `text` with the lead of each sentence taken out (see the module doc), the word after it
/// capitalised. A sentence starts the text or follows `. `, `! `, `? ` or `: `.
pub(super) fn without_leads(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let lead = LEADS.iter().find(|l| rest.starts_with(*l));
        if let Some(lead) = lead.filter(|l| rest.len() > l.len()) {
            rest = &rest[lead.len()..];
            let mut chars = rest.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                rest = chars.as_str();
            }
        }
        match sentence_end(rest) {
            Some(end) => {
                out.push_str(&rest[..end]);
                rest = &rest[end..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// The byte just after the first sentence break (`. ` and the like) in `text`.
fn sentence_end(text: &str) -> Option<usize> {
    [". ", "! ", "? ", ": "]
        .iter()
        .filter_map(|p| text.find(p).map(|at| at + p.len()))
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_s_leads_go_and_the_step_stays() {
        assert_eq!(
            without_leads("Now let me run the integration tests:"),
            "Run the integration tests:"
        );
        assert_eq!(
            without_leads("All unit tests pass. Now let me run the integration tests:"),
            "All unit tests pass. Run the integration tests:"
        );
        assert_eq!(
            without_leads("First, let me add the prompt function: I'll wire it next."),
            "Add the prompt function: Wire it next."
        );
        // Mid-sentence, or alone, the words stay.
        assert_eq!(
            without_leads("Tell me if I'll need to rerun it"),
            "Tell me if I'll need to rerun it"
        );
        assert_eq!(without_leads("Let me "), "Let me ");
        // An offer of help goes with its lead, not leaving "Help you …".
        assert_eq!(
            without_leads("I'll help you update the CLAUDE.md file."),
            "Update the CLAUDE.md file."
        );
    }
}
