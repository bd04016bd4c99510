//! Installing condense: the crate's file list (`cargo package --list`), shell completions, the
//! man pages `condense man` writes, and `--version` naming the features built in.

use std::path::Path;
use std::process::Command as StdCommand;

use crate::util::{assert_success, condense, run_ok};

/// What a crate user never needs: other projects' transcripts, golden files, benchmark scripts
/// and data, fuzz targets, the test suite and CI.
const EXCLUDED: [&str; 7] = [
    "fixtures/",
    "benches/scripts/",
    "benches/data/",
    "fuzz/",
    "tests/",
    ".ci/",
    "target/",
];

#[test]
fn the_crate_lists_the_code_the_man_pages_and_recipes_and_nothing_excluded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // --offline: listing needs no index; a refusal to work offline is reported, not hidden.
    let output = StdCommand::new(cargo)
        .args(["package", "--list", "--allow-dirty", "--offline", "--quiet"])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && (stderr.contains("offline") || stderr.contains("network")) {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo package --list: {stderr}"
        );
        crate::util::say_skipped(&format!(
            "cargo package --list needs the network here: {stderr}"
        ));
        return;
    }
    assert_success(&output, "cargo package --list");
    assert!(
        !stderr.contains("warning"),
        "cargo package --list warns: {stderr}"
    );
    let files: Vec<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .collect();
    for excluded in EXCLUDED {
        let listed: Vec<_> = files.iter().filter(|f| f.starts_with(excluded)).collect();
        assert!(listed.is_empty(), "{excluded} is packaged: {listed:?}");
    }
    for needed in [
        "Cargo.toml",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/prompts/notes.md",
        "man/condense.1",
        "man/condense-sessions.1",
        "examples/claude-code/settings.json",
    ] {
        assert!(
            files.contains(&needed),
            "{needed} is not packaged: {files:?}"
        );
    }
    // Every man page `condense man` compiles in is packaged, or the crate would not build.
    for entry in std::fs::read_dir(root.join("man")).unwrap() {
        let name = format!("man/{}", entry.unwrap().file_name().to_string_lossy());
        assert!(files.contains(&name.as_str()), "{name}");
    }
    // Packing it for real warns of nothing but the test target left out on purpose (it needs
    // the corpus, which is not packaged): the bench targets' sources are in the crate.
    let target = tempfile::tempdir().unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = StdCommand::new(cargo)
        .args(["package", "--no-verify", "--allow-dirty", "--offline"])
        .env("CARGO_TARGET_DIR", target.path())
        .current_dir(root)
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_success(&output, "cargo package");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert!(
        warnings.iter().all(|w| w.contains("ignoring test `cli`")),
        "cargo package warns: {warnings:?}"
    );
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"condense-cli\""));
    assert!(manifest.contains("documentation = "));
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F _condense"),
        ("zsh", "#compdef condense"),
        ("fish", "complete -c condense"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[condense]"),
    ] {
        let output = condense().args(["completions", shell]).output().unwrap();
        assert_success(&output, format_args!("{shell}"));
        let script = String::from_utf8(output.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for word in ["estimate", "sessions", "--latest", "--files-from"] {
            assert!(script.contains(word), "{shell} completes no {word}");
        }
    }
    let output = condense().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn bash_accepts_its_completion_script() {
    let Ok(bash) = StdCommand::new("bash").arg("--version").output() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs .ci/run with bash"
        );
        crate::util::say_skipped("no bash");
        return;
    };
    assert_success(&bash, "");
    let script = condense()
        .args(["completions", "bash"])
        .output()
        .unwrap()
        .stdout;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("condense.bash");
    std::fs::write(&path, script).unwrap();
    // Sourcing defines the function and registers it; `complete -p` prints the registration.
    let check = StdCommand::new("bash")
        .arg("-c")
        .arg(format!(". {} && complete -p condense", path.display()))
        .output()
        .unwrap();
    assert_success(&check, "");
    assert!(String::from_utf8_lossy(&check.stdout).contains("_condense"));
}

