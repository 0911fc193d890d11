//! One walk over the work tree: languages by files and lines, and the files worth
//! reading (README, manifests, infrastructure, decision records). The walk respects
//! `.gitignore` (and git's other ignore files), skips hidden files, never follows a
//! link, never enters a nested repository or submodule, and never opens a file that
//! holds secrets by its name (`.env*`, keys, certificates).

use std::collections::BTreeMap;
use std::path::Path;

use ignore::WalkBuilder;

use super::{infra, manifests};
use crate::adr::{DECISION_DIRECTORIES, is_record_name};
use crate::model::LanguageShare;

/// Largest file whose lines are counted or which is read at all.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Files the walk looks at before it stops, so a huge tree costs a bounded time.
pub const MAX_FILES: usize = 100_000;

/// What the walk found.
#[derive(Debug, Default)]
pub struct Walked {
    pub languages: Vec<LanguageShare>,
    /// Paths relative to the root, `/`-separated.
    pub readme: Option<String>,
    pub manifests: Vec<String>,
    pub infrastructure: Vec<String>,
    pub records: Vec<String>,
    /// Every file walked (secrets by their name left out), for guards' path patterns.
    pub files: Vec<String>,
    /// The walk stopped at `MAX_FILES`; the counts are a lower bound.
    pub partial: bool,
    /// Files worth reading that were too large to read.
    pub notes: Vec<String>,
}

/// Languages by extension; what is not here is not counted.
const LANGUAGES: &[(&str, &[&str])] = &[
    ("Rust", &["rs"]),
    ("Go", &["go"]),
    ("Python", &["py"]),
    ("TypeScript", &["ts", "tsx", "mts", "cts"]),
    ("JavaScript", &["js", "jsx", "mjs", "cjs"]),
    ("Java", &["java"]),
    ("Kotlin", &["kt", "kts"]),
    ("Scala", &["scala"]),
    ("C#", &["cs"]),
    ("C", &["c", "h"]),
    ("C++", &["cc", "cpp", "cxx", "hpp", "hh", "hxx"]),
    ("Swift", &["swift"]),
    ("Ruby", &["rb"]),
    ("PHP", &["php"]),
    ("Elixir", &["ex", "exs"]),
    ("Erlang", &["erl", "hrl"]),
    ("Haskell", &["hs"]),
    ("Dart", &["dart"]),
    ("Lua", &["lua"]),
    ("Shell", &["sh", "bash", "zsh"]),
    ("SQL", &["sql"]),
    ("HTML", &["html", "htm"]),
    ("CSS", &["css", "scss", "sass", "less"]),
    ("Vue", &["vue"]),
    ("Svelte", &["svelte"]),
    ("Terraform", &["tf"]),
    ("Protocol Buffers", &["proto"]),
];

fn language(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    LANGUAGES.iter().find(|(_, extensions)| extensions.contains(&extension.as_str())).map(|(name, _)| *name)
}

pub fn walk(root: &Path) -> Walked {
    let mut walked = Walked::default();
    let mut counts: BTreeMap<&'static str, (u32, u64)> = BTreeMap::new();
    let walker = WalkBuilder::new(root)
        .follow_links(false)
        // A nested repository or submodule is another project.
        .filter_entry(|entry| entry.depth() == 0 || !entry.path().join(".git").exists())
        .build();
    let mut files = 0;
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        files += 1;
        if files > MAX_FILES {
            walked.partial = true;
            break;
        }
        let path = entry.path();
        let name = entry.file_name().to_string_lossy();
        if super::private::secret(&name) {
            continue;
        }
        let Ok(relative) = path.strip_prefix(root) else { continue };
        let relative = relative.to_string_lossy().replace('\\', "/");
        walked.files.push(relative.clone());
        let size = entry.metadata().map_or(u64::MAX, |m| m.len());
        if let Some(language) = language(path) {
            let lines = if size <= MAX_FILE_BYTES { count_lines(path) } else { 0 };
            let tally = counts.entry(language).or_default();
            *tally = (tally.0 + 1, tally.1 + lines);
        }
        let worth_reading = (entry.depth() == 1 && is_readme(&name))
            || manifests::is_manifest(&name)
            || infra::is_infrastructure(&relative)
            || is_record(&relative, &name);
        if size > MAX_FILE_BYTES {
            if worth_reading {
                walked.notes.push(format!("{relative}: skipped (larger than {} KiB)", MAX_FILE_BYTES / 1024));
            }
            continue;
        }
        if entry.depth() == 1 && walked.readme.is_none() && is_readme(&name) {
            walked.readme = Some(relative);
        } else if manifests::is_manifest(&name) {
            walked.manifests.push(relative);
        } else if infra::is_infrastructure(&relative) {
            walked.infrastructure.push(relative);
        } else if is_record(&relative, &name) {
            walked.records.push(relative);
        }
    }
    let mut languages: Vec<LanguageShare> = counts
        .into_iter()
        .map(|(language, (files, lines))| LanguageShare { language: language.to_string(), files, lines })
        .collect();
    languages.sort_by(|a, b| b.lines.cmp(&a.lines).then(b.files.cmp(&a.files)));
    walked.languages = languages;
    for list in [&mut walked.manifests, &mut walked.infrastructure, &mut walked.records] {
        list.sort();
    }
    walked
}

fn is_readme(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(lower.as_str(), "readme" | "readme.md" | "readme.markdown" | "readme.txt" | "readme.rst")
}

/// A markdown file directly in a decision directory, not its index or template.
fn is_record(relative: &str, name: &str) -> bool {
    let Some((directory, _)) = relative.rsplit_once('/') else { return false };
    DECISION_DIRECTORIES.contains(&directory) && is_record_name(name)
}

/// The record files directly in the decision directories (and `also`), by listing them:
/// no walk, nothing opened, no link followed. Paths relative to the root.
pub fn listed_records(root: &Path, also: &str) -> Vec<String> {
    let also = also.trim_end_matches('/');
    let mut found: Vec<String> = DECISION_DIRECTORIES
        .iter()
        .copied()
        .chain((!also.is_empty() && !DECISION_DIRECTORIES.contains(&also)).then_some(also))
        .flat_map(|directory| {
            std::fs::read_dir(root.join(directory)).into_iter().flatten().flatten().filter_map(move |entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let file = entry.file_type().is_ok_and(|t| t.is_file());
                (file && is_record_name(&name)).then(|| format!("{directory}/{name}"))
            })
        })
        .collect();
    found.sort();
    found
}

/// Lines of a text file; a binary file (a NUL in its first 8 KiB) has none.
fn count_lines(path: &Path) -> u64 {
    let Ok(bytes) = std::fs::read(path) else { return 0 };
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return 0;
    }
    let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_live_directly_in_decision_directories() {
        assert!(is_record("docs/adr/0001-use-postgres.md", "0001-use-postgres.md"));
        assert!(is_record("docs/decisions/2026-01-01-x.md", "2026-01-01-x.md"));
        assert!(!is_record("docs/adr/README.md", "README.md"));
        assert!(!is_record("docs/adr/adr-template.md", "adr-template.md"));
        assert!(!is_record("docs/adr/0000-template.md", "0000-template.md"));
        assert!(is_record("docs/adr/0004-use-mjml-email-templates.md", "0004-use-mjml-email-templates.md"));
        assert!(!is_record("docs/adr/old/0001-x.md", "0001-x.md"));
        assert!(!is_record("src/adr.md", "adr.md"));
    }
}
