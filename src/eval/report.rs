//! `eval`'s results (pure): one [`Row`] per cut and summary, serialised as a JSON line, and the
//! Markdown tables: every row, the totals by kind of each summary, the probes by kind.

use std::fmt::Write as _;

use serde::Serialize;

use super::entity::Kind;
use super::grade::{Grade, Needed};
use super::probes::{Probe, KINDS};
use crate::output::{OrderedMap, Table};

/// A count out of a total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
pub struct Count {
    /// How many were carried.
    pub carried: usize,
    /// Out of how many.
    pub of: usize,
}

/// An entity a summary lost, and the suffix line that needed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lost {
    /// Its kind.
    pub kind: &'static str,
    /// Its text.
    pub entity: String,
    /// The session line that re-used it.
    pub line: usize,
}

/// One summary at one cut.
#[derive(Serialize)]
pub struct Row {
    /// The session.
    pub file: String,
    /// The cut's line (see [`super::cuts::Cut::line`]).
    pub cut_line: usize,
    /// The cut's kind.
    pub cut_kind: &'static str,
    /// The summary's name.
    pub summary: String,
    /// Its size in tokens.
    pub summary_tokens: u64,
    /// Re-used entities by kind.
    pub reused: OrderedMap<usize>,
    /// Of them, carried, by kind.
    pub carried: OrderedMap<usize>,
    /// Re-used entities in all.
    pub reused_total: usize,
    /// Carried in all.
    pub carried_total: usize,
    /// Carried entities per 1,000 tokens of summary.
    pub carried_per_1k_tokens: f64,
    /// Probes by kind, when a probe file was written for this cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probes: Option<OrderedMap<Count>>,
    /// What it lost, with `--show-lost`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<Vec<Lost>>,
}

/// Where a row comes from.
pub struct RowOf<'a> {
    /// The session's name.
    pub file: &'a str,
    /// The cut's line and kind.
    pub cut: (usize, &'static str),
    /// The summary's name, text and size.
    pub summary: (&'a str, &'a str, u64),
    /// The re-used entities of the cut.
    pub needed: &'a [Needed],
    /// The summary's grade.
    pub grade: &'a Grade,
    /// The probes written for the cut, if any.
    pub probes: Option<&'a [Probe]>,
    /// Whether to list what was lost.
    pub show_lost: bool,
}

impl Row {
    /// The row of a graded summary.
    pub fn new(of: RowOf) -> Row {
        let (name, text, tokens) = of.summary;
        let reused: OrderedMap<usize> = Kind::ALL
            .iter()
            .map(|&k| {
                (
                    k.as_str(),
                    of.needed.iter().filter(|n| n.entity.kind == k).count(),
                )
            })
            .collect();
        let carried: OrderedMap<usize> = Kind::ALL
            .iter()
            .map(|&k| (k.as_str(), of.grade.carried_of(of.needed, k)))
            .collect();
        let carried_total = of.grade.carried.iter().filter(|&&c| c).count();
        let probes = of.probes.map(|probes| {
            let lowercase = text.to_lowercase();
            KINDS
                .iter()
                .filter(|kind| probes.iter().any(|p| p.kind == **kind))
                .map(|&kind| {
                    let of_kind = probes.iter().filter(|p| p.kind == kind);
                    let count = Count {
                        carried: of_kind.clone().filter(|p| p.carried_by(&lowercase)).count(),
                        of: of_kind.count(),
                    };
                    (kind, count)
                })
                .collect()
        });
        let lost = of.show_lost.then(|| {
            of.needed
                .iter()
                .zip(&of.grade.carried)
                .filter(|(_, &c)| !c)
                .map(|(n, _)| Lost {
                    kind: n.entity.kind.as_str(),
                    entity: n.entity.text.clone(),
                    line: n.line,
                })
                .collect()
        });
        Row {
            file: of.file.to_owned(),
            cut_line: of.cut.0,
            cut_kind: of.cut.1,
            summary: name.to_owned(),
            summary_tokens: tokens,
            reused,
            carried,
            reused_total: of.needed.len(),
            carried_total,
            carried_per_1k_tokens: per_1k(carried_total, tokens),
            probes,
            lost,
        }
    }

    fn get(map: &OrderedMap<usize>, kind: Kind) -> usize {
        map.get(kind.as_str()).copied().unwrap_or(0)
    }
}

/// Carried per 1,000 tokens, to one decimal.
fn per_1k(carried: usize, tokens: u64) -> f64 {
    if tokens == 0 {
        0.0
    } else {
        (carried as f64 * 10_000.0 / tokens as f64).round() / 10.0
    }
}