#[test]
fn man_writes_every_page_as_it_is_in_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("share/man/man1");
    // A missing directory is an error (a mistyped path would hide the pages), unless asked.
    let refused = condense().arg("man").arg(&target).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("no such directory; create it, or pass --parents"));
    assert!(!target.exists());
    let output = run_ok(condense().args(["man", "-p"]).arg(&target));
    let listed = String::from_utf8(output.stdout).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let pages: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    assert_eq!(listed.lines().count(), pages.len());
    for page in pages {
        let written = std::fs::read(target.join(page.file_name())).unwrap();
        assert_eq!(
            written,
            std::fs::read(page.path()).unwrap(),
            "{:?}",
            page.file_name()
        );
    }
    let output = condense()
        .args(["man", "--parents"])
        .arg("/proc/no/such/dir")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
}

/// A `cargo install` user has the recipes too: `condense recipes` lists every file of
/// `examples/`, prints each byte for byte, and writes them all into a directory (scripts
/// executable), never over a file that is there.
#[test]
fn recipes_lists_prints_and_installs_every_example_as_it_is_in_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files = Vec::new();
    for agent in std::fs::read_dir(&root).unwrap() {
        for file in std::fs::read_dir(agent.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            files.push(path.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    files.sort();
    let listed = run_ok(condense().arg("recipes"));
    let mut names: Vec<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect();
    names.sort();
    assert_eq!(names, files);
    for name in &files {
        let printed = condense().args(["recipes", name]).output().unwrap();
        assert_success(&printed, format_args!("{name}"));
        assert_eq!(
            printed.stdout,
            std::fs::read(root.join(name)).unwrap(),
            "{name}"
        );
    }
    let by_agent = condense().args(["recipes", "pi"]).output().unwrap();
    assert_eq!(
        by_agent.stdout,
        std::fs::read(root.join("pi/pi-compact.sh")).unwrap()
    );
    let unknown = condense().args(["recipes", "vim"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(1));

    let dir = tempfile::tempdir().unwrap();
    run_ok(condense().args(["recipes", "--dir"]).arg(dir.path()));
    for name in &files {
        let path = dir.path().join(name);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(root.join(name)).unwrap()
        );
        if name.ends_with(".sh") {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o111,
                0o111
            );
        }
    }
    let edited = dir.path().join("pi/pi-compact.sh");
    std::fs::write(&edited, "# mine\n").unwrap();
    let again = condense()
        .args(["recipes", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&edited).unwrap(), "# mine\n");
}

#[test]
fn version_names_the_features_built_in() {
    let output = condense().arg("--version").output().unwrap();
    let line = String::from_utf8(output.stdout).unwrap();
    let bpe = if cfg!(feature = "bpe") {
        "+bpe"
    } else {
        "-bpe"
    };
    let zstd = if cfg!(feature = "zstd") {
        "+zstd"
    } else {
        "-zstd"
    };
    assert_eq!(
        line,
        format!(
            "condense {} (features: {bpe} +gzip {zstd})\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

/// `rust-version` is true: no package the build resolves (dependencies and dev-dependencies
/// for this machine's platform, from the lock file) declares a newer one. Checked from `cargo
/// metadata`, so no other toolchain is needed (and offline: other platforms' packages, which
/// were never downloaded, are left out).
#[test]
fn rust_version_is_at_least_every_dependency_s() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = StdCommand::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let rustc = String::from_utf8(rustc.stdout).unwrap();
    let host = rustc
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names the host");
    let output = StdCommand::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", host])
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert_success(&output, "cargo metadata");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // "1.85" and "1.85.0" are one version: missing parts are 0.
    let version = |text: &str| -> [u64; 3] {
        let mut parts = text.split('.').map(|n| n.parse::<u64>().unwrap());
        [(); 3].map(|()| parts.next().unwrap_or(0))
    };
    let resolved: Vec<&str> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|node| node["id"].as_str().unwrap())
        .collect();
    let packages = metadata["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|p| p["name"] == "condense-cli")
        .and_then(|p| p["rust_version"].as_str())
        .expect("Cargo.toml sets rust-version");
    let newer: Vec<String> = packages
        .iter()
        .filter(|p| resolved.contains(&p["id"].as_str().unwrap()))
        .filter_map(|p| Some((p["name"].as_str()?, p["rust_version"].as_str()?)))
        .filter(|(_, theirs)| version(theirs) > version(ours))
        .map(|(name, theirs)| format!("{name} needs {theirs}"))
        .collect();
    let declared = packages
        .iter()
        .filter(|p| p["rust_version"].is_string())
        .count();
    assert!(
        declared > 10,
        "only {declared} packages declare a rust-version"
    );
    assert!(
        newer.is_empty(),
        "rust-version = {ours:?}, but {}",
        newer.join(", ")
    );
}
