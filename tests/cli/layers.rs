//! The architecture, checked: the one check of the layers (run it with `cargo test --test cli
//! layers`). The import graph of `src/` (see `layers/imports.rs`: a node is a module, that is a
//! file, and a path is followed through re-exports to the module that defines what it names)
//! must have
//!
//! - (a) no cycle;
//! - (b) no module but the command layer (`cmd`, `cli` and the modules under them; `lib.rs` and
//!   `main.rs` are no layer) importing `crate::cli`: the core takes typed options, never the
//!   flags;
//! - (c) no module of an agent folder (a folder of `src/transcript/` that the registry's
//!   `agents!` list names) importing the compaction core (`plan`, `request`, `summary`,
//!   `compaction`, `cmd`, `extract`, `eval`): a format reads and writes, the core decides.
//!
//! The tree may break these while it is being reshaped: [`ALLOWED_CYCLES`],
//! [`ALLOWED_CLI_IMPORTS`] and [`ALLOWED_AGENT_IMPORTS`] list exactly those violations. The test
//! fails on a violation that is not listed, and on a listed one that is gone (take it off the
//! list), so the lists only shrink. Each failure prints the edges involved with the file, line
//! and path that make them.

#[path = "layers/imports.rs"]
mod imports;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use imports::{agents, graph, Graph};

/// The cycles of today's tree, each as its modules (a strongly connected component): none. A
/// cycle that must stay for a while is listed here, with why.
const ALLOWED_CYCLES: &[&[&str]] = &[];

/// The modules outside the command layer that import `crate::cli` today.
const ALLOWED_CLI_IMPORTS: &[&str] = &[];

/// Agent modules that import a core module today: (agent module, core module).
const ALLOWED_AGENT_IMPORTS: &[(&str, &str)] = &[];

/// The top-level modules allowed to import `crate::cli`, with the modules under them.
const COMMAND_LAYER: [&str; 2] = ["cmd", "cli"];

/// The compaction core (top-level modules), which no agent folder may import.
const CORE: [&str; 7] = [
    "plan",
    "request",
    "summary",
    "compaction",
    "cmd",
    "extract",
    "eval",
];

#[test]
fn the_import_graph_has_no_new_cycle_no_core_importing_cli_and_no_agent_importing_the_core() {
    let files = sources(Path::new(env!("CARGO_MANIFEST_DIR")));
    let graph = graph(&files);
    assert!(
        graph.len() > 500,
        "the import graph of src/ has only {} edges: is the scanner broken?",
        graph.len()
    );
    let agents = agents(&files);
    for agent in ["claude_code", "codex", "pi", "gemini", "kimi", "anthropic"] {
        assert!(
            agents.contains(agent),
            "the registry's agents! list names no {agent}/ (found {agents:?}): is the scanner \
             broken?"
        );
    }
    let report = check(
        &graph,
        &agents,
        &Allowed {
            cycles: ALLOWED_CYCLES,
            cli_imports: ALLOWED_CLI_IMPORTS,
            agent_imports: ALLOWED_AGENT_IMPORTS,
        },
    );
    assert!(report.is_empty(), "{report}");
}

