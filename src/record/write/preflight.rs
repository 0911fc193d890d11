//! Whether debate can write records where the settings put them, and commit them: checked
//! before a debate spends anything, and again when the record is written.

use std::path::Path;

use crate::model::RecordSettings;
use crate::record::Result;
use crate::record::write::worktree::WorkTree;
use crate::record::write::{commit, git};

/// Whether debate can write records there, and commit them if it is to: checked before
/// a debate spends anything, and again when the record is written.
pub fn preflight(repo_root: &Path, settings: &RecordSettings, on_branch: bool) -> Result<()> {
    check_directory(repo_root, Path::new(&settings.directory.0))?;
    let Some(repo) = crate::repo::open(repo_root)? else { return Ok(()) };
    let commits = settings.commit && (on_branch || !git::is_detached(&repo));
    match commits {
        true => commit::check_signing(&repo),
        false => Ok(()),
    }
}

/// Every existing part of `directory` under the root is a real directory (no symbolic
/// link that could lead the record out of the work tree, nor a commit that would
/// replace the link), and the deepest one takes a new file.
fn check_directory(root: &Path, directory: &Path) -> Result<()> {
    WorkTree::open(root)?.check_directory(directory)
}