fn share(part: usize, whole: usize) -> String {
    if whole == 0 {
        "0/0".to_owned()
    } else {
        format!(
            "{part}/{whole} ({:.1}%)",
            100.0 * part as f64 / whole as f64
        )
    }
}

fn table_text(table: &Table) -> String {
    let mut bytes = Vec::new();
    table.write(&mut bytes).expect("a table writes to memory");
    String::from_utf8(bytes).expect("tables are UTF-8")
}

/// The summaries' names in order of first appearance.
fn names(rows: &[Row]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        if !names.contains(&row.summary.as_str()) {
            names.push(&row.summary);
        }
    }
    names
}

/// The Markdown report: the rows, the totals by kind, the probes by kind, and with
/// `show_lost` what each summary lost.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut header = vec!["file", "cut", "summary", "tokens", "carried", "per 1k"];
    header.extend(Kind::ALL.iter().map(|k| k.as_str()));
    header.push("probes");
    let mut table = Table::new(&header);
    for row in rows {
        let mut cells = vec![
            row.file.clone(),
            format!("{} {}", row.cut_kind, row.cut_line),
            row.summary.clone(),
            row.summary_tokens.to_string(),
            format!("{}/{}", row.carried_total, row.reused_total),
            format!("{:.1}", row.carried_per_1k_tokens),
        ];
        for kind in Kind::ALL {
            let (c, r) = (Row::get(&row.carried, kind), Row::get(&row.reused, kind));
            cells.push(format!("{c}/{r}"));
        }
        cells.push(row.probes.as_ref().map_or("-".to_owned(), |p| {
            let (c, n) = p
                .values()
                .fold((0, 0), |(c, n), v| (c + v.carried, n + v.of));
            format!("{c}/{n}")
        }));
        table.row(cells);
    }
    out.push_str(&table_text(&table));

    let names = names(rows);
    let _ = writeln!(out, "\n### Totals by kind (carried / re-used)\n");
    let mut header = vec!["summary", "cuts", "tokens", "carried", "per 1k"];
    header.extend(Kind::ALL.iter().map(|k| k.as_str()));
    let mut table = Table::new(&header);
    for name in &names {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.summary == *name).collect();
        let tokens: u64 = mine.iter().map(|r| r.summary_tokens).sum();
        let carried: usize = mine.iter().map(|r| r.carried_total).sum();
        let reused: usize = mine.iter().map(|r| r.reused_total).sum();
        let mut cells = vec![
            (*name).to_owned(),
            mine.len().to_string(),
            tokens.to_string(),
            share(carried, reused),
            format!("{:.1}", per_1k(carried, tokens)),
        ];
        for kind in Kind::ALL {
            let c = mine.iter().map(|r| Row::get(&r.carried, kind)).sum();
            let r = mine.iter().map(|r| Row::get(&r.reused, kind)).sum();
            cells.push(share(c, r));
        }
        table.row(cells);
    }
    out.push_str(&table_text(&table));

    let probed: Vec<&Row> = rows.iter().filter(|r| r.probes.is_some()).collect();
    if !probed.is_empty() {
        let _ = writeln!(out, "\n### Probes by kind (carried / probes)\n");
        let mut header = vec!["kind"];
        header.extend(names.iter().copied());
        let mut table = Table::new(&header);
        let mut totals = vec![Count::default(); names.len()];
        for kind in KINDS {
            let counts: Vec<Count> = names
                .iter()
                .map(|name| {
                    probed
                        .iter()
                        .filter(|r| r.summary == *name)
                        .filter_map(|r| r.probes.as_ref()?.get(kind))
                        .fold(Count::default(), |a, c| Count {
                            carried: a.carried + c.carried,
                            of: a.of + c.of,
                        })
                })
                .collect();
            if counts.iter().all(|c| c.of == 0) {
                continue;
            }
            let mut cells = vec![kind.to_owned()];
            for (count, total) in counts.iter().zip(&mut totals) {
                total.carried += count.carried;
                total.of += count.of;
                cells.push(format!("{}/{}", count.carried, count.of));
            }
            table.row(cells);
        }
        let mut cells = vec!["all".to_owned()];
        cells.extend(totals.iter().map(|c| format!("{}/{}", c.carried, c.of)));
        table.row(cells);
        out.push_str(&table_text(&table));
    }

    for row in rows {
        let Some(lost) = row.lost.as_ref().filter(|l| !l.is_empty()) else {
            continue;
        };
        let _ = writeln!(
            out,
            "\n### {} lost at {} {} of {}\n",
            row.summary, row.cut_kind, row.cut_line, row.file
        );
        for lost in lost {
            let entity = crate::output::sanitize(&lost.entity).replace('\n', " ");
            let _ = writeln!(out, "- {} `{entity}` (line {})", lost.kind, lost.line);
        }
    }
    out
}
