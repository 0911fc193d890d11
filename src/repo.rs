//! The git repository a command works in: finding it, opening it (never another user's
//! by mistake), who the user is in it, and what its HEAD holds. Writing and committing
//! records is `record`'s; this is only where the repository is and whose it is, read
//! as git reads it (its configuration and environment: `config`, `identity`).

pub mod config;
pub mod identity;
pub mod signing;

use std::path::{Path, PathBuf};

use git2::{ErrorCode, Oid, Repository, RepositoryOpenFlags, Signature};

pub use config::{GitConfig, open_as_git};
use identity::Role;

/// Why the repository around the work cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("cannot read the working directory: {0}")]
    WorkingDirectory(#[source] std::io::Error),
    #[error("cannot open the git repository at {}: {}", root.display(), source.message())]
    Open {
        root: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("{} is a bare git repository: there is no work tree to write a record into", .0.display())]
    Bare(PathBuf),
    #[error("git refuses the repository at {}: it belongs to another user", .0.display())]
    NotOwned(PathBuf),
    #[error("git: {}", .0.message())]
    Git(#[from] git2::Error),
    /// A variable git reads that holds what git would refuse.
    #[error("{0}")]
    Environment(String),
}

impl RepoError {
    pub fn exit_code(&self) -> u8 {
        match self {
            RepoError::WorkingDirectory(_) => 1,
            RepoError::Environment(_) => 4,
            _ => 5,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            RepoError::WorkingDirectory(_) => return None,
            RepoError::Environment(_) => "set it as git reads it, or unset it".into(),
            RepoError::Open { .. } | RepoError::Git(_) => {
                "the record file is kept; fix the repository and run `debate resume` again".into()
            }
            RepoError::Bare(_) => "run debate inside a checkout (a clone with a working tree)".into(),
            RepoError::NotOwned(path) => format!(
                "if you trust it, run `git config --global --add safe.directory {}` (as git asks), then run debate again",
                path.display()
            ),
        })
    }
}

pub type Result<T, E = RepoError> = std::result::Result<T, E>;

/// The repository at `root`; `None` when `root` is not in one.
pub fn open(root: &Path) -> Result<Option<Repository>> {
    match open_as_git(root) {
        Ok(repo) => Ok(Some(repo)),
        Err(err) if err.code() == ErrorCode::NotFound => Ok(None),
        Err(err) if err.code() == ErrorCode::Owner => Err(RepoError::NotOwned(root.to_path_buf())),
        Err(source) => Err(RepoError::Open { root: root.to_path_buf(), source }),
    }
}

/// The git work tree around `dir`, or `None` outside any repository. A bare repository
/// has none; one that libgit2 will not open (another user's) is an error, never taken
/// for "no repository".
pub fn work_tree(dir: &Path) -> Result<Option<PathBuf>> {
    match Repository::open_ext(dir, RepositoryOpenFlags::FROM_ENV, None::<&str>) {
        Ok(repo) => {
            repo.workdir().map(|w| Some(w.to_path_buf())).ok_or_else(|| RepoError::Bare(repo.path().to_path_buf()))
        }
        Err(err) if err.code() == ErrorCode::Owner => Err(RepoError::NotOwned(dir.to_path_buf())),
        Err(_) => Ok(None),
    }
}

/// The repository a command is about: the git work tree around the working directory,
/// else the working directory itself.
pub fn around_working_directory() -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(RepoError::WorkingDirectory)?;
    Ok(canonical(&work_tree(&cwd)?.unwrap_or(cwd)))
}

/// Where a command runs: the repository around the working directory (the command
/// line), or a repository a front end has chosen and checked (`debate mcp`'s tools, which
/// serve whichever repository the client names). Read when a command needs it, so one
/// that needs no repository runs anywhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Here {
    #[default]
    WorkingDirectory,
    /// A work tree's root, canonical.
    Repository(PathBuf),
}

impl Here {
    /// The repository the command is about.
    pub fn root(&self) -> Result<PathBuf> {
        match self {
            Here::WorkingDirectory => around_working_directory(),
            Here::Repository(root) => Ok(root.clone()),
        }
    }
}

