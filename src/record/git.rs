//! Committing exactly the record with libgit2 (SPEC §7 "Git").
//!
//! The commit's tree is HEAD's tree plus the record, built in an in-memory index, so
//! whatever else the user has staged or modified stays out of the commit and stays as
//! it was. On the current branch the record's own index entry is then refreshed so
//! `git status` is clean for it; with `--branch`, neither the index nor the working
//! tree is touched.

use std::path::Path;

use git2::{Commit, ErrorCode, Index, IndexEntry, IndexTime, Oid, Repository, Signature};

use super::{RecordError, Result};

/// Where the record's commit goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// On top of HEAD, on the checked-out branch.
    Head,
    /// On a new branch from HEAD; the checkout does not change.
    Branch(String),
}

/// The repository state the record meets.
pub enum Repo {
    /// Not inside a git repository.
    None,
    Found(Repository),
}

pub fn open(root: &Path) -> Result<Repo> {
    match Repository::open(root) {
        Ok(repo) => Ok(Repo::Found(repo)),
        Err(err) if err.code() == ErrorCode::NotFound => Ok(Repo::None),
        Err(source) => Err(RecordError::OpenRepository { root: root.to_path_buf(), source }),
    }
}

/// HEAD points at a commit rather than a branch.
pub fn is_detached(repo: &Repository) -> bool {
    repo.head_detached().unwrap_or(false)
}

/// The identity for the commit, and a warning when git config has none.
pub fn identity(repo: &Repository) -> Result<(Signature<'static>, Option<String>)> {
    match repo.signature() {
        Ok(signature) => Ok((signature, None)),
        Err(_) => {
            let fallback = Signature::now("debate", "debate@localhost")?;
            let warning = "no git identity (user.name and user.email) is configured; committed as \"debate <debate@localhost>\" — set one with `git config --global user.email you@example.com`".to_string();
            Ok((fallback, Some(warning)))
        }
    }
}

/// The commit already made for this debate, if any: looked for by its `Debate-Id:`
/// trailer near the tip of the target, so a resumed debate never commits twice.
pub fn find_existing(repo: &Repository, target: &Target, id: &str) -> Option<Oid> {
    let tip = match target {
        Target::Head => repo.head().ok()?.peel_to_commit().ok()?,
        Target::Branch(name) => repo.find_branch(name, git2::BranchType::Local).ok()?.get().peel_to_commit().ok()?,
    };
    let trailer = format!("Debate-Id: {id}");
    let mut commit = Some(tip);
    for _ in 0..50 {
        let current = commit?;
        if current.message().is_ok_and(|m| m.lines().any(|l| l.trim() == trailer)) {
            return Some(current.id());
        }
        commit = current.parent(0).ok();
    }
    None
}

/// Commit `content` as `relative` (a path inside the work tree) and nothing else.
pub fn commit_record(
    repo: &Repository,
    target: &Target,
    relative: &Path,
    content: &[u8],
    message: &str,
    signature: &Signature,
) -> Result<Oid> {
    let parent = head_commit(repo)?;
    let path = relative.to_string_lossy().replace('\\', "/");

    let mut index = Index::new()?;
    if let Some(parent) = &parent {
        index.read_tree(&parent.tree()?)?;
    }
    let blob = repo.blob(content)?;
    index.add(&entry(&path, blob, content.len()))?;
    let tree = repo.find_tree(index.write_tree_to(repo)?)?;
    let parents: Vec<&Commit> = parent.iter().collect();

    match target {
        Target::Head => {
            let commit = repo.commit(Some("HEAD"), signature, signature, message, &tree, &parents)?;
            // Stage exactly the record's entry, from the file just written, so its stat
            // data is right and `git status` shows nothing for it.
            let mut real = repo.index()?;
            real.add_path(relative)?;
            real.write()?;
            Ok(commit)
        }
        Target::Branch(name) => {
            let commit = repo.commit(None, signature, signature, message, &tree, &parents)?;
            let log = format!("debate: decision record on {name}");
            repo.reference(&format!("refs/heads/{name}"), commit, false, &log)
                .map_err(|source| RecordError::Branch { name: name.clone(), source })?;
            Ok(commit)
        }
    }
}

/// A branch name git accepts and that does not exist yet.
pub fn check_new_branch(repo: &Repository, name: &str) -> Result<()> {
    if !git2::Branch::name_is_valid(name).unwrap_or(false) {
        return Err(RecordError::InvalidBranchName(name.to_string()));
    }
    if repo.find_branch(name, git2::BranchType::Local).is_ok() {
        return Err(RecordError::BranchExists(name.to_string()));
    }
    Ok(())
}

/// The leading numbers of the files in `directory` on every local branch, so that
/// `{number}` never reuses a number another branch has taken.
pub fn numbers_on_branches(repo: &Repository, directory: &Path) -> Vec<u32> {
    let Ok(branches) = repo.branches(Some(git2::BranchType::Local)) else { return Vec::new() };
    let mut numbers = Vec::new();
    for (branch, _) in branches.flatten() {
        let Ok(tree) = branch.get().peel_to_tree() else { continue };
        let Ok(entry) = tree.get_path(directory) else { continue };
        let Ok(dir) = entry.to_object(repo).and_then(|o| o.peel_to_tree()) else { continue };
        numbers.extend(dir.iter().filter_map(|e| super::leading_number(e.name().ok()?)));
    }
    numbers
}

/// Whether HEAD's tree already has a file at `relative`.
pub fn exists_at_head(repo: &Repository, relative: &Path) -> bool {
    head_commit(repo).ok().flatten().and_then(|c| c.tree().ok()).is_some_and(|t| t.get_path(relative).is_ok())
}

fn head_commit(repo: &Repository) -> Result<Option<Commit<'_>>> {
    match repo.head() {
        Ok(head) => Ok(Some(head.peel_to_commit()?)),
        Err(err) if matches!(err.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

fn entry(path: &str, id: Oid, size: usize) -> IndexEntry {
    IndexEntry {
        ctime: IndexTime::new(0, 0),
        mtime: IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: 0o100_644,
        uid: 0,
        gid: 0,
        file_size: size as u32,
        id,
        flags: 0,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}
