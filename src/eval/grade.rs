//! Grading (pure): which entities the suffix re-used from the prefix, and which of them a
//! summary carried.
//!
//! An entity of the suffix is **re-used** when the prefix holds the same entity: the same
//! text for names, commands, flags, variables, URLs and error types; the same digits and unit
//! for numbers; the same lowercase words for error messages; the same path by the path rule
//! below; and for a constraint of the prefix, when one suffix message holds its key words
//! ([`super::constraints`]). A summary **carries** a re-used entity when the summary holds it
//! by the same rule, or (for names, commands, flags, variables, URLs and error types) when its
//! text occurs in the summary with no letter, digit or `_` glued on either side.
//!
//! **Paths** match by their last two components (`src/lib.rs` is `/repo/src/lib.rs`), or,
//! when one side is a bare file name, by that name, but only when the prefix holds no two
//! different paths ending in it (`mod.rs` means nothing in a tree with ten of them).

use std::collections::{HashMap, HashSet};

use super::constraints::{constraints, words_of, Constraint};
use super::entities::{flat_word, scan};
use super::entity::{Entity, Kind};
use super::pieces::Piece;
use crate::tokens::Tokenizer;

/// What the live context before a cut held.
pub struct Prefix {
    /// Every entity, constraints aside.
    entities: HashSet<Entity>,
    /// The distinct last-two-component forms of the paths ending in each file name.
    endings: HashMap<String, HashSet<String>>,
    /// The file names the prefix wrote bare.
    bare: HashSet<String>,
    /// The user's constraints.
    constraints: Vec<Constraint>,
    /// Every entity by how often it occurs, most first (ties in order of first appearance).
    ranked: Vec<Entity>,
}

/// One re-used entity, and the first line of the suffix that needed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    /// The entity (for a constraint, its sentence).
    pub entity: Entity,
    /// The session line.
    pub line: usize,
    /// The constraint's key words, for a constraint.
    constraint: Option<Constraint>,
}

/// A summary graded against the needed entities of its cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grade {
    /// Carried or not, one flag per needed entity, in order.
    pub carried: Vec<bool>,
}

impl Grade {
    /// How many of the needed entities of `kind` were carried.
    pub fn carried_of(&self, needed: &[Needed], kind: Kind) -> usize {
        needed
            .iter()
            .zip(&self.carried)
            .filter(|(n, &c)| c && n.entity.kind == kind)
            .count()
    }
}