/// The check fails on each kind of violation, and on an allowed one that is gone.
#[test]
fn the_layer_check_finds_each_violation_and_each_stale_allowance() {
    let files: BTreeMap<String, String> = [
        (
            "src/lib.rs",
            "pub mod a; pub mod b; pub mod cli; pub mod plan;",
        ),
        ("src/a.rs", "use crate::b::Thing;\n// use crate::plan::Not;"),
        (
            "src/b.rs",
            "pub fn f() { let s = \"crate::plan\"; crate::a::g(); }\nuse crate::cli::Style;",
        ),
        ("src/cli.rs", "use crate::b;\nfn f() { b::f() }"),
        (
            "src/plan.rs",
            "#[cfg(test)]\nmod tests { use crate::a::X; }\n\
             #[cfg(all(test, feature = \"bpe\"))]\nmod more { use crate::b::Y; }\n\
             #[cfg(all(not(test), unix))]\nfn g() { crate::a::h() }",
        ),
        (
            "src/transcript/mod.rs",
            "pub mod codex; pub mod model; pub mod registry; pub mod scan;\n\
             pub use model::Role;\npub use registry::FormatId;",
        ),
        ("src/transcript/model.rs", "pub enum Role {}"),
        (
            "src/transcript/registry.rs",
            "use super::codex;\n\
             macro_rules! agents { () => {} }\nagents! { Codex = \"codex\" => codex::Codex, }",
        ),
        (
            "src/transcript/codex/mod.rs",
            "mod write;\nuse super::scan::Word;\nuse crate::transcript::Role;",
        ),
        ("src/transcript/codex/write.rs", "use crate::plan::Plan;"),
        (
            "src/transcript/scan/mod.rs",
            "use crate::transcript;\nfn f(id: transcript::FormatId) {}",
        ),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text.to_owned()))
    .collect();
    let graph = graph(&files);
    let edges: BTreeSet<(&str, &str)> = graph
        .keys()
        .map(|(from, to)| (from.as_str(), to.as_str()))
        .collect();
    let expected: BTreeSet<(&str, &str)> = [
        ("a", "b"),
        ("b", "a"),
        ("b", "cli"),
        ("cli", "b"),
        ("plan", "a"),
        ("transcript", "transcript::model"),
        ("transcript", "transcript::registry"),
        ("transcript::registry", "transcript::codex"),
        ("transcript::codex", "transcript::scan"),
        ("transcript::codex", "transcript::model"),
        ("transcript::codex::write", "plan"),
        ("transcript::scan", "transcript::registry"),
    ]
    .into_iter()
    .collect();
    assert_eq!(edges, expected);
    let agents = agents(&files);
    assert_eq!(agents, BTreeSet::from(["codex".to_owned()]));

    let none = Allowed {
        cycles: &[],
        cli_imports: &[],
        agent_imports: &[],
    };
    let report = check(&graph, &agents, &none);
    assert!(report.contains("a new cycle among a, b, cli"), "{report}");
    assert!(
        report.contains("a -> b (src/a.rs:1: crate::b::Thing)"),
        "{report}"
    );
    // An agent using a shared module that names the registry: the loop the registry must not
    // close. The edge goes through the re-export in transcript/mod.rs to the registry, which
    // defines FormatId.
    assert!(
        report.contains(
            "a new cycle among transcript::codex, transcript::registry, transcript::scan"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "transcript::scan -> transcript::registry \
             (src/transcript/scan/mod.rs:2: transcript::FormatId)"
        ),
        "{report}"
    );
    assert!(report.contains("b imports crate::cli"), "{report}");
    assert!(
        report.contains("transcript::codex::write imports the core module plan"),
        "{report}"
    );

    let all = Allowed {
        cycles: &[
            &["a", "b", "cli"],
            &[
                "transcript::codex",
                "transcript::registry",
                "transcript::scan",
            ],
        ],
        cli_imports: &["b"],
        agent_imports: &[("transcript::codex::write", "plan")],
    };
    assert_eq!(check(&graph, &agents, &all), "");

    let stale = Allowed {
        cycles: &[
            &["a", "b", "cli"],
            &[
                "transcript::codex",
                "transcript::registry",
                "transcript::scan",
            ],
            &["plan", "transcript"],
        ],
        cli_imports: &["b", "plan"],
        agent_imports: &[
            ("transcript::codex::write", "plan"),
            ("transcript::codex", "eval"),
        ],
    };
    let report = check(&graph, &agents, &stale);
    assert!(
        report.contains("the cycle among plan, transcript is gone"),
        "{report}"
    );
    assert!(
        report.contains("plan no longer imports crate::cli"),
        "{report}"
    );
    assert!(
        report.contains("transcript::codex no longer imports the core module eval"),
        "{report}"
    );
}

/// Every `.rs` file under `src/`, by its path from the crate root.
fn sources(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                let text = std::fs::read_to_string(&path).unwrap();
                files.insert(relative.replace('\\', "/"), text);
            }
        }
    }
    files
}

/// The violations a tree may have.
struct Allowed {
    cycles: &'static [&'static [&'static str]],
    cli_imports: &'static [&'static str],
    agent_imports: &'static [(&'static str, &'static str)],
}

