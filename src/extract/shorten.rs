//! Texts that shorten from the end while a tail stays whole (the latest request after the one it
//! leans on, a command's outcome), shared by caveman and bare.

use super::model::Said;
use super::text::cut;

/// A text and how it shortens: from the end, except for a tail that stays whole (the latest
/// request after the one it leans on, a command's outcome) while the head before it keeps a
/// few characters; below that, a fallback (the tail's own words) is cut instead.
#[derive(Debug, Clone)]
pub(super) struct Shortening {
    /// The whole text.
    pub(super) full: String,
    /// Where the protected tail starts in `full` (its length when there is none).
    pub(super) tail: usize,
    /// What is cut instead once the tail no longer fits with a few characters before it.
    pub(super) fallback: String,
}

impl Shortening {
    /// A text with no protected tail.
    pub(super) fn plain(text: String) -> Self {
        Shortening {
            tail: text.len(),
            fallback: text.clone(),
            full: text,
        }
    }

    /// The text with `suffix` after it: the text stays the part that shortens, and the suffix
    /// joins the tail that stays whole (a file named after a step: ` @ engine.ts`).
    pub(super) fn with_kept_suffix(self, suffix: &str) -> Shortening {
        let full = format!("{}{suffix}", self.full);
        Shortening {
            tail: self.tail.min(self.full.len()),
            fallback: full.clone(),
            full,
        }
    }

    /// This text and `{joiner}{name}` in its kept tail: the text stays the part that shortens,
    /// the file it points at stays. As it is when there is no `name`, when it says `none`, or
    /// when it names the file already.
    pub(super) fn with_file_named(self, joiner: &str, name: Option<&str>) -> Shortening {
        match name {
            Some(name) if self.full != "none" && !self.full.contains(name) => {
                self.with_kept_suffix(&format!("{joiner}{name}"))
            }
            _ => self,
        }
    }

    /// Characters of the protected tail (0 when there is none).
    pub(super) fn tail_chars(&self) -> usize {
        self.full[self.tail..].chars().count()
    }

    /// At most `max` characters.
    pub(super) fn at(&self, max: usize) -> String {
        if self.full.chars().count() <= max {
            return self.full.clone();
        }
        let tail = &self.full[self.tail..];
        let tail_chars = self.tail_chars();
        if tail_chars > 0 && max >= tail_chars + 8 {
            return format!("{}{tail}", cut(&self.full[..self.tail], max - tail_chars));
        }
        cut(&self.fallback, max)
    }

    /// The largest `n` in `from..=len` (characters of the text) whose cut passes `ok`,
    /// assuming it passes up to some point and fails after; `from` when none does.
    pub(super) fn longest_cut(&self, from: usize, mut ok: impl FnMut(&str) -> bool) -> usize {
        let (mut low, mut high) = (from, self.full.chars().count());
        while low < high {
            let mid = (low + high).div_ceil(2);
            if ok(&self.at(mid)) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        low
    }
}

/// `head` and then `text`, shortening from the end as `text` did: a protected tail stays
/// protected (and its fallback with it); a text with none becomes a plain one.
pub(super) fn prefixed(head: &str, text: Shortening) -> Shortening {
    if text.tail >= text.full.len() {
        return Shortening::plain(format!("{head}{}", text.full));
    }
    Shortening {
        tail: text.tail + head.len(),
        full: format!("{head}{}", text.full),
        fallback: text.fallback,
    }
}

/// The current task after `prefix`: the request it leans on, then ` | ` and the latest one,
/// which shortening keeps whole longest.
pub(super) fn ask(context: Option<&Said>, task: &Said, prefix: &str) -> Shortening {
    // The request is as long as the extract keeps it (compressed, see `ask`).
    let task_text = task.text.clone();
    match context {
        Some(context) => {
            let head = format!("{prefix}{}", cut(&context.text, 160));
            Shortening {
                tail: head.len(),
                full: format!("{head} | {task_text}"),
                fallback: format!("{prefix}{task_text}"),
            }
        }
        None => Shortening::plain(format!("{prefix}{task_text}")),
    }
}

/// `value → outcome`, the outcome kept whole longest; just the value without an outcome.
pub(super) fn with_outcome(value: String, outcome: Option<String>) -> Shortening {
    match outcome.filter(|o| !o.is_empty()) {
        Some(outcome) => Shortening {
            tail: value.len(),
            full: format!("{value} → {outcome}"),
            fallback: format!("→ {outcome}"),
        },
        None => Shortening::plain(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortening_keeps_the_tail_while_it_can() {
        let task = Said {
            text: "yeah, do it all".into(),
            index: 2,
        };
        let context = Said {
            text: "release a new minor version with the theme changes".into(),
            index: 1,
        };
        let now = ask(Some(&context), &task, "");
        assert_eq!(
            now.at(500),
            "release a new minor version with the theme changes | yeah, do it all"
        );
        assert_eq!(now.at(40), "release a new minor… | yeah, do it all");
        assert_eq!(now.at(12), "yeah, do it…");
        let test = with_outcome("cargo test --workspace".into(), Some("12pass".into()));
        assert_eq!(test.at(21), "cargo test… → 12pass");
        assert_eq!(test.at(9), "→ 12pass");
    }
}