/// One spelling of a directory: resolved, without the trailing slash git2 reports work
/// trees with, so paths compare and `--list` filters match.
pub fn canonical(path: &Path) -> PathBuf {
    let path = dunce::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    PathBuf::from(path.to_string_lossy().trim_end_matches('/'))
}

/// The commit HEAD is on, if it is on one: a debate keeps it to know its repository
/// again should the repository move.
pub fn head_id(root: &Path) -> Option<String> {
    let repo = open_as_git(root).ok()?;
    Some(repo.head().ok()?.target()?.to_string())
}

/// Whether the repository at `root` holds `commit`.
pub fn holds_commit(root: &Path, commit: &str) -> bool {
    let Ok(repo) = open_as_git(root) else { return false };
    Oid::from_str(commit).is_ok_and(|oid| repo.find_commit(oid).is_ok())
}

/// Who a commit is by and who commits it, as git would name them.
pub struct Identity {
    pub author: Signature<'static>,
    pub committer: Signature<'static>,
    /// Said when git would have found nobody.
    pub warning: Option<String>,
}

/// The author and committer of a commit in `repo`, as git finds them (the
/// `GIT_AUTHOR_*`/`GIT_COMMITTER_*` variables, then git's configuration); when git
/// would find nobody, "debate <debate@localhost>" with a warning.
pub fn identity(repo: &Repository) -> Result<Identity> {
    let config = GitConfig::of(repo);
    let mut warning = None;
    let mut signature = |role: Role| -> Result<Signature<'static>> {
        let when = identity::when(role).map_err(RepoError::Environment)?;
        if let Some(signature) = identity::signature(&identity::person(&config, role), &when) {
            return Ok(signature);
        }
        warning = Some("no git identity (user.name and user.email) is configured; committed as \"debate <debate@localhost>\" — set one with `git config --global user.email you@example.com`".to_string());
        Ok(Signature::new("debate", "debate@localhost", &when)?)
    };
    let author = signature(Role::Author)?;
    let committer = signature(Role::Committer)?;
    Ok(Identity { author, committer, warning })
}

/// The commit a pull request whose base is `rev` starts from: the merge base of `rev`
/// and HEAD. `None` when `rev` names no commit here.
pub fn merge_base(root: &Path, rev: &str) -> Result<Option<String>> {
    let Some(repo) = open(root)? else { return Ok(None) };
    let Ok(base) = repo.revparse_single(rev).and_then(|object| object.peel_to_commit()) else { return Ok(None) };
    let head = repo.head().and_then(|head| head.peel_to_commit())?;
    Ok(Some(repo.merge_base(base.id(), head.id())?.to_string()))
}

/// The files that differ between the merge base of `rev` and HEAD and the work tree
/// (the index's changes included), as paths in the repository: what a pull request
/// whose base is `rev` changes, as `git diff --name-only rev...` lists it. `None` when
/// `rev` names no commit here.
pub fn changed_since(root: &Path, rev: &str) -> Result<Option<Vec<String>>> {
    let Some(merge_base) = merge_base(root, rev)? else { return Ok(None) };
    let Some(repo) = open(root)? else { return Ok(None) };
    let merge_base = repo.find_commit(Oid::from_str(&merge_base)?)?;
    let diff = repo.diff_tree_to_workdir_with_index(Some(&merge_base.tree()?), None)?;
    let mut paths = Vec::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(path) = file.path().map(|p| p.to_string_lossy().replace('\\', "/"))
                && !paths.contains(&path)
            {
                paths.push(path);
            }
        }
    }
    Ok(Some(paths))
}

/// The name of the person who runs debate in `repo` (a commit's author, as git names
/// them), or in the user's git configuration outside a repository; `None` when none is
/// configured.
pub fn user_name(repo: Option<&Repository>) -> Option<String> {
    let config = match repo {
        Some(repo) => GitConfig::of(repo),
        None => GitConfig::user(),
    };
    identity::person(&config, Role::Author).name
}
