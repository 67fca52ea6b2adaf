//! The layers of src/ (issue 32, point 1): each top-level module imports only modules on a lower
//! line of ARCHITECTURE.md's "Layers" list, so there is no import cycle, and every module has its
//! line. Imports are read as `crate::NAME` outside `#[cfg(test)]` modules and comments.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module name -> its line (1 = the bottom), from ARCHITECTURE.md.
fn layers() -> BTreeMap<String, usize> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    let section = text
        .split("\n## Layers")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Layers section");
    let mut layers = BTreeMap::new();
    for line in section.lines() {
        let Some((number, rest)) = line.split_once(". ") else {
            continue;
        };
        let Ok(level) = number.trim().parse::<usize>() else {
            continue;
        };
        // The module names are the backticked words before the dash.
        let names = rest.split(" — ").next().unwrap_or_default();
        for name in names.split('`').skip(1).step_by(2) {
            layers.insert(name.to_string(), level);
        }
    }
    layers
}

/// Each top-level module of src/ and the modules its code (not its tests) names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).expect("under src");
        let first = relative.components().next().expect("a name");
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source");
        let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or_default();
        let imported = graph.entry(module.clone()).or_default();
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or_default();
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    // `use crate::{a, b::c}`: on one line in this code base (rustfmt keeps
                    // such groups short here); a group over several lines would be missed.
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or_default()
                        .split(',')
                        .map(|part| part.trim().split("::").next().unwrap_or_default())
                        .collect(),
                    None => vec![
                        rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                            .next()
                            .unwrap_or_default(),
                    ],
                };
                imported.extend(
                    names
                        .into_iter()
                        .filter(|n| !n.is_empty() && *n != module)
                        .map(str::to_string),
                );
            }
        }
    }
    graph
}

#[test]
fn modules_import_only_lower_layers() {
    let layers = layers();
    let graph = imports();
    let mut wrong = Vec::new();
    for (module, imported) in &graph {
        let Some(level) = layers.get(module) else {
            wrong.push(format!("{module} has no line in ARCHITECTURE.md's Layers"));
            continue;
        };
        for other in imported {
            match layers.get(other) {
                Some(below) if below < level => {}
                Some(below) => wrong.push(format!(
                    "{module} (layer {level}) imports {other} (layer {below})"
                )),
                None => wrong.push(format!("{module} imports {other}, which has no line")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for module in layers.keys() {
        assert!(
            graph.contains_key(module),
            "ARCHITECTURE.md names {module}, which src/ lacks"
        );
    }
}

#[test]
fn the_layer_check_sees_an_upward_import() {
    // The reader is what the test above trusts: it must find check's use of config (a real edge).
    let graph = imports();
    assert!(graph["check"].contains("config"), "{:?}", graph["check"]);
    assert!(graph["cli"].contains("report"), "{:?}", graph["cli"]);
    assert!(!graph["fsio"].contains("vcs"), "{:?}", graph["fsio"]);
}
