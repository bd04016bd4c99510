//! `condense doctor`'s checks (pure): what an agent would lose when it resumes a session, read
//! by the agent's own live-context rule.
//!
//! Each defect class is a [`Finding`] with the lines it concerns:
//!
//! - a **half line**: the last line is cut off (a crash mid-write); every agent's loader skips
//!   it, and the next line the agent appends would be glued to it;
//! - **malformed lines** elsewhere, which the loaders skip too;
//! - **dangling parents** (Claude Code `parentUuid`, pi `parentId` naming no line of the file):
//!   the chain the agent walks back from its leaf stops there, and everything before is lost;
//! - **cycles** in those links, where the walk stops as well;
//! - **duplicate ids**: the loader keeps the first line of an id and links every child to it;
//! - **unreachable entries**: conversation after the newest compaction that is not on the path
//!   the agent resumes (cut off by a broken link, or left on a side branch);
//! - **orphaned tool results** in the live context: results whose call the context lacks,
//!   which the providers reject.
//!
//! [`tree`] finds the link defects, [`tools`] the pairing, [`repair`] writes the fixes.

pub mod glued;
pub mod repair;
pub mod tools;
pub mod tree;

use serde::Serialize;

use crate::transcript::load::Transcript;
use crate::transcript::{FormatId, Role};

/// One defect class found in a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The class: `half-line`, `glued-lines`, `malformed-line`, `dangling-parent`, `cycle`, `duplicate-id`,
    /// `unreachable`, `orphaned-tool-result`.
    pub defect: &'static str,
    /// How many.
    pub count: usize,
    /// The lines concerned (the first few hundred at most).
    pub lines: Vec<usize>,
    /// What the agent does with it on resume.
    pub effect: String,
    /// True when `--repair` fixes it.
    pub repairable: bool,
}

/// Most lines a finding lists.
const MAX_LINES: usize = 200;

/// What `doctor` found in one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    /// The input's name.
    pub file: String,
    /// Its format.
    pub format: Option<&'static str>,
    /// Records read.
    pub records: usize,
    /// Conversational records (user and assistant messages of the main chain).
    pub messages: usize,
    /// Of those, how many the agent's resume reaches (the live context, and what a compaction
    /// replaced, which is history by design).
    pub reachable: usize,
    /// The defects, one entry per class found.
    pub findings: Vec<Finding>,
}

impl Diagnosis {
    /// True when nothing is wrong.
    pub fn healthy(&self) -> bool {
        self.findings.is_empty()
    }
}

fn finding(defect: &'static str, lines: Vec<usize>, effect: String, repairable: bool) -> Finding {
    Finding {
        defect,
        count: lines.len(),
        lines: lines.into_iter().take(MAX_LINES).collect(),
        effect,
        repairable,
    }
}

/// Whether `format` links records into a tree the agent walks (ids and parents).
fn has_tree(format: FormatId) -> bool {
    format.format().tree().is_some()
}

/// Whether `format`'s records carry ids the loader indexes.
fn has_ids(format: FormatId) -> bool {
    format.format().has_ids()
}

/// The text of the line numbered `number`.
pub fn line_text<'a>(transcript: &Transcript<'a>, number: usize) -> Option<&'a [u8]> {
    let index = transcript
        .lines
        .binary_search_by_key(&number, |line| line.number)
        .ok()?;
    Some(transcript.lines[index].text)
}

