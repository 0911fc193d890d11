//! What the repository tells the debaters, read before the panel is chosen: fast, no
//! model, no network. The README's opening, the stack from the manifests, the
//! infrastructure, the size and history, and earlier decision records. Files git
//! ignores, secrets (`.env*`, keys, certificates) and anything outside the work tree
//! are never read; a file that cannot be read is skipped with a note. What is read has
//! every API key and everything shaped like a credential masked before it is parsed,
//! so nothing secret reaches a prompt, the database or the record.

mod decisions;
mod history;
pub mod infra;
pub mod manifests;
mod private;
mod readme;
mod walk;

pub use private::{refused, secret};

use std::io::Read;
use std::path::Path;

use crate::model::{Convention, Dependency, EarlierDecision, ProjectFacts};
use crate::text::secrets::{self, Masker};

/// Everything found, before it is ranked and fitted to the budget.
#[derive(Debug, Default)]
pub struct Gathered {
    pub facts: ProjectFacts,
    /// Every decision record found, in path order.
    pub decisions: Vec<EarlierDecision>,
    /// Files skipped, and why.
    pub notes: Vec<String>,
    /// Files that held a key or a credential (now masked), and what it looked like
    /// ("one of your API keys", "what looks like a private key block").
    pub masked: Vec<(String, String)>,
}

pub fn gather(root: &Path, keys: &Masker) -> Gathered {
    // The history is libgit2's work and the walk the file system's: side by side.
    let (walked, history) = std::thread::scope(|scope| {
        let history = scope.spawn(|| history::read(root));
        let walked = walk::walk(root);
        (walked, history.join().ok().flatten())
    });
    let mut reader = Reader { root, keys, notes: walked.notes.clone(), masked: Vec::new() };
    if walked.partial {
        reader.notes.push(format!("the walk stopped after {} files; sizes are a lower bound", walk::MAX_FILES));
    }
    let mut facts = ProjectFacts { languages: walked.languages, history, ..Default::default() };
    facts.readme = walked.readme.as_deref().and_then(|readme| reader.read(readme)).and_then(|t| readme::opening(&t));
    for manifest in &walked.manifests {
        match reader.read(manifest).map(|text| manifests::dependencies(manifest, &text)) {
            Some(Ok(dependencies)) => facts.stack.extend(dependencies),
            Some(Err(why)) => reader.notes.push(format!("{manifest}: skipped ({why})")),
            None => {}
        }
    }
    for file in &walked.infrastructure {
        match reader.read(file).map(|text| infra::infrastructure(file, &text)) {
            Some(Ok(found)) => facts.infrastructure.extend(found),
            Some(Err(why)) => reader.notes.push(format!("{file}: skipped ({why})")),
            None => {}
        }
    }
    let decisions: Vec<EarlierDecision> =
        walked.records.iter().filter_map(|record| decisions::read(record, &reader.read(record)?)).collect();
    Gathered { facts, decisions, notes: reader.notes, masked: reader.masked }
}

/// A dependency a manifest of the work tree declares, where it declares it.
#[derive(Debug, Clone)]
pub struct DeclaredAt {
    pub dependency: Dependency,
    /// The line of the manifest that names it (1-based), when one line does.
    pub line: Option<usize>,
}

/// What the work tree holds that guards look at: its notable dependencies, every file's
/// path, and what could not be read.
#[derive(Debug, Default)]
pub struct Guarded {
    pub dependencies: Vec<DeclaredAt>,
    pub files: Vec<String>,
    pub notes: Vec<String>,
}

/// The work tree read for guards as gathering reads it (the same walk: git's ignores,
/// no link followed, no nested repository, bounded sizes, secrets masked).
pub fn guarded(root: &Path, keys: &Masker) -> Guarded {
    let walked = walk::walk(root);
    let mut reader = Reader { root, keys, notes: walked.notes, masked: Vec::new() };
    let mut dependencies = Vec::new();
    for manifest in &walked.manifests {
        let Some(text) = reader.read(manifest) else { continue };
        match manifests::dependencies(manifest, &text) {
            Ok(found) => dependencies.extend(
                found
                    .into_iter()
                    .map(|dependency| DeclaredAt { line: manifests::line_of(&text, &dependency.name), dependency }),
            ),
            Err(why) => reader.notes.push(format!("{manifest}: skipped ({why})")),
        }
    }
    if walked.partial {
        reader.notes.push(format!("the walk stopped after {} files; later files were not checked", walk::MAX_FILES));
    }
    Guarded { dependencies, files: walked.files, notes: reader.notes }
}

