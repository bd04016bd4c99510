//! Hand-written probes (pure): facts someone read off what the agent did after a cut, each a
//! few words a summary must hold. The format is the quality benchmark's
//! (`fixtures/probes/*.txt`) with a second header line naming the session:
//!
//! ```text
//! file: claude-code/NAME.jsonl     the session, as a path under the corpus folder
//! cut: N                           the 1-based line of its compaction marker
//! probe KIND: TOKENS | TOKENS …
//! ```
//!
//! KIND is one of [`KINDS`]. A summary carries a probe when every whitespace-separated token of
//! one `|`-alternative occurs in it, ignoring case. Blank lines and lines starting with `#`
//! are comments.

/// The probe kinds, in report order: the ones the checkpoint guidance ranks first, then
/// files, errors, tests and other facts.
pub const KINDS: [&str; 10] = [
    "goal",
    "decision",
    "constraint",
    "now",
    "next",
    "question",
    "file",
    "error",
    "test",
    "fact",
];

/// One fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// Its kind, one of [`KINDS`].
    pub kind: &'static str,
    /// The alternatives, each a list of lowercase tokens that must all occur.
    pub alternatives: Vec<Vec<String>>,
}

impl Probe {
    /// Whether a summary (already lowercase) carries it.
    pub fn carried_by(&self, lowercase: &str) -> bool {
        self.alternatives
            .iter()
            .any(|tokens| tokens.iter().all(|t| lowercase.contains(t.as_str())))
    }
}

/// A probe file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeFile {
    /// The session it was written for, as its `file:` line says.
    pub file: String,
    /// The line of the cut.
    pub cut: usize,
    /// Its probes.
    pub probes: Vec<Probe>,
}

impl ProbeFile {
    /// Whether it was written for the cut on `line` of the session at `path`: the session's
    /// path ends with the `file:` path, component by component.
    pub fn is_for(&self, path: &str, line: usize) -> bool {
        let ours: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
        let theirs: Vec<&str> = self.file.split('/').filter(|c| !c.is_empty()).collect();
        line == self.cut && !theirs.is_empty() && ours.ends_with(&theirs)
    }
}

/// Reads a probe file; an error says the line (1-based) and what is wrong.
pub fn parse(text: &str) -> Result<ProbeFile, String> {
    let (mut file, mut cut) = (None, None);
    let mut probes = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(value) = line.strip_prefix("file:") {
            file = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("cut:") {
            let value = value.trim().parse().ok().filter(|&n: &usize| n > 0);
            cut = Some(value.ok_or(format!("line {number}: `cut:` needs a line number"))?);
        } else if let Some((kind, alternatives)) =
            line.strip_prefix("probe ").and_then(|p| p.split_once(':'))
        {
            let kind = KINDS.iter().find(|k| **k == kind.trim()).ok_or_else(|| {
                format!(
                    "line {number}: unknown probe kind (one of {})",
                    KINDS.join(", ")
                )
            })?;
            let alternatives: Vec<Vec<String>> = alternatives
                .split('|')
                .map(|a| a.split_whitespace().map(str::to_lowercase).collect())
                .filter(|a: &Vec<String>| !a.is_empty())
                .collect();
            if alternatives.is_empty() {
                return Err(format!("line {number}: a probe with no tokens"));
            }
            probes.push(Probe { kind, alternatives });
        } else {
            return Err(format!(
                "line {number}: neither `file:`, `cut:` nor `probe KIND:`"
            ));
        }
    }
    Ok(ProbeFile {
        file: file.ok_or("no `file:` line")?,
        cut: cut.ok_or("no `cut:` line")?,
        probes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_file_names_its_session_and_cut() {
        let file = parse(
            "# comment\nfile: claude-code/s.jsonl\ncut: 31\nprobe next: cargo test | make check\n",
        )
        .unwrap();
        assert_eq!((file.file.as_str(), file.cut), ("claude-code/s.jsonl", 31));
        assert!(file.is_for("/x/eval/claude-code/s.jsonl", 31));
        assert!(!file.is_for("/x/eval/claude-code/s.jsonl", 30));
        assert!(!file.is_for("/x/eval/pi/s.jsonl", 31));
        assert!(file.probes[0].carried_by("then make check"));
        assert!(!file.probes[0].carried_by("cargo build"));
        assert_eq!(
            parse("file: a\ncut: x").unwrap_err(),
            "line 2: `cut:` needs a line number"
        );
        assert!(parse("file: a\ncut: 3\nprobe mood: x")
            .unwrap_err()
            .starts_with("line 3"));
    }
}
