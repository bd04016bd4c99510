//! The end of the one pass: the requests that matter cut to length, decisions gathered, the
//! latest edits' names, and every list ranked for the reader.

use super::{Builder, AGENT_DECISIONS, TOUCHED};
use crate::extract::around::around;
use crate::extract::ask::compress;
use crate::extract::chore::goal_after_chore;
use crate::extract::closing::closing_words;
use crate::extract::decisions::{is_decision_turn, is_rule, DECISION_CHARS};
use crate::extract::figures::stated_figures;
use crate::extract::goal_names::goal_names;
use crate::extract::hashes::stated_hashes;
use crate::extract::limits::{ASK_CHARS, GOAL_CHARS, GOAL_SHOWN, SAID_CHARS};
use crate::extract::model::*;
use crate::extract::next::is_fresh;
use crate::extract::pasted::PASTED_BY;
use crate::extract::recent_edits::{last_edited, RECENT_EDITS};
use crate::extract::request_edits::request_edits;
use crate::extract::said::{plan_sentence, unchecked_items};
use crate::extract::said_names::said_names;
use crate::extract::text::one_line;
use crate::extract::verification::{not_run, verification_commands};
use crate::extract::written_tests::newest_tests;
use crate::transcript::classify::text_of;
use crate::transcript::Record;