/// The components of a path that name something (`.` and empty ones dropped).
fn components(path: &str) -> Vec<&str> {
    path.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// A path's last two components, or its only one.
fn ending(path: &str) -> (String, bool) {
    let parts = components(path);
    match parts.as_slice() {
        [.., a, b] => (format!("{a}/{b}"), true),
        [a] => ((*a).to_owned(), false),
        [] => (path.to_owned(), false),
    }
}

fn basename(path: &str) -> &str {
    components(path).last().copied().unwrap_or(path)
}

impl Prefix {
    /// The prefix of these pieces (the live context's, in order).
    pub fn new(pieces: &[Piece]) -> Self {
        let mut found = Vec::new();
        let mut constraints_found = Vec::new();
        for piece in pieces {
            scan(&piece.text, piece.shell, &mut found);
            if piece.user {
                constraints_found.extend(constraints(&piece.text));
            }
        }
        let mut counts: HashMap<&Entity, (usize, usize)> = HashMap::new();
        for (order, entity) in found.iter().enumerate() {
            counts.entry(entity).or_insert((0, order)).0 += 1;
        }
        let mut ranked: Vec<(&Entity, (usize, usize))> = counts.into_iter().collect();
        ranked.sort_by_key(|&(_, (count, first))| (std::cmp::Reverse(count), first));
        let ranked: Vec<Entity> = ranked.into_iter().map(|(e, _)| e.clone()).collect();
        let mut endings: HashMap<String, HashSet<String>> = HashMap::new();
        let mut bare = HashSet::new();
        for entity in found.iter().filter(|e| e.kind == Kind::Path) {
            let (end, full) = ending(&entity.text);
            if full {
                endings
                    .entry(basename(&entity.text).to_owned())
                    .or_default()
                    .insert(end);
            } else {
                bare.insert(end);
            }
        }
        constraints_found.dedup_by(|a, b| a.keys == b.keys);
        Prefix {
            entities: found.into_iter().collect(),
            endings,
            bare,
            constraints: constraints_found,
            ranked,
        }
    }

    /// Whether no two different paths of the prefix end in this file name.
    fn unique(&self, name: &str) -> bool {
        self.endings.get(name).is_none_or(|ends| ends.len() <= 1)
    }

    /// Whether two paths are the same by the path rule.
    fn same_path(&self, a: &str, b: &str) -> bool {
        let ((end_a, full_a), (end_b, full_b)) = (ending(a), ending(b));
        match (full_a, full_b) {
            (true, true) | (false, false) => end_a == end_b,
            (true, false) => basename(a) == end_b && self.unique(&end_b),
            (false, true) => basename(b) == end_a && self.unique(&end_a),
        }
    }

    /// Whether the prefix holds this path.
    fn holds_path(&self, path: &str) -> bool {
        let (end, full) = ending(path);
        let name = basename(path);
        if full {
            let ends = self.endings.get(name);
            ends.is_some_and(|e| e.contains(&end))
                || (self.bare.contains(name) && self.unique(name))
        } else {
            self.bare.contains(&end) || (self.endings.contains_key(&end) && self.unique(&end))
        }
    }

    /// The frequency-list baseline: the prefix's entities, most frequent first, one a line,
    /// as many as fit `budget` tokens.
    pub fn baseline(&self, budget: u64, tokenizer: Tokenizer) -> String {
        let mut list = String::new();
        for entity in &self.ranked {
            let before = list.len();
            list.push_str(&entity.text);
            list.push('\n');
            if tokenizer.text_tokens(&list) > budget {
                list.truncate(before);
                break;
            }
        }
        list
    }
}

/// The distinct entities of the suffix pieces that the prefix holds, in order of first use.
pub fn reused(prefix: &Prefix, suffix: &[Piece]) -> Vec<Needed> {
    let mut seen = HashSet::new();
    let mut needed = Vec::new();
    let mut found = Vec::new();
    for piece in suffix {
        found.clear();
        scan(&piece.text, piece.shell, &mut found);
        for entity in found.drain(..) {
            let held = match entity.kind {
                // One file is one entity, however many ways the suffix spells it.
                Kind::Path => {
                    prefix.holds_path(&entity.text)
                        && !needed.iter().any(|n: &Needed| {
                            n.entity.kind == Kind::Path
                                && prefix.same_path(&n.entity.text, &entity.text)
                        })
                }
                _ => prefix.entities.contains(&entity),
            };
            if held && seen.insert(entity.clone()) {
                needed.push(Needed {
                    entity,
                    line: piece.line,
                    constraint: None,
                });
            }
        }
    }
    for constraint in &prefix.constraints {
        let line = suffix
            .iter()
            .filter(|p| !p.shell)
            .find(|p| constraint.held_by(&words_of(&p.text)))
            .map(|p| p.line);
        if let Some(line) = line {
            needed.push(Needed {
                entity: Entity {
                    kind: Kind::Constraint,
                    text: constraint.sentence.clone(),
                },
                line,
                constraint: Some(constraint.clone()),
            });
        }
    }
    needed
}

/// A summary, read once for grading.
pub struct Summary<'s> {
    text: &'s str,
    entities: HashSet<Entity>,
    paths: Vec<String>,
    words: Vec<String>,
    /// Lowercase, quotes dropped, whitespace runs as one space: for error messages.
    flat: String,
}

impl<'s> Summary<'s> {
    /// Reads a summary.
    pub fn new(text: &'s str) -> Self {
        let mut found = Vec::new();
        scan(text, false, &mut found);
        let paths = found
            .iter()
            .filter(|e| e.kind == Kind::Path)
            .map(|e| e.text.clone())
            .collect();
        let flat = error_phrase_text(text);
        Summary {
            text,
            entities: found.into_iter().collect(),
            paths,
            words: words_of(text),
            flat,
        }
    }
}

/// A text as error phrases are compared in: every word as [`flat_word`] makes it.
fn error_phrase_text(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .map(flat_word)
        .filter(|w| !w.is_empty())
        .collect();
    words.join(" ")
}