/// Examines a transcript read with malformed lines skipped (`skipped` are their line
/// numbers).
pub fn examine(transcript: &Transcript, skipped: &[usize]) -> Diagnosis {
    let mut findings = Vec::new();
    if let Some(index) = transcript.incomplete {
        findings.push(finding(
            "half-line",
            vec![transcript.lines[index].number],
            "the last line is cut off: the agent skips it, and the next line it appends is \
             glued to it"
                .to_owned(),
            true,
        ));
    }
    let (glued_lines, malformed): (Vec<usize>, Vec<usize>) = skipped.iter().partition(|&&number| {
        line_text(transcript, number).is_some_and(|t| glued::split_points(t).is_some())
    });
    if !glued_lines.is_empty() {
        findings.push(finding(
            "glued-lines",
            glued_lines,
            "several records on one line (a lost line end): the agent's loader skips the line \
             and every record on it"
                .to_owned(),
            true,
        ));
    }
    if !malformed.is_empty() {
        findings.push(finding(
            "malformed-line",
            malformed,
            "not JSON the agent can read: its loader skips the line".to_owned(),
            false,
        ));
    }
    let line = |index: usize| transcript.records[index].line;
    let format = transcript.format;
    let links = tree::Links::of(&transcript.records);
    // What came before the newest compaction is history by design: the summary stands for it.
    let newest_marker = transcript.records.iter().rposition(|r| r.compaction);
    let conversational = |index: usize| {
        transcript.records[index]
            .message()
            .is_some_and(|m| !m.sidechain && matches!(m.role, Role::User | Role::Assistant))
    };
    if format.is_some_and(has_tree) {
        // A broken link cuts the chain only when messages hang under it and messages come
        // before it: a continued session's first line, or a bookkeeping line (progress) nothing
        // hangs under, costs the agent nothing.
        let mut behind = std::collections::HashSet::new();
        for i in (0..transcript.records.len()).filter(|&i| conversational(i)) {
            behind.extend(links.broken_at(i));
        }
        // Before the newest compaction everything is history: a link broken there cuts nothing
        // the agent resumes.
        let since = newest_marker.map_or(0, |m| m + 1);
        let first_rooted =
            (since..transcript.records.len()).find(|&j| conversational(j) && links.rooted(j));
        let cutting = |broken: &[usize]| {
            broken
                .iter()
                .filter(|&b| behind.contains(b) && first_rooted.is_some_and(|j| j < *b))
                .count()
        };
        let dangling = links.dangling();
        if !dangling.is_empty() {
            let cuts = cutting(&dangling);
            findings.push(finding(
                "dangling-parent",
                dangling.into_iter().map(line).collect(),
                format!(
                    "the parent names no line of the file: the walk back from the leaf stops \
                     there (Claude Code 2.1.332 bridges some such gaps itself); {cuts} of them \
                     cut earlier messages off the chain, the rest (a continued session's first \
                     line, bookkeeping nothing hangs under) cut nothing"
                ),
                cuts > 0,
            ));
        }
        let cycles = links.cycles();
        if !cycles.is_empty() {
            let cuts = cutting(&cycles);
            findings.push(finding(
                "cycle",
                cycles.into_iter().map(line).collect(),
                format!(
                    "the parents loop: the agent's walk stops where it comes round; {cuts} of \
                     them cut earlier messages off the chain"
                ),
                cuts > 0,
            ));
        }
    }
    if format.is_some_and(has_ids) {
        let conflicting = links.duplicates(&transcript.records);
        if !conflicting.is_empty() {
            findings.push(finding(
                "duplicate-id",
                conflicting.into_iter().map(line).collect(),
                "another line has this id: the agent keeps the first and hangs the children of \
                 both under it"
                    .to_owned(),
                false,
            ));
        }
    }
    let messages: Vec<usize> = (0..transcript.records.len())
        .filter(|&i| conversational(i))
        .collect();
    let mut in_context = vec![false; transcript.records.len()];
    for &index in &transcript.live.order {
        in_context[index] = true;
    }
    let lost: Vec<usize> = messages
        .iter()
        .copied()
        .filter(|&i| !in_context[i] && newest_marker.is_none_or(|m| i > m))
        .collect();
    let reachable = messages.len() - lost.len();
    if format.is_some_and(has_tree) && !lost.is_empty() {
        let cut = findings
            .iter()
            .any(|f| matches!(f.defect, "dangling-parent" | "cycle") && f.repairable);
        findings.push(finding(
            "unreachable",
            lost.iter().copied().map(line).collect(),
            format!(
                "{} of {} messages are not on the path the agent resumes ({})",
                lost.len(),
                messages.len(),
                if cut {
                    "a broken link cuts the chain; side branches may add to them"
                } else {
                    "side branches: an edit, a rewind or a fork left them"
                }
            ),
            cut,
        ));
    }
    let orphans: Vec<usize> = tools::orphaned_results(transcript.context())
        .into_iter()
        .map(|position| transcript.context()[position].line)
        .collect();
    if !orphans.is_empty() {
        findings.push(finding(
            "orphaned-tool-result",
            orphans,
            "a tool result whose call is not in the live context: the provider rejects the \
             request"
                .to_owned(),
            false,
        ));
    }
    Diagnosis {
        file: transcript.name.clone(),
        format: format.map(FormatId::as_str),
        records: transcript.records.len(),
        messages: messages.len(),
        reachable,
        findings,
    }
}
