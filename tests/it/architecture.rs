//! The layering of `src/` (docs/architecture.md), checked on every test run: what each
//! top-level module may use of the others, and no cycle between any two files of `src/`
//! (siblings, parent and child included), however long. A file's dependencies are the
//! module paths in its code outside its `mod tests`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the modules it may use. Lower layers first.
const LAYERS: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("text", &[]),
    // What differs between Unix and Windows, one job a file: below everything that
    // opens files, reads keys, listens for signals or talks to the ssh-agent.
    ("platform", &[]),
    ("adr", &["text"]),
    // Clap's definitions, which parse the model's bounded values (rounds, seats).
    ("cli", &["model"]),
    // What makes a record checkable offline: canonical JSON, SSH signatures by the key
    // git signs with, allowed signers, Open Decision Receipts. Below `record` and `app`.
    ("attest", &["platform"]),
    ("view", &["model"]),
    ("catalog", &["model", "text"]),
    ("settings", &["model", "text"]),
    ("moderator", &["model", "catalog", "settings", "text"]),
    ("providers", &["model", "settings", "text", "platform"]),
    ("store", &["model", "settings", "text"]),
    ("context", &["model", "settings", "text", "adr"]),
    // The git edge: where the repository is and who the user is in it.
    ("repo", &["text"]),
    // Which repositories a door that serves someone else may touch (one gate for all).
    ("confine", &["repo", "platform"]),
    ("record", &["model", "settings", "text", "adr", "repo", "attest", "platform"]),
    // The GitHub edge: a pull request comment's event, its REST calls, git fetch and push.
    ("github", &["text"]),
    ("terminal", &["model", "settings", "text", "view", "platform"]),
    ("error", &["catalog", "github", "moderator", "providers", "record", "repo", "settings", "store", "terminal"]),
    ("engine", &["model", "catalog", "settings", "text", "moderator", "providers", "store", "record", "error"]),
    // A finished record scored: the rubric, its request and the checks that need no model.
    ("eval", &["model", "text", "moderator", "providers"]),
    // The dashboard: a front end over the engine's state and the stored debates; the
    // commands that run debates are handed to it by `app`.
    ("serve", &["model", "text", "view", "store", "engine", "record", "error", "terminal", "confine"]),
    // `debate mcp`: the tools over the Model Context Protocol, a door like the dashboard;
    // `app` hands it the commands behind the tools. It checks the repository a tool names
    // (`repo`) and answers failures as the commands' errors and `view`'s paused document.
    ("mcp", &["model", "text", "view", "repo", "error", "confine", "platform"]),
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
            "repo",
            "terminal",
            "error",
            "engine",
            "eval",
            "serve",
            "mcp",
            "github",
            "attest",
            "confine",
            "platform",
        ],
    ),
];

/// Every file of `src/` (but `main.rs` and `lib.rs`) by its module path
/// (`serve::api`; `serve` for `serve/mod.rs`), with its code outside `mod tests`.
fn sources() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let mut sources = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap().with_extension("");
        let mut segments: Vec<String> = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if segments.last().is_some_and(|s| s == "mod") {
            segments.pop();
        }
        if segments == ["main"] || segments == ["lib"] {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Unit tests are at the end of a file and may reach anywhere.
        let code = match text.find("#[cfg(test)]\nmod tests") {
            Some(at) => text[..at].to_string(),
            None => text,
        };
        sources.insert(segments.join("::"), code);
    }
    sources
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

/// Which files each file uses: the file that defines what each of its `crate::…`,
/// `super::…`, `self::…` and `child::…` paths names. A file that uses its parent's
/// items depends on the parent's file; the parent that uses a child's items depends on
/// the child's. Declaring `mod child;` and re-exporting (`pub use child::Item;`) are
/// a module's interface, not uses: a path through a re-export leads to the file that
/// defines the item.
fn file_graph(sources: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let parsed: BTreeMap<&String, Parsed> =
        sources.iter().map(|(module, code)| (module, parse(module, code))).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &parsed {
        let used: BTreeSet<String> = file
            .uses
            .iter()
            .filter_map(|path| defining_file(path, &parsed, 0))
            .filter(|used| used != *module)
            .collect();
        graph.insert(module.to_string(), used);
    }
    graph
}

/// A file's paths, made absolute (without `crate`): those it uses, and those it
/// re-exports by the name they are re-exported under.
struct Parsed {
    uses: Vec<Vec<String>>,
    reexports: BTreeMap<String, Vec<String>>,
}