impl Builder {
    pub(in crate::extract) fn finish(mut self, records: &[Record]) -> Extract {
        self.ex.running = self.running_labels();
        let said = |(index, text): (usize, String), max: usize| Said {
            text: one_line(&text, max),
            index,
        };
        // A first request that was a chore gives way to the first request of substance.
        if !self.ex.summarised && self.goal_doc.is_none() {
            if let Some(goal) = goal_after_chore(&self.requests) {
                self.goal = Some(goal.clone());
            }
        }
        let goal_index = self.goal.as_ref().map(|g| g.0);
        let task_index = self.task.as_ref().map(|t| t.0);
        let context_index = self.context.as_ref().map(|c| c.0);
        let shown =
            |i: usize| Some(i) == goal_index || Some(i) == task_index || Some(i) == context_index;
        let mut decisions: Vec<Decision> = Vec::new();
        // A turn sent again (after an interruption, a rejected call) is one turn, the latest;
        // one that repeats the goal or the task is shown there.
        let same = |a: &str, b: &str| a.trim() == b.trim();
        let shown_text = |text: &str| {
            [&self.goal, &self.task, &self.context]
                .iter()
                .any(|s| s.as_ref().is_some_and(|(_, t)| same(t, text)))
        };
        for (n, (index, text)) in self.requests.iter().enumerate() {
            let again = self.requests[n + 1..].iter().any(|(_, t)| same(t, text));
            if !shown(*index) && !again && !shown_text(text) && is_decision_turn(text) {
                decisions.push(Decision {
                    text: one_line(text, DECISION_CHARS),
                    index: *index,
                    user: true,
                    rule: is_rule(text),
                    figures: stated_figures(text),
                });
            }
        }
        for (index, text) in &self.answers {
            decisions.push(Decision {
                text: one_line(text, DECISION_CHARS),
                index: *index,
                user: true,
                rule: true,
                figures: Vec::new(),
            });
        }
        let mut seen: Vec<&str> = Vec::new();
        for (index, text) in self.choices.iter().rev() {
            if seen.len() == AGENT_DECISIONS || seen.contains(&text.as_str()) {
                continue;
            }
            seen.push(text);
            decisions.push(Decision {
                text: one_line(text, DECISION_CHARS),
                index: *index,
                user: false,
                rule: false,
                figures: Vec::new(),
            });
        }
        decisions.sort_by_key(|d| d.index);
        self.ex.decisions = decisions;
        self.ex.brief = self.brief.map(|b| said(b, GOAL_CHARS));
        if self.task.is_none() {
            self.ex.pending = self.summary_pending.map(|p| said(p, SAID_CHARS));
        }
        self.ex.last_call_open = self
            .last_call_slot
            .and_then(|slot| self.pending.get(slot))
            .is_some_and(|p| !p.answered);
        self.ex.delegated = self
            .pending
            .iter()
            .filter(|p| !p.answered)
            .filter_map(|p| p.agent.clone())
            .map(|a| said(a, SAID_CHARS))
            .collect();
        self.ex.reports = std::mem::take(&mut self.reports)
            .into_iter()
            .map(|r| said(r, SAID_CHARS))
            .collect();
        // Long requests keep their details rather than their first few hundred characters.
        if let Some((_, text)) = &self.goal {
            self.ex.goal_names = goal_names(text);
        }
        self.ex.goal = self.goal.map(|(index, text)| Said {
            text: compress(&text, GOAL_SHOWN),
            index,
        });
        self.ex.task = self.task.map(|(index, text)| Said {
            text: compress(&text, ASK_CHARS),
            index,
        });
        self.ex.context = self.context.map(|c| said(c, SAID_CHARS));
        if let Some(index) = self.last_text {
            let text = records[index].message().map(text_of).unwrap_or_default();
            self.ex.doing = Some(Said {
                text: one_line(&text, SAID_CHARS),
                index,
            });
            self.ex.said_names = said_names(&text);
            self.ex.doing_figures = stated_figures(&text);
            // The commits the last words trace go with their figures (see `hashes`).
            let goal = self.ex.goal.as_ref().map_or("", |g| g.text.as_str());
            let hashes = stated_hashes(&text, goal);
            self.ex.doing_figures.extend(hashes);
            self.ex.closing = Some(Said {
                text: closing_words(&text, SAID_CHARS),
                index,
            });
            let after_request = self.ex.task.as_ref().is_none_or(|t| t.index < index);
            if after_request {
                self.ex.plan = plan_sentence(&text).map(|s| Said {
                    text: one_line(s, SAID_CHARS),
                    index,
                });
            }
        }
        // The last words' own figures, also those its shown part holds, are `said:`'s.
        let mut said_figures = self.ex.doing_figures.clone();
        if let Some(doing) = &self.ex.doing {
            said_figures.extend(stated_figures(&doing.text));
        }
        self.ex.stated_figures = self.stated.latest(&said_figures);
        self.ex.fresh = is_fresh(
            self.ex.task.as_ref().map(|t| t.index),
            self.last_text,
            self.ex.last_call.as_ref().map(|c| c.index),
        );
        for names in self.edits.iter().rev() {
            for name in names {
                if !self.ex.touched.contains(name) {
                    self.ex.touched.push(name.clone());
                }
            }
        }
        // The names the edits wrote before the error messages they give: a quoted message
        // takes the room of several names, and the names are what the next turn searches.
        self.ex.touched.sort_by_key(|name| name.starts_with('"'));
        self.ex.touched.truncate(TOUCHED);
        self.ex.written_tests = newest_tests(&self.tests);
        if let Some(site) = &self.site {
            self.ex.around = around(records, site, &self.reads, &self.ex.touched);
        }
        // Claude Code's task list, when it changed after the last todo list.
        if let Some((at, todos)) = std::mem::take(&mut self.tasks).open() {
            if self.ex.todo_at.is_none_or(|todo| todo < at) {
                self.ex.todos = todos;
                self.ex.todo_at = Some(at);
            }
        }
        if let Some((index, plan)) = &self.plan_doc {
            let newer = self.ex.todo_at.is_none_or(|at| at < *index);
            let items = unchecked_items(plan);
            if newer && !items.is_empty() {
                self.ex.todos = items
                    .into_iter()
                    .map(|text| Todo {
                        text: one_line(text, SAID_CHARS),
                        active: false,
                        detail: None,
                    })
                    .collect();
                self.ex.todo_at = Some(*index);
            }
        }
        // The checks the latest plan that names any names, those the session has not run yet.
        let written = [&self.plan_doc, &self.accepted_plan]
            .into_iter()
            .flatten()
            .map(|(index, plan)| (*index, verification_commands(plan)));
        let planned = written
            .chain(self.plan_read.take())
            .filter(|(_, checks)| !checks.is_empty())
            .max_by_key(|(index, _)| *index);
        if let Some((_, checks)) = planned {
            self.ex.planned = not_run(checks, &self.ex.commands);
        }
        if let Some(last) = self.ex.commits.last() {
            let mut after: Vec<usize> = self
                .writes
                .iter()
                .filter(|(index, _)| *index > last.index)
                .map(|&(_, slot)| slot)
                .collect();
            after.sort_unstable();
            after.dedup();
            self.ex.uncommitted = after.len();
        }
        // The files the current request changed (the one a short request leans on included),
        // read before the sort moves the positions the writes point at.
        let request = self.ex.context.as_ref().or(self.ex.task.as_ref());
        self.ex.request_edits =
            request_edits(&self.writes, &self.ex.files, request.map(|r| r.index));
        // The files changed last go first (see `recent_edits`), marked before the sort moves
        // the positions the writes point at.
        let recent = last_edited(&self.writes, &self.ex.files, RECENT_EDITS);
        let mut latest = vec![usize::MAX; self.ex.files.len()];
        for (order, &slot) in recent.iter().enumerate() {
            latest[slot] = order;
        }
        let ex = &mut self.ex;
        let mut keyed: Vec<(usize, FileUse)> = latest.into_iter().zip(ex.files.drain(..)).collect();
        // Changes weigh more than reads, and recent use up to twice as much as the first
        // record: the files a session is about, with the ones it is on now ahead.
        let n = records.len().max(1) as u64;
        let rank = |f: &FileUse| {
            let uses = u64::from(3 * f.edit + 2 * f.create + 2 * f.delete + f.read);
            uses * (n + f.last as u64) / n
        };
        // A deleted file is no file of the work any more: it goes after the live ones.
        keyed.sort_by(|(la, a), (lb, b)| {
            (a.gone.cmp(&b.gone))
                .then(la.cmp(lb))
                .then(rank(b).cmp(&rank(a)))
                .then(b.last.cmp(&a.last))
        });
        ex.files = keyed.into_iter().map(|(_, f)| f).collect();
        let group = |c: &CommandUse| {
            let failed = c.outcome.is_some_and(|o| o.ok == Some(false));
            match (failed, c.test, c.inspect) {
                (true, _, _) => 0,
                (false, true, _) => 1,
                (false, false, false) => 2,
                (false, false, true) => 3,
            }
        };
        // Only the latest result line is current.
        let latest = ex
            .commands
            .iter()
            .filter(|c| c.result.is_some())
            .filter_map(|c| c.outcome.map(|o| o.index))
            .max();
        for c in &mut ex.commands {
            if c.outcome.map(|o| o.index) != latest {
                c.result = None;
            }
        }
        ex.commands
            .sort_by(|a, b| group(a).cmp(&group(b)).then(b.last.cmp(&a.last)));
        // Open errors first, the ones the user pasted ahead (they are what was asked about),
        // then the newest.
        let pasted = |e: &ErrorSeen| e.command.as_deref() == Some(PASTED_BY);
        ex.errors.sort_by(|a, b| {
            (a.resolved, !pasted(a))
                .cmp(&(b.resolved, !pasted(b)))
                .then(b.last.cmp(&a.last))
        });
        ex.ci.sort_by_key(|c| std::cmp::Reverse(c.last));
        self.ex
    }
}