/// What is wrong with `graph` under `allowed`, one paragraph each; empty when nothing is.
/// `agents` are the agent folders of `src/transcript/`.
fn check(graph: &Graph, agents: &BTreeSet<String>, allowed: &Allowed) -> String {
    let mut report = String::new();
    let edge = |from: &str, to: &str| {
        let w = &graph[&(from.to_owned(), to.to_owned())];
        format!("{from} -> {to} ({}:{}: {})", w.file, w.line, w.path)
    };

    // (a) cycles, as strongly connected components.
    let cycles = components(graph);
    let allowed_cycles: BTreeSet<Vec<String>> = allowed
        .cycles
        .iter()
        .map(|c| sorted(c.iter().map(|s| (*s).to_owned())))
        .collect();
    for cycle in &cycles {
        if allowed_cycles.contains(cycle) {
            continue;
        }
        let _ = writeln!(
            report,
            "a new cycle among {}: break it, or if it must stay for now add it to \
             ALLOWED_CYCLES. Its edges:",
            cycle.join(", ")
        );
        for ((from, to), _) in graph.iter() {
            if cycle.contains(from) && cycle.contains(to) {
                let _ = writeln!(report, "    {}", edge(from, to));
            }
        }
        if let Some(path) = one_cycle(graph, cycle) {
            let _ = writeln!(report, "  for example: {}", path.join(" -> "));
        }
    }
    for cycle in allowed_cycles.difference(&cycles.iter().cloned().collect()) {
        let _ = writeln!(
            report,
            "the cycle among {} is gone (or has changed members): take it off ALLOWED_CYCLES",
            cycle.join(", ")
        );
    }

    // (b) the command layer alone reads the flags.
    let cli_imports: BTreeMap<&str, &str> = graph
        .keys()
        .filter(|(from, to)| top(to) == "cli" && !COMMAND_LAYER.contains(&top(from)))
        .map(|(from, to)| (from.as_str(), to.as_str()))
        .collect();
    for (module, cli) in &cli_imports {
        if !allowed.cli_imports.contains(module) {
            let _ = writeln!(
                report,
                "{module} imports crate::cli, which only the command layer may: {}",
                edge(module, cli)
            );
        }
    }
    for module in allowed.cli_imports {
        if !cli_imports.contains_key(module) {
            let _ = writeln!(
                report,
                "{module} no longer imports crate::cli: take it off ALLOWED_CLI_IMPORTS"
            );
        }
    }

    // (c) an agent folder reads and writes its format, and leaves the deciding to the core.
    let agent_imports: BTreeSet<(&str, &str)> = graph
        .keys()
        .filter(|(from, to)| {
            let mut parts = from.split("::");
            parts.next() == Some("transcript")
                && parts.next().is_some_and(|folder| agents.contains(folder))
                && CORE.contains(&top(to))
        })
        .map(|(from, to)| (from.as_str(), to.as_str()))
        .collect();
    for (agent, core) in &agent_imports {
        if !allowed.agent_imports.contains(&(agent, core)) {
            let _ = writeln!(
                report,
                "{agent} imports the core module {core}: {}",
                edge(agent, core)
            );
        }
    }
    for (agent, core) in allowed.agent_imports {
        if !agent_imports.contains(&(agent, core)) {
            let _ = writeln!(
                report,
                "{agent} no longer imports the core module {core}: take it off \
                 ALLOWED_AGENT_IMPORTS"
            );
        }
    }
    report
}

/// The top-level module of the module `a::b::c`: `a`.
fn top(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

fn sorted(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut items: Vec<String> = items.collect();
    items.sort();
    items
}

/// The strongly connected components of more than one node (Tarjan's algorithm), each sorted.
fn components(graph: &Graph) -> BTreeSet<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in graph.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    struct State<'g> {
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: BTreeSet<Vec<String>>,
    }
    fn visit<'g>(node: &'g str, next: &BTreeMap<&'g str, Vec<&'g str>>, s: &mut State<'g>) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &to in &next[node] {
            if !s.index.contains_key(to) {
                visit(to, next, s);
                let low = s.low[node].min(s.low[to]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(to) {
                let low = s.low[node].min(s.index[to]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut members = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                members.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if members.len() > 1 {
                s.found.insert(sorted(members.into_iter()));
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: BTreeSet::new(),
    };
    for &node in next.keys() {
        if !state.index.contains_key(node) {
            visit(node, &next, &mut state);
        }
    }
    state.found
}

/// One shortest cycle through the first member of `cycle`, within it, as the nodes it visits.
fn one_cycle(graph: &Graph, cycle: &[String]) -> Option<Vec<String>> {
    let start = cycle.first()?;
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.as_str()]);
    while let Some(node) = queue.pop_front() {
        for (from, to) in graph.keys() {
            if from != node || !cycle.contains(to) {
                continue;
            }
            if to == start {
                let mut path = vec![start.clone()];
                let mut at = node;
                while at != start {
                    path.push(at.to_owned());
                    at = came_from[at];
                }
                path.push(start.clone());
                path.reverse();
                return Some(path);
            }
            if !came_from.contains_key(to.as_str()) {
                came_from.insert(to, node);
                queue.push_back(to);
            }
        }
    }
    None
}
