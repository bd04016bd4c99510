//! Files shown under their directory, the way `tree` prints them: a directory's path once, then
//! the names of its files, rather than the same long path on every line. Paths of a project
//! share few directories, so a summary of a few hundred tokens holds half again as many files,
//! and each still reads whole: the directory line above it, and a file alone in its directory
//! keeps its whole path on one line.

/// One file in print order: its index in the ranked list, its directory (`None` for a bare
/// name) and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Placed<'p> {
    pub(super) rank: usize,
    pub(super) dir: Option<&'p str>,
    pub(super) name: &'p str,
}

/// The ranked paths in print order: each directory where its best-ranked file was, with its
/// files in rank order under it.
pub(super) fn by_directory<'p>(paths: &[&'p str]) -> Vec<Placed<'p>> {
    let placed: Vec<Placed> = paths
        .iter()
        .enumerate()
        .map(|(rank, path)| match path.rsplit_once('/') {
            Some((dir, name)) if !name.is_empty() => Placed {
                rank,
                dir: Some(if dir.is_empty() { "/" } else { dir }),
                name,
            },
            _ => Placed {
                rank,
                dir: None,
                name: path,
            },
        })
        .collect();
    let mut dirs: Vec<Option<&str>> = Vec::new();
    for p in &placed {
        if !dirs.contains(&p.dir) {
            dirs.push(p.dir);
        }
    }
    dirs.iter()
        .flat_map(|dir| placed.iter().filter(move |p| p.dir == *dir).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_follow_their_directory_in_rank_order() {
        let paths = [
            "src/cli/strategy/attribution.go",
            "go.mod",
            "src/cli/checkpoint/committed.go",
            "src/cli/strategy/hooks.go",
            "/tmp/x.txt",
        ];
        let got: Vec<(usize, Option<&str>, &str)> = by_directory(&paths)
            .into_iter()
            .map(|p| (p.rank, p.dir, p.name))
            .collect();
        assert_eq!(
            got,
            [
                (0, Some("src/cli/strategy"), "attribution.go"),
                (3, Some("src/cli/strategy"), "hooks.go"),
                (1, None, "go.mod"),
                (2, Some("src/cli/checkpoint"), "committed.go"),
                (4, Some("/tmp"), "x.txt"),
            ]
        );
    }
}