/// Grades one summary.
pub fn grade(prefix: &Prefix, needed: &[Needed], summary: &Summary) -> Grade {
    let carried = needed
        .iter()
        .map(|n| {
            let entity = &n.entity;
            match entity.kind {
                Kind::Path => summary
                    .paths
                    .iter()
                    .any(|p| prefix.same_path(p, &entity.text)),
                Kind::Constraint => n
                    .constraint
                    .as_ref()
                    .is_some_and(|c| c.held_by(&summary.words)),
                Kind::Number => summary.entities.contains(entity),
                Kind::Error if entity.text.contains(' ') => bounded(&summary.flat, &entity.text),
                _ => summary.entities.contains(entity) || bounded(summary.text, &entity.text),
            }
        })
        .collect();
    Grade { carried }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `needle` occurs in `hay` with no letter, digit or `_` glued on either side.
pub fn bounded(hay: &str, needle: &str) -> bool {
    let (Some(first), Some(last)) = (needle.bytes().next(), needle.bytes().last()) else {
        return false;
    };
    let bytes = hay.as_bytes();
    hay.match_indices(needle).any(|(i, _)| {
        let end = i + needle.len();
        let before = !is_word_byte(first) || i == 0 || !is_word_byte(bytes[i - 1]);
        let after = !is_word_byte(last) || end == bytes.len() || !is_word_byte(bytes[end]);
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(line: usize, text: &str, user: bool) -> Piece {
        Piece {
            line,
            text: text.to_owned(),
            shell: false,
            user,
        }
    }

    #[test]
    fn paths_match_by_their_last_two_parts_or_a_unique_name() {
        let prefix = Prefix::new(&[piece(
            1,
            "read /repo/src/lib.rs and src/cmd/mod.rs and src/eval/mod.rs and README.md",
            false,
        )]);
        assert!(prefix.holds_path("src/lib.rs"));
        assert!(prefix.holds_path("lib.rs"));
        assert!(!prefix.holds_path("mod.rs"), "two different mod.rs");
        assert!(prefix.holds_path("eval/mod.rs"));
        assert!(
            prefix.holds_path("docs/README.md"),
            "README.md was bare and is unique"
        );
        assert!(!prefix.holds_path("other/lib/x.rs"));
        assert!(!prefix.same_path("src/cmd/mod.rs", "src/eval/mod.rs"));
    }

    #[test]
    fn re_used_entities_are_graded_against_a_summary() {
        let prefix = Prefix::new(&[
            piece(1, "Never edit generated lexer tables by hand.", true),
            piece(
                2,
                "parse_probes lives in src/eval/probes.rs; run `cargo test` (12 ms)",
                false,
            ),
        ]);
        let suffix = [
            piece(
                10,
                "Now parse_probes in probes.rs, then `cargo test`.",
                false,
            ),
            piece(
                11,
                "The lexer tables are generated, so edit the generator; 12 ms",
                false,
            ),
            piece(12, "NewName in new.rs", false),
        ];
        let needed = reused(&prefix, &suffix);
        let texts: Vec<(&str, usize)> = needed
            .iter()
            .map(|n| (n.entity.text.as_str(), n.line))
            .collect();
        assert_eq!(
            texts,
            [
                ("cargo test", 10),
                ("parse_probes", 10),
                ("probes.rs", 10),
                ("12ms", 11),
                ("Never edit generated lexer tables by hand", 11),
            ]
        );
        let summary =
            Summary::new("Working on eval/probes.rs: parse_probes. Lexer tables: generated.");
        let grade = grade(&prefix, &needed, &summary);
        assert_eq!(grade.carried, [false, true, true, false, true]);
        assert_eq!(grade.carried_of(&needed, Kind::Path), 1);
    }

    #[test]
    fn the_baseline_fits_its_budget() {
        let prefix = Prefix::new(&[piece(1, "ab_cd src/x.rs ab_cd ef_gh", false)]);
        assert_eq!(
            prefix.baseline(500, Tokenizer::Chars4),
            "ab_cd\nsrc/x.rs\nef_gh\n"
        );
        assert_eq!(prefix.baseline(2, Tokenizer::Chars4), "ab_cd\n");
    }
}
