//! The decision record (docs/guide.md, "The decision record"), in rooms by job: how it
//! is rendered, how it is written and committed, how a committed one is read back, its
//! life after the commit, and the drafts it asks for.

pub mod drafts;
mod error;
mod failpoint;
pub mod lifecycle;
pub mod read;
pub mod render;
pub mod seal;
pub mod write;

pub use error::{RecordError, Result};
pub use failpoint::failpoint;
pub use lifecycle::status::{current as current_status, lifecycle};
pub use read::back::{checked_out_text, read_back, read_back_committed};
pub use render::{Rendered, Templates, sidecar_path};
pub use write::lock::CommitLock;
pub use write::path::{date_of, default_branch, title_of};
pub use write::preflight::preflight;
pub use write::publish::{check_revisable, commit_message, committed, path_for, publish};
pub use write::worktree::WorkTree;
