//! The layering of `src/` (docs/architecture.md), checked on every test run: what each
//! top-level module may use of the others, and no cycle between modules, however long.
//! A module's dependencies are its `crate::…` paths outside its `mod tests`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the modules it may use. Lower layers first.
const LAYERS: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("text", &[]),
    ("adr", &["text"]),
    ("cli", &[]),
    ("view", &["model"]),
    ("catalog", &["model", "text"]),
    ("settings", &["model", "text"]),
    ("moderator", &["model", "catalog", "settings", "text"]),
    ("providers", &["model", "settings", "text"]),
    ("store", &["model", "settings", "text"]),
    ("context", &["model", "settings", "text", "adr"]),
    ("record", &["model", "settings", "text", "adr"]),
    ("terminal", &["model", "settings", "text", "view"]),
    ("error", &["catalog", "moderator", "providers", "record", "settings", "store", "terminal"]),
    ("engine", &["model", "catalog", "settings", "text", "moderator", "providers", "store", "record", "error"]),
    // The dashboard: a front end over the engine's state and the stored debates; the
    // commands that run debates are handed to it by `app`.
    ("serve", &["model", "text", "view", "store", "engine", "record", "error", "terminal"]),
    (
        "app",
        &[
            "model",
            "catalog",
            "settings",
            "text",
            "adr",
            "view",
            "cli",
            "context",
            "moderator",
            "providers",
            "store",
            "record",
            "terminal",
            "error",
            "engine",
            "serve",
        ],
    ),
];

/// The `crate::` dependencies of every top-level module.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    collect(&src, &mut files);
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = relative.iter().next().unwrap().to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests are at the end of a file and may reach anywhere.
        let code = match text.find("#[cfg(test)]\nmod tests") {
            Some(at) => &text[..at],
            None => &text,
        };
        let used = graph.entry(module.clone()).or_default();
        used.extend(crate_paths(code).into_iter().filter(|m| *m != module));
    }
    graph
}

fn collect(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The first segment of every `crate::a::…` and of every item in `crate::{a, b::c}`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 1 => break,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        found.insert(identifier(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(identifier(rest));
        }
    }
    found
}

fn identifier(text: &str) -> String {
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

#[test]
fn every_module_uses_only_what_its_layer_allows() {
    let graph = dependencies();
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut breaches = Vec::new();
    for (module, used) in &graph {
        let Some(allowed) = allowed.get(module.as_str()) else {
            breaches.push(format!("{module}: not in the layer table (add it to LAYERS and docs/architecture.md)"));
            continue;
        };
        for dependency in used.iter().filter(|d| !allowed.contains(&d.as_str())) {
            breaches.push(format!("{module} uses {dependency}"));
        }
    }
    assert!(breaches.is_empty(), "layering breached:\n{}", breaches.join("\n"));
}

#[test]
fn no_module_cycle() {
    let graph = dependencies();
    // Depth-first search; a module met again while still on the path closes a cycle.
    fn visit<'a>(
        module: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| *m == module) {
            let mut cycle: Vec<String> = path[start..].iter().map(|m| m.to_string()).collect();
            cycle.push(module.to_string());
            return Some(cycle);
        }
        if !done.insert(module) {
            return None;
        }
        path.push(module);
        for next in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(cycle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            panic!("modules depend on each other: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn the_path_reader_sees_groups_and_nested_paths() {
    let code = "use crate::model::{A, B};\nuse crate::{text::json, store};\nlet x = crate::view::Summary::of(s);";
    let found: Vec<String> = crate_paths(code).into_iter().collect();
    assert_eq!(found, ["model", "store", "text", "view"]);
}