/// The decision record at `relative` (a path inside the work tree), read as gathering
/// reads one; why not, when it is none.
pub fn record_at(root: &Path, relative: &str, keys: &Masker) -> Result<EarlierDecision, String> {
    let mut reader = Reader { root, keys, notes: Vec::new(), masked: Vec::new() };
    let text = reader.read(relative).ok_or_else(|| reader.notes.join("; "))?;
    decisions::read(relative, &text).ok_or_else(|| format!("{relative} is not a decision record (it has no title)"))
}

/// Every decision record in the decision directories and in `also`, read as gathering
/// reads them (secrets masked), each with the debate id its front matter names; a file
/// that is no record (no title) or cannot be read is left out.
pub fn records(root: &Path, also: &str, keys: &Masker) -> Vec<(EarlierDecision, Option<String>)> {
    record_texts(root, also, keys).iter().filter_map(|(relative, text)| record(relative, text)).collect()
}

/// Every decision record's text (as `records` reads it: secrets masked), by its path.
pub fn record_texts(root: &Path, also: &str, keys: &Masker) -> Vec<(String, String)> {
    let mut reader = Reader { root, keys, notes: Vec::new(), masked: Vec::new() };
    walk::listed_records(root, also)
        .into_iter()
        .filter_map(|relative| reader.read(&relative).map(|text| (relative, text)))
        .collect()
}

/// The record at `relative` with `text` as an earlier decision, with the debate id its
/// front matter names; `None` when it has no title and so is no record.
pub fn record(relative: &str, text: &str) -> Option<(EarlierDecision, Option<String>)> {
    decisions::read_with_id(relative, text)
}

/// How the repository keeps its decision records, from a listing of the decision
/// directories (so it is known even when the repository is not read).
pub fn convention(root: &Path) -> Option<Convention> {
    decisions::convention(&walk::listed_records(root, ""))
}

/// Every decision record in the decision directories and in `also`, relative to the root.
pub fn record_paths(root: &Path, also: &str) -> Vec<String> {
    walk::listed_records(root, also)
}

/// The records whose front matter carries `id: <id>` (debate's own records), in the
/// decision directories and in `also`.
pub fn records_with_id(root: &Path, id: &str, also: &str) -> Vec<String> {
    let wanted = format!("id: {}", id.trim().to_lowercase());
    walk::listed_records(root, also)
        .into_iter()
        .filter(|relative| {
            // The front matter is at the top: its first 64 KiB, whatever its encoding.
            let mut head = Vec::new();
            let read =
                std::fs::File::open(root.join(relative)).and_then(|file| file.take(64 << 10).read_to_end(&mut head));
            let text = String::from_utf8_lossy(if read.is_ok() { &head } else { &[] });
            text.lines().take(30).any(|line| line.trim().to_lowercase() == wanted)
        })
        .collect()
}

struct Reader<'a> {
    root: &'a Path,
    keys: &'a Masker,
    notes: Vec<String>,
    masked: Vec<(String, String)>,
}

impl Reader<'_> {
    /// A file's text with secrets masked; one that is not UTF-8 is skipped with a note.
    fn read(&mut self, relative: &str) -> Option<String> {
        let path = self.root.join(relative);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > walk::MAX_FILE_BYTES) {
            self.notes.push(format!("{relative}: skipped (larger than {} KiB)", walk::MAX_FILE_BYTES / 1024));
            return None;
        }
        let text = match std::fs::read(&path).map(String::from_utf8) {
            Ok(Ok(text)) => text,
            Ok(Err(_)) => {
                self.notes.push(format!("{relative}: skipped (not UTF-8)"));
                return None;
            }
            Err(err) => {
                self.notes.push(format!("{relative}: skipped ({err})"));
                return None;
            }
        };
        let (masked, found) = secrets::scrub(&text, self.keys);
        self.masked.extend(found.into_iter().map(|what| (relative.to_string(), what)));
        Some(masked)
    }
}
