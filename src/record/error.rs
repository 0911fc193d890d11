//! Why a record (or its issue draft) could not be written or committed, and what to
//! do about it.

use std::path::PathBuf;

/// Why the record (or its issue draft) could not be written or committed.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("git: {}", .0.message())]
    Git(#[from] git2::Error),
    #[error(transparent)]
    Repository(#[from] crate::repo::RepoError),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} already exists and is not this debate's record", .0.display())]
    Taken(PathBuf),
    #[error("the record path {} is outside the repository", .0.display())]
    Outside(PathBuf),
    #[error("{} is inside .git, where debate never reads or writes a record", .0.display())]
    InsideGit(PathBuf),
    #[error("cannot create branch {name}: {}", source.message())]
    Branch {
        name: String,
        #[source]
        source: git2::Error,
    },
    #[error("{0:?} is not a valid branch name")]
    InvalidBranchName(String),
    #[error("branch {0} already exists")]
    BranchExists(String),
    #[error("cannot read the template {}: {source}", path.display())]
    ReadTemplate {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("template {}: {source}", path.display())]
    Template {
        path: PathBuf,
        #[source]
        source: minijinja::Error,
    },
    #[error("cannot render {name}: {source}")]
    Render {
        name: &'static str,
        #[source]
        source: minijinja::Error,
    },
    #[error("the debate has no synthesis to record")]
    NoOutcome,
    #[error(
        "the record template hides the record's notices or its provenance (in an HTML comment, a <details> block or a code block it leaves open)"
    )]
    Hides,
    #[error("HEAD is detached: there is no branch to commit the record to")]
    Detached,
    #[error("{} stays locked: another git process is working in this repository", .0.display())]
    IndexLocked(PathBuf),
    #[error("{0} kept moving: other commits landed on it (or changed the record) while the record was being committed")]
    Busy(String),
    #[error("another debate command has been committing in this repository for a minute (it holds {})", .0.display())]
    Committing(PathBuf),
    #[error("{0}")]
    Sign(String),
    #[error("{} is a symbolic link{}: debate writes records only into directories inside the repository", path.display(), target.as_ref().map(|t| format!(" to {}", t.display())).unwrap_or_default())]
    Symlink { path: PathBuf, target: Option<PathBuf> },
    #[error("{} is a file, not a directory to write records into", .0.display())]
    NotADirectory(PathBuf),
    #[error("{} is not a regular file: debate reads and writes only plain files in the repository", .0.display())]
    NotAFile(PathBuf),
    #[error("the repository of {id} is no longer at {}", from.display())]
    Moved { id: String, from: PathBuf },
    #[error("{} states no status debate can change (front matter `status:`, a `* Status:` line or a `## Status` section)", .0.display())]
    NoStatus(PathBuf),
    #[error("{} has front matter that cannot be read: {problem}", path.display())]
    FrontMatter { path: PathBuf, problem: String },
    #[error("{} has changes that are not committed; marking it superseded would commit them too", .0.display())]
    Modified(PathBuf),
    #[error("{} has changes that are not committed; committing its new status would commit them too", .0.display())]
    Changed(PathBuf),
    #[error("{} has changes that are not committed; committing its scores would commit them too", .0.display())]
    Unsaved(PathBuf),
    #[error("{} is {status}: a superseded decision is no longer in force", path.display())]
    Superseded { path: PathBuf, status: String },
    #[error("{} has changes that are not committed; the review's rewrite of it would lose them", .0.display())]
    Edited(PathBuf),
    #[error("{} was edited in commits since the debate wrote it (commit {commit}){}; the review's rewrite would lose those edits", path.display(), if sections.is_empty() { String::new() } else { format!(", in {}", sections.join(", ")) })]
    EditedSinceCommit { path: PathBuf, commit: String, sections: Vec<String> },
    #[error("the checked-out branch does not hold {} as commit {commit} recorded it{}", path.display(), if branch.is_empty() { String::new() } else { format!(" (on {branch})") })]
    NotOnBranch { path: PathBuf, branch: String, commit: String },
    #[error("{} cannot be read back as its debate: {why}", path.display())]
    NotCarried { path: PathBuf, why: crate::record::read::carried::CarryError },
    #[error("{} was edited by hand since debate wrote it{}, so it is no longer the debate it carries", path.display(), if sections.is_empty() { String::new() } else { format!(" (in {})", sections.join(", ")) })]
    EditedByHand { path: PathBuf, sections: Vec<String> },
    #[error("the record debate rendered would not read back as its debate ({0}); nothing was written")]
    WouldNotReadBack(String),
    #[error("{} is larger than {} MiB, more than any record debate writes", path.display(), limit >> 20)]
    TooLarge { path: PathBuf, limit: usize },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl RecordError {
    pub fn exit_code(&self) -> u8 {
        match self {
            RecordError::InvalidBranchName(_)
            | RecordError::BranchExists(_)
            | RecordError::Superseded { .. }
            | RecordError::NotCarried { .. }
            | RecordError::TooLarge { .. }
            | RecordError::EditedByHand { .. } => 2,
            RecordError::ReadTemplate { .. } | RecordError::Template { .. } => 4,
            RecordError::WouldNotReadBack(_) => 1,
            // EX_TEMPFAIL: nothing was changed, and the same command may well work now.
            RecordError::Busy(_) | RecordError::Committing(_) => 75,
            RecordError::Repository(err) => err.exit_code(),
            _ => 5,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            RecordError::Repository(err) => return err.hint(),
            RecordError::Git(_) => {
                "the record file is kept; fix the repository and run `debate resume` again".into()
            }
            RecordError::Write { source, .. } if source.kind() == std::io::ErrorKind::StorageFull => {
                "the disk is full: free some space, then `debate resume ID` writes the record (the debate itself is kept)"
                    .into()
            }
            RecordError::Write { .. } => {
                "check that the directory is writable, then run `debate resume` again".into()
            }
            RecordError::Taken(_) => "move that file away and run `debate resume` again".into(),
            RecordError::Branch { .. } | RecordError::InvalidBranchName(_) | RecordError::BranchExists(_) => {
                "pass another name with --branch=NAME".into()
            }
            RecordError::ReadTemplate { .. } | RecordError::Template { .. } => {
                "fix the template or remove it to use the built-in one".into()
            }
            RecordError::Render { name, .. } => format!("check .debate/templates/{name}"),
            RecordError::Hides => "close what .debate/templates/decision.md opens, or remove it to use the built-in one".into(),
            RecordError::IndexLocked(lock) => format!(
                "when that git command is done (or, if none runs, after removing {}), run `debate resume`",
                lock.display()
            ),
            RecordError::Busy(_) => {
                "nothing of this command was committed or left in the work tree: look at what landed (`git log -1 -p`), then try again (`debate resume` for a debate)".into()
            }
            RecordError::Committing(_) => {
                "try again when it is done; if no debate command runs, another process holds the lock".into()
            }
            RecordError::Sign(_) => {
                "fix commit signing (check with `git commit -S --allow-empty`) or turn commit.gpgsign off, then `debate resume`"
                    .into()
            }
            RecordError::Moved { id, .. } => format!("run `debate resume {id}` inside the repository where it is now"),
            RecordError::Symlink { .. } | RecordError::NotADirectory(_) | RecordError::NotAFile(_) => {
                "make it a real directory inside the repository, or set record.directory to one".into()
            }
            RecordError::NoStatus(_) => "give it a status line first, or change it by hand".into(),
            RecordError::FrontMatter { .. } => "fix the front matter (each key once), then run the command again".into(),
            RecordError::Changed(path) => format!(
                "commit or stash the changes to {} first (or pass --no-commit to change the file only)",
                path.display()
            ),
            RecordError::Superseded { .. } => {
                "give the record that superseded it its status instead (its link is in the status)".into()
            }
            RecordError::Unsaved(path) => {
                format!("commit or stash the changes to {} first, then write the scores again", path.display())
            }
            RecordError::Read { .. } => "check the path and that the file is readable".into(),
            RecordError::WouldNotReadBack(_) => {
                "this is a defect of debate: please report it with this message; the debate is kept, and `debate resume ID` writes the record once it is fixed".into()
            }
            RecordError::NotCarried { .. } => {
                "show, review or answer it where the debate ran, or debate it anew with --supersedes".into()
            }
            RecordError::EditedByHand { path, .. } => format!(
                "see the edits with `git log -p -- {}`; debate it anew with --supersedes, or run the command where the debate ran",
                path.display()
            ),
            RecordError::EditedSinceCommit { path, commit, .. } => format!(
                "see them with `git diff {commit} -- {}`; give what they say as the review's --guide, then run it again with --discard-edits to rewrite the record from the debate",
                path.display()
            ),
            RecordError::Edited(path) => {
                format!("commit or stash the changes to {} first, then run the review again", path.display())
            }
            RecordError::NotOnBranch { branch, commit, .. } => match branch.is_empty() {
                true => format!("check out the branch that holds commit {commit} (`git branch --contains {commit}`), then run the review again"),
                false => format!("the branch {branch} is gone; check out the branch the record was merged into, then run the review again"),
            },
            RecordError::Modified(path) => {
                format!("commit or stash the changes to {} first, then run `debate resume`", path.display())
            }
            RecordError::Outside(_)
            | RecordError::InsideGit(_)
            | RecordError::TooLarge { .. }
            | RecordError::NoOutcome
            | RecordError::Detached => {
                return None;
            }
        })
    }
}

pub type Result<T, E = RecordError> = std::result::Result<T, E>;