fn parse(module: &str, code: &str) -> Parsed {
    let here: Vec<String> = module.split("::").map(str::to_string).collect();
    let code = without_comments(code);
    let children = declared_children(&code);
    let absolute = |path: Vec<String>| -> Option<Vec<String>> {
        Some(match path.first().map(String::as_str) {
            Some("crate") => path[1..].to_vec(),
            Some("self") => here.iter().chain(&path[1..]).cloned().collect(),
            Some("super") => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                here[..here.len().saturating_sub(ups)].iter().chain(&path[ups..]).cloned().collect()
            }
            Some(first) if children.contains(first) => here.iter().chain(&path).cloned().collect(),
            _ => return None,
        })
    };
    let mut reexports = BTreeMap::new();
    let mut rest = String::new();
    for statement in code.split_inclusive(';') {
        let trimmed = statement.trim_start();
        match trimmed.strip_prefix("pub use ").or_else(|| trimmed.strip_prefix("pub(crate) use ")) {
            Some(exported) => {
                for path in paths(exported).into_iter().filter_map(&absolute) {
                    reexports.insert(path.last().cloned().unwrap_or_default(), path);
                }
            }
            None => rest.push_str(statement),
        }
    }
    Parsed { uses: paths(&rest).into_iter().filter_map(absolute).collect(), reexports }
}

/// The file that defines what `path` names: the longest module path that is a file,
/// followed through that file's re-exports.
fn defining_file(path: &[String], parsed: &BTreeMap<&String, Parsed>, depth: usize) -> Option<String> {
    let (module, file) = (1..=path.len()).rev().find_map(|n| {
        let module = path[..n].join("::");
        parsed.get(&module).map(|file| ((module, n), file))
    })?;
    let (module, n) = module;
    match path.get(n).and_then(|item| file.reexports.get(item)) {
        Some(target) if depth < 8 => {
            let through: Vec<String> = target.iter().chain(&path[n + 1..]).cloned().collect();
            defining_file(&through, parsed, depth + 1).or(Some(module))
        }
        _ => Some(module),
    }
}

/// Each top-level module and the top-level modules its files use.
fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let top = |module: &str| module.split("::").next().unwrap().to_string();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, used) in file_graph(&sources()) {
        let entry = graph.entry(top(&module)).or_default();
        entry.extend(used.iter().map(|m| top(m)).filter(|m| *m != top(&module)));
    }
    graph
}

fn without_comments(code: &str) -> String {
    code.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The modules a file declares with `mod name;`.
fn declared_children(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").or_else(|| line.strip_prefix("pub(crate) ")).unwrap_or(line);
            line.strip_prefix("mod ")?.strip_suffix(';').map(str::to_string)
        })
        .collect()
}

/// Every path of two or more segments in `code`, with `use` groups spelled out:
/// `crate::{a, b::{c, d}}` gives `crate::a`, `crate::b::c` and `crate::b::d`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts_word =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':');
        if starts_word && (bytes[at].is_ascii_alphabetic() || bytes[at] == b'_') {
            let (prefixes, end) = expand(code, at);
            found.extend(prefixes.into_iter().filter(|p| p.len() > 1));
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
    found
}

/// The path (or paths, for a group) starting at `at`, and where it ends.
fn expand(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let mut path = Vec::new();
    loop {
        let name = identifier(&code[at..]);
        if name.is_empty() {
            break;
        }
        at += name.len();
        path.push(name);
        if !code[at..].starts_with("::") {
            return (vec![path], at);
        }
        at += 2;
        if code[at..].starts_with('{') {
            let mut all = Vec::new();
            at += 1;
            loop {
                at += code[at..].len() - code[at..].trim_start().len();
                if code[at..].starts_with('}') {
                    return (all, at + 1);
                }
                let (inner, end) = expand(code, at);
                all.extend(inner.into_iter().map(|rest| path.iter().cloned().chain(rest).collect()));
                at = end;
                at += code[at..].len() - code[at..].trim_start().len();
                // `as name` renames and `self` adds nothing the group's path does not.
                if code[at..].starts_with("as ") {
                    at += 3 + identifier(code[at + 3..].trim_start()).len() + 1;
                }
                match code[at..].chars().next() {
                    Some(',') => at += 1,
                    Some('}') => return (all, at + 1),
                    _ => return (all, at),
                }
            }
        }
    }
    (vec![path], at)
}

