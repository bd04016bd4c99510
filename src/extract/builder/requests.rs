//! The user's turns in the one pass: each request, what an ask names beyond its words, and a
//! leading compaction summary's goal.

use super::Builder;
use crate::extract::goal::{pointed_document, summary_first_words, summary_goal, summary_pending};
use crate::extract::limits::SHORT_REQUEST;
use crate::extract::pasted::{pasted_errors, PASTED_BY};
use crate::extract::plan_file::{is_accepted_plan, plan_file};
use crate::extract::prompt_command::is_bare_command;
use crate::extract::said::weight;
use crate::transcript::{Message, Record};

impl Builder {
    /// A compaction summary ahead of every request: the goal it states, and the intent beside
    /// the user's own first words when it quotes them.
    pub(super) fn summary(&mut self, index: usize, text: &str) {
        let Some(goal) = summary_goal(text) else {
            return;
        };
        self.ex.summarised = true;
        self.summary_pending = summary_pending(text).map(|p| (index, p));
        match summary_first_words(text) {
            Some(words) => {
                self.brief = Some((index, format!("intent: {goal}")));
                self.goal = Some((index, words));
            }
            None => self.goal = Some((index, goal)),
        }
    }

    /// What an ask names beyond its words: the plan file of a plan it accepts.
    pub(super) fn asked(&mut self, record: &Record, message: &Message, request: &str) {
        if let Some(plan) = plan_file(record.raw, message, Some(request)) {
            self.ex.plan_file = Some(plan);
        }
    }

    pub(super) fn request(&mut self, index: usize, text: String) {
        self.ex.requests += 1;
        self.requests.push((index, text.clone()));
        if is_accepted_plan(&text) {
            self.accepted_plan = Some((index, text.clone()));
        }
        // The errors an earlier request pasted were answered, unless this one is a short
        // follow-up that leans on it ("any other such issues?"); its own are the problem now.
        if weight(&text) >= SHORT_REQUEST {
            for error in &mut self.ex.errors {
                error.resolved |= error.command.as_deref() == Some(PASTED_BY);
            }
        }
        for line in pasted_errors(&text) {
            self.error(index, line, PASTED_BY);
        }
        if self.goal.is_none() && !is_bare_command(&text) {
            self.goal_doc = pointed_document(&text);
            self.goal = Some((index, text.clone()));
        }
        if weight(&text) < SHORT_REQUEST {
            self.context = self.substantive.clone();
        } else {
            self.context = None;
            self.substantive = Some((index, text.clone()));
        }
        self.task = Some((index, text));
        self.ex.answered = false;
    }
}
