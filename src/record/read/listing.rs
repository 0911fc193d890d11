//! The decision records a repository holds, wherever a team keeps them before they
//! merge: on the checked-out branch and on every `decisions/*` branch (a clone's
//! `origin/decisions/*` too), read from git rather than the work tree, each with what
//! its text states. The dashboard lists them beside the database's debates.

use std::path::Path;

use git2::{BranchType, Repository, Tree};
use serde::Serialize;

/// One record file on one branch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepositoryRecord {
    /// The branch it was read on (`origin/decisions/…` for one only the remote has).
    pub branch: String,
    /// Its path in the repository.
    pub path: String,
    /// The debate that wrote it, when one did.
    pub id: Option<String>,
    pub title: String,
    pub status: String,
    pub date: Option<String>,
}

/// Branches whose records are listed besides the checked-out one.
const PREFIX: &str = "decisions/";

/// Every record under `directory` on the checked-out branch and the `decisions/*`
/// branches; a record on several branches is listed once per branch that differs.
pub fn in_repository(root: &Path, directory: &str) -> Vec<RepositoryRecord> {
    with_texts(root, directory).into_iter().map(|(record, _)| record).collect()
}

/// The record at `path` on `branch` and its text, if it is one `in_repository` lists.
pub fn text_on(root: &Path, directory: &str, branch: &str, path: &str) -> Option<(RepositoryRecord, String)> {
    with_texts(root, directory).into_iter().find(|(r, _)| r.branch == branch && r.path == path)
}

/// The records carrying the debate `id` on `decisions/*` branches other than the one
/// checked out, each with its text: where a reviewer on the default branch finds a
/// record its pull request has not merged yet.
pub fn on_other_branches(root: &Path, directory: &str, id: &str) -> Vec<(RepositoryRecord, String)> {
    let Ok(Some(repo)) = crate::repo::open(root) else { return Vec::new() };
    let here = repo.head().ok().and_then(|head| head.shorthand().ok().map(str::to_string));
    with_texts(root, directory)
        .into_iter()
        .filter(|(record, _)| Some(&record.branch) != here.as_ref())
        .filter(|(record, _)| record.id.as_deref().is_some_and(|found| found.eq_ignore_ascii_case(id)))
        .collect()
}

/// The file at `path` on `branch` (as `in_repository` names branches).
pub fn file_on(root: &Path, branch: &str, path: &Path) -> Option<Vec<u8>> {
    let repo = crate::repo::open(root).ok()??;
    let (_, tree) = branches(&repo).into_iter().find(|(name, _)| name == branch)?;
    let blob = tree.get_path(path).ok()?.to_object(&repo).ok()?.peel_to_blob().ok()?;
    Some(blob.content().to_vec())
}

/// Each record `in_repository` lists, with its text.
fn with_texts(root: &Path, directory: &str) -> Vec<(RepositoryRecord, String)> {
    let Ok(Some(repo)) = crate::repo::open(root) else { return Vec::new() };
    let mut records = Vec::new();
    let mut seen: Vec<git2::Oid> = Vec::new();
    for (branch, tree) in branches(&repo) {
        let Ok(entry) = tree.get_path(Path::new(directory)) else { continue };
        let Ok(folder) = entry.to_object(&repo).and_then(|o| o.peel_to_tree()) else { continue };
        for file in folder.iter() {
            let Some(name) = file.name().ok().filter(|n| n.ends_with(".md") && !n.eq_ignore_ascii_case("README.md"))
            else {
                continue;
            };
            // The same content on another branch (a record not yet changed there).
            if seen.contains(&file.id()) {
                continue;
            }
            let Ok(blob) = file.to_object(&repo).and_then(|o| o.peel_to_blob()) else { continue };
            let path = format!("{}/{name}", directory.trim_end_matches('/'));
            let text = String::from_utf8_lossy(blob.content()).into_owned();
            let Some(fields) = crate::adr::read(&path, &text) else { continue };
            seen.push(file.id());
            let record = RepositoryRecord {
                branch: branch.clone(),
                path,
                id: fields.id,
                title: fields.title,
                status: fields.status,
                date: fields.date,
            };
            records.push((record, text));
        }
    }
    records
}

/// The checked-out branch first, then the local and the remote `decisions/*` branches.
fn branches(repo: &Repository) -> Vec<(String, Tree<'_>)> {
    let mut found = Vec::new();
    if let Ok(head) = repo.head()
        && let Ok(tree) = head.peel_to_tree()
    {
        found.push((head.shorthand().unwrap_or("HEAD").to_string(), tree));
    }
    for kind in [BranchType::Local, BranchType::Remote] {
        let Ok(list) = repo.branches(Some(kind)) else { continue };
        for (branch, _) in list.flatten() {
            let Ok(Some(name)) = branch.name().map(|n| n.map(str::to_string)) else { continue };
            let short = name.strip_prefix("origin/").unwrap_or(&name);
            if !short.starts_with(PREFIX) || found.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Ok(tree) = branch.get().peel_to_tree() {
                found.push((name, tree));
            }
        }
    }
    found
}
