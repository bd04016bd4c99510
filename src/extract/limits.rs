//! How much of each kind of text an extract keeps, in characters: shared by the builder and
//! the readers of tool calls, and cut further by the renderers to fit.

/// Characters kept of the brief beside the goal; the renderers cut further to fit.
pub(super) const GOAL_CHARS: usize = 600;

/// Characters kept of a request, an assistant text or a plan sentence.
pub(super) const SAID_CHARS: usize = 300;

/// Characters kept of the latest request, compressed to its first line and its details (see
/// `ask`).
pub(super) const ASK_CHARS: usize = 240;

/// Characters kept of the goal, compressed the same way; the renderers cut further.
pub(super) const GOAL_SHOWN: usize = 300;

/// A request lighter than this (CJK characters weigh two) leans on the one before it
/// ("continue", "yeah, do it all"), so the task carries that one too.
pub(super) const SHORT_REQUEST: usize = 40;
