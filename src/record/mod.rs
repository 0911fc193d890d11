//! The decision record: where it goes, and writing it without ever overwriting.

pub mod render;
pub mod slug;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::state::DebateState;
use crate::error::{Error, Result};

/// The record's path for a debate: `record.directory` under the repository root, named
/// by `record.filename`; an existing name gets `-2`, `-3`, … before `.md`.
pub fn plan_path(state: &DebateState) -> Result<PathBuf> {
    let settings = &state.snapshot.record;
    let directory = Path::new(&state.repo_root).join(&settings.directory.0);
    let number = next_number(&directory);
    let name = settings
        .filename
        .0
        .replace("{date}", &date_of(state))
        .replace("{slug}", &slug::slug(&state.title))
        .replace("{id}", &state.id.to_lowercase())
        .replace("{number}", &format!("{number:04}"));
    let name = if name.ends_with(".md") { name } else { format!("{name}.md") };
    let stem = name.trim_end_matches(".md").to_string();
    let mut path = directory.join(&name);
    let mut n = 2;
    while path.exists() {
        path = directory.join(format!("{stem}-{n}.md"));
        n += 1;
    }
    Ok(path)
}

/// `YYYY-MM-DD` of the debate's start.
pub fn date_of(state: &DebateState) -> String {
    state.created_at.get(..10).unwrap_or(&state.created_at).to_string()
}

/// One more than the highest leading number of a file in the directory.
fn next_number(directory: &Path) -> u32 {
    let highest = std::fs::read_dir(directory)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok().filter(|_| digits.len() <= 6)
        })
        .max();
    highest.map_or(1, |n| n + 1)
}

/// Whether `path` is free, or already holds this debate's record.
pub fn is_ours_or_free(path: &Path, id: &str) -> bool {
    !path.exists() || holds(path, id)
}

fn holds(path: &Path, id: &str) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.lines().take(30).any(|l| l.trim() == format!("id: {id}")))
}

/// Render and write the record. Already there (a resumed debate): nothing to do. The
/// file appears whole or not at all: written beside it, then linked into place, which
/// fails rather than overwrite.
pub fn write(state: &DebateState, path: &Path) -> Result<()> {
    if path.exists() {
        return if holds(path, &state.id) {
            Ok(())
        } else {
            Err(Error::record(format!("{} already exists and is not this debate's record", path.display())))
        };
    }
    let text = render::render(state)?;
    let directory = path.parent().ok_or_else(|| Error::record("the record path has no directory"))?;
    let failed = |err: std::io::Error| {
        Error::record(format!("cannot write the record {}: {err}", path.display()))
            .with_hint("check that the directory is writable, then run the same --resume again")
    };
    std::fs::create_dir_all(directory).map_err(failed)?;
    let temporary = directory.join(format!(".{}.partial", state.id.to_lowercase()));
    let mut file = std::fs::File::create(&temporary).map_err(failed)?;
    file.write_all(text.as_bytes()).and_then(|_| file.sync_all()).map_err(failed)?;
    let linked = std::fs::hard_link(&temporary, path);
    let _ = std::fs::remove_file(&temporary);
    linked.map_err(failed)
}

/// A short title from the question: its first line, without a trailing `?`.
pub fn title_of(question: &str) -> String {
    let line = question.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let line = line.trim_end_matches(['?', '.', '!', ' ']);
    match line.char_indices().nth(100) {
        Some((end, _)) => format!("{}…", line[..end].trim_end()),
        None => line.to_string(),
    }
}
