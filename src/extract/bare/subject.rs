//! The last commit's subject on NOW, whole or not at all. Work all committed shows the commit
//! as `all committed (<hash> <subject>)`; cut short, the line used to end inside the subject
//! (`all committed (c8c8932 feat(web):…`), a prefix that names no work and leaves the
//! parenthesis open. A line with no room for the whole subject names the commit by its hash
//! (`all committed c8c8932 | <task>`), and the characters the subject's first words took go to
//! the task after it.

use super::super::shorten::Shortening;

/// NOW in two forms: with the commit's subject, and with its hash alone.
#[derive(Debug, Clone)]
pub(super) struct SubjectOrHash {
    /// NOW with the state that names the subject.
    pub(super) with_subject: Shortening,
    /// That state, which a cut of `with_subject` must keep whole.
    pub(super) state: String,
    /// NOW with the state that names the hash alone.
    pub(super) with_hash: Shortening,
}

impl SubjectOrHash {
    /// At most `max` characters: the form with the subject when its cut keeps the state
    /// whole, else the form with the hash.
    pub(super) fn at(&self, max: usize) -> String {
        let cut = self.with_subject.at(max);
        if cut.contains(&self.state) {
            return cut;
        }
        self.with_hash.at(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_keeps_the_subject_whole_or_names_the_hash() {
        let task = "add the tooltip";
        let now = SubjectOrHash {
            with_subject: Shortening::plain(format!(
                "all committed (c8c8932 feat(web): open sessions in a new tab) | {task}"
            )),
            state: "all committed (c8c8932 feat(web): open sessions in a new tab)".into(),
            with_hash: Shortening::plain(format!("all committed c8c8932 | {task}")),
        };
        assert_eq!(now.at(200), now.with_subject.full);
        // Too short for the subject: the hash and the task, not `(c8c8932 feat(web):…`.
        assert_eq!(now.at(40), "all committed c8c8932 | add the tooltip");
        assert_eq!(now.at(30), "all committed c8c8932 | add…");
    }
}
