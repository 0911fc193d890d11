//! Where a new record goes and what it is called: the directory and file name the
//! settings give, numbered after the records already there, never over another file.

use std::path::{Path, PathBuf};

use crate::model::{DebateState, TITLE_LIMIT};
use crate::record::error::Result;
use crate::record::{write::git, write::slug};
use crate::text::untrusted::one_line;
use crate::text::{record_number, shorten};

/// The record's path: `record.directory` under the repository root, named by
/// `record.filename`. A name taken in the working tree or at HEAD gets `-2`, `-3`, …
pub fn plan_path(state: &DebateState) -> Result<PathBuf> {
    let settings = &state.snapshot.record;
    let root = Path::new(&state.repo_root);
    let directory = root.join(&settings.directory.0);
    let repo = crate::repo::open(root)?;
    let mut taken = numbers_in(&directory);
    if let Some(repo) = &repo {
        taken.extend(git::numbers_on_branches(repo, Path::new(&settings.directory.0)));
    }
    let number = taken.into_iter().max().map_or(1, |n| n + 1);
    let name = settings
        .filename
        .0
        .replace("{date}", &date_of(state))
        .replace("{slug}", &slug::naming(&first_line(&state.question), &state.analysis.options))
        .replace("{id}", &state.id.to_lowercase())
        .replace("{number}", &format!("{number:04}"));
    let stem = name.strip_suffix(".md").unwrap_or(&name).to_string();
    let free = |path: &Path| {
        let at_head =
            repo.as_ref().is_some_and(|r| path.strip_prefix(root).is_ok_and(|rel| git::exists_at_head(r, rel)));
        !path.exists() && !at_head
    };
    let mut path = directory.join(format!("{stem}.md"));
    let mut n = 2;
    while !free(&path) {
        path = directory.join(format!("{stem}-{n}.md"));
        n += 1;
    }
    Ok(path)
}

/// `YYYY-MM-DD` of the debate's start.
pub fn date_of(state: &DebateState) -> String {
    state.created_at.get(..10).unwrap_or(&state.created_at).to_string()
}

fn numbers_in(directory: &Path) -> Vec<u32> {
    std::fs::read_dir(directory)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| record_number(&entry.file_name().to_string_lossy()))
        .collect()
}

/// The branch `--branch` without a name commits to.
pub fn default_branch(id: &str, title: &str) -> String {
    format!("decisions/{}-{}", id.to_lowercase(), slug::slug(title))
}

/// A short title from the question: its first line, at most 72 characters and never
/// cut mid-word.
pub fn title_of(question: &str) -> String {
    shorten(&first_line(question), TITLE_LIMIT)
}

/// The question's first line, without a trailing `?`. The slug is made from it, not the
/// title, so the options named past the title's cut are still there to keep.
fn first_line(question: &str) -> String {
    let line = question.lines().map(one_line).find(|l| !l.is_empty()).unwrap_or_default();
    line.trim_end_matches(['?', '.', '!', ' ']).to_string()
}
