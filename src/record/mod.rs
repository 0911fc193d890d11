//! The decision record: where it goes, writing it without ever overwriting, and
//! committing it (docs/guide.md, "The decision record").

pub mod carried;
mod commit;
mod error;
mod failpoint;
mod front_matter;
pub mod git;
pub mod index;
pub mod issue;
pub mod lifecycle;
mod links;
pub mod listing;
mod lock;
mod path;
mod publish;
mod pull_request;
mod read_back;
pub mod render;
pub mod scores;
pub mod sign;
pub mod slug;
mod status;
pub mod supersede;
pub mod worktree;

use std::path::Path;

use crate::model::RecordSettings;

pub use error::{RecordError, Result};
pub use failpoint::failpoint;
pub use lock::CommitLock;
pub use path::{date_of, default_branch, title_of};
pub use publish::{check_revisable, commit_message, committed, path_for, publish, write};
pub use read_back::{checked_out_text, read_back, read_back_committed};
pub use render::{Rendered, Templates, sidecar_path};
pub use status::{current as current_status, lifecycle};
pub use worktree::WorkTree;

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