fn identifier(text: &str) -> String {
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// The shortest way from `start` back to itself, written out, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<String> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in graph.get(node).into_iter().flatten() {
            if next == start {
                let mut way = vec![node];
                while let Some(before) = came_from.get(way.last().unwrap()) {
                    way.push(before);
                }
                way.reverse();
                return Some(way.iter().chain([&start]).copied().collect::<Vec<_>>().join(" → "));
            }
            if !came_from.contains_key(next.as_str()) && next != start {
                came_from.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The first cycle in `graph`, if any, as the nodes along it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; a node met again while still on the path closes a cycle.
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| *m == node) {
            let mut cycle: Vec<String> = path[start..].iter().map(|m| m.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
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
fn no_cycle_between_any_two_files() {
    let graph = file_graph(&sources());
    let cycles: BTreeSet<String> = graph.keys().filter_map(|file| cycle_through(&graph, file)).collect();
    assert!(cycles.is_empty(), "files depend on each other:\n{}", cycles.into_iter().collect::<Vec<_>>().join("\n"));
    if let Some(cycle) = cycle(&dependencies()) {
        panic!("modules depend on each other: {}", cycle.join(" → "));
    }
}

#[test]
fn a_cycle_between_sibling_files_is_found() {
    let tree: BTreeMap<String, String> = [
        ("serve", "mod api;\nmod live;\npub use live::Job;"),
        ("serve::api", "use super::live::{self, Job};\nfn f() {}"),
        ("serve::live", "use super::api::existing;\npub struct Job;"),
        ("serve::pages", "use crate::serve::{api, live::Situation};"),
    ]
    .into_iter()
    .map(|(m, code)| (m.to_string(), code.to_string()))
    .collect();
    let graph = file_graph(&tree);
    assert_eq!(graph["serve::pages"], ["serve::api", "serve::live"].map(String::from).into());
    let found = cycle(&graph).expect("api and live use each other");
    assert!(found.contains(&"serve::api".to_string()) && found.contains(&"serve::live".to_string()), "{found:?}");
    let mut acyclic = tree.clone();
    acyclic.insert("serve::live".into(), "pub struct Job;".into());
    assert_eq!(cycle(&file_graph(&acyclic)), None);
}

#[test]
fn a_child_that_uses_its_parent_while_the_parent_uses_it_is_a_cycle() {
    let tree: BTreeMap<String, String> = [
        ("providers", "mod http;\npub struct Request;\nfn f() { http::send(); }"),
        ("providers::http", "use super::Request;\npub fn send() {}"),
    ]
    .into_iter()
    .map(|(m, code)| (m.to_string(), code.to_string()))
    .collect();
    assert!(cycle(&file_graph(&tree)).is_some());
}

#[test]
fn the_path_reader_sees_groups_and_nested_paths() {
    let code = "use crate::model::{A, B};\nuse crate::{text::json, store::{self, x as y}};\nlet x = crate::view::Summary::of(s);";
    let found: Vec<String> = paths(code).into_iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        [
            "crate::model::A",
            "crate::model::B",
            "crate::text::json",
            "crate::store::self",
            "crate::store::x",
            "crate::view::Summary::of"
        ]
    );
}

/// The rows of docs/architecture.md's "Modules" section: each file it names (relative
/// to `src/`) with its job.
fn documented_modules() -> BTreeMap<String, String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md")).unwrap();
    let start = doc.find("\n## Modules\n").expect("docs/architecture.md has a Modules section");
    let section = &doc[start + 1..];
    let section = &section[..section[1..].find("\n## ").map_or(section.len(), |end| end + 1)];
    section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|row| {
            let (file, rest) = row.split_once('`')?;
            let job = rest.trim_start_matches(" |").trim_end_matches('|').trim();
            Some((file.to_string(), job.to_string()))
        })
        .collect()
}

#[test]
fn the_architecture_document_names_every_module_with_its_job() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .map(|file| file.strip_prefix(&src).unwrap().to_string_lossy().into_owned())
        .filter(|file| !file.ends_with("tests.rs") && !file.split('/').any(|part| part == "tests"))
        .collect();
    let documented = documented_modules();
    let missing: Vec<_> = modules.iter().filter(|file| !documented.contains_key(*file)).collect();
    let gone: Vec<_> = documented.keys().filter(|file| !modules.contains(*file)).collect();
    let jobless: Vec<_> = documented.iter().filter(|(_, job)| job.len() < 10).map(|(file, _)| file).collect();
    assert!(missing.is_empty(), "docs/architecture.md has no row for {missing:?}");
    assert!(gone.is_empty(), "docs/architecture.md names files that are gone: {gone:?}");
    assert!(jobless.is_empty(), "docs/architecture.md gives no job for {jobless:?}");
}

/// The files of `src/` (tests aside) and `templates/` whose text names `word`.
fn files_naming(word: &str) -> Vec<String> {
    let code = sources().into_iter().filter(|(module, _)| !module.ends_with("tests") && module != "model::fixture");
    let mut naming: Vec<String> = code.filter(|(_, text)| text.contains(word)).map(|(module, _)| module).collect();
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let mut stack = vec![templates.clone()];
    while let Some(dir) = stack.pop() {
        for path in std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()) {
            match path.is_dir() {
                true => stack.push(path),
                false if std::fs::read_to_string(&path).unwrap_or_default().contains(word) => {
                    naming.push(path.strip_prefix(&templates).unwrap().display().to_string());
                }
                false => {}
            }
        }
    }
    naming
}

/// The decision document is described once (model/decision.rs): a section's name is
/// written where it is declared and where it is made, not at every door.
#[test]
fn an_outcome_section_is_named_in_at_most_four_files() {
    // A key that is no English word, so prose that mentions the section is not counted.
    let naming = files_naming("action_items");
    assert!(naming.len() <= 4, "action_items is named in {} files: {naming:?}", naming.len());
}

/// A run's options are described once (issue 50): the type that holds them, and the few
/// files that apply one — not every door naming every option again.
#[test]
fn a_run_option_is_named_in_at_most_four_files() {
    let naming = files_naming("max_cost");
    assert!(!naming.is_empty(), "the option is there to count");
    assert!(naming.len() <= 4, "`max_cost` is named in {} files: {naming:?}", naming.len());
}
