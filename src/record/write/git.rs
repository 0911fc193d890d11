//! Committing exactly the record with libgit2 (docs/guide.md, "Git").
//!
//! The commit's tree is the branch tip's tree plus the record, built in an in-memory
//! index, so whatever else the user has staged or modified stays out of the commit and
//! stays as it was. The branch moves by compare-and-swap: a commit that another one
//! beat to the branch is made again on top of it. On the current branch the record's
//! own index entry is then refreshed so `git status` is clean for it; with `--branch`,
//! neither the index nor the working tree is touched. A commit git would sign
//! (`commit.gpgsign`) is signed. Hooks are not run; `hooks_not_run` says which exist.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use git2::{Commit, ErrorCode, Index, IndexEntry, IndexTime, Oid, Repository, Signature, Tree};

use crate::record::write::sign::Signer;
use crate::record::{RecordError, Result, failpoint};
use crate::text::record_number;

/// How long the index may stay locked by another process before the record is given up
/// on (git itself gives up at once).
const INDEX_PATIENCE: Duration = Duration::from_secs(2);
/// How often a commit that lost the race to the branch is made again.
const ATTEMPTS: usize = 10;

/// Where the record's commit goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// On top of HEAD, on the checked-out branch.
    Head,
    /// On a new branch from HEAD; the checkout does not change.
    Branch(String),
}

/// HEAD is `commit` or comes after it: the checked-out branch holds what it recorded.
pub fn head_contains(repo: &Repository, commit: &str) -> bool {
    let (Ok(Some(head)), Ok(commit)) = (head_commit(repo), Oid::from_str(commit)) else { return false };
    head.id() == commit || repo.graph_descendant_of(head.id(), commit).unwrap_or(false)
}

/// The checked-out branch is `name`.
pub fn is_checked_out(repo: &Repository, name: &str) -> bool {
    repo.find_reference("HEAD").ok().and_then(|head| head.symbolic_target().ok().flatten().map(str::to_string))
        == Some(format!("refs/heads/{name}"))
}

/// The `git push` that sends the checked-out branch to its upstream, when it has one (a
/// pull request's branch checked out for a review, say).
pub fn push_to_upstream(repo: &Repository) -> Option<String> {
    let head = repo.head().ok().filter(|head| head.is_branch())?;
    let local = head.shorthand().ok()?.to_string();
    let refname = head.name().ok()?;
    let remote = repo.branch_upstream_remote(refname).ok()?;
    let remote = remote.as_str().ok()?.to_string();
    let upstream = repo.branch_upstream_name(refname).ok()?;
    let upstream = upstream.as_str().ok()?.strip_prefix(&format!("refs/remotes/{remote}/"))?.to_string();
    let quote = crate::text::shell_quote;
    Some(match upstream == local {
        true => format!("git push {} {}", quote(&remote), quote(&local)),
        false => format!("git push {} {}", quote(&remote), quote(&format!("HEAD:{upstream}"))),
    })
}

/// The file at `relative` on the tip of branch `name`.
pub fn read_on_branch(repo: &Repository, name: &str, relative: &Path) -> Option<Vec<u8>> {
    let tip = repo.find_branch(name, git2::BranchType::Local).ok()?.get().peel_to_commit().ok()?;
    read_in(repo, Some(&tip.tree().ok()?), relative)
}

/// HEAD points at a commit rather than a branch.
pub fn is_detached(repo: &Repository) -> bool {
    repo.head_detached().unwrap_or(false)
}

/// The web page of `relative` on `branch` (else the checked-out branch) at the remote
/// `origin`, when that is a GitHub, GitLab, Bitbucket or Codeberg address: the branch
/// and the URL. The remote is the repository's own setting, so only an address made of
/// plain characters becomes a link.
pub fn web_url(root: &Path, branch: Option<&str>, relative: &str) -> Option<(String, String)> {
    let Ok(Some(repo)) = crate::repo::open(root) else { return None };
    let remote = repo.find_remote("origin").ok()?;
    let (host, path) = forge_path(remote.url().ok()?)?;
    let branch = match branch {
        Some(name) => name.to_string(),
        None => repo.head().ok()?.shorthand().ok()?.to_string(),
    };
    let plain = |text: &str| text.chars().all(|c| c.is_ascii_alphanumeric() || "-._/".contains(c));
    if !plain(&host) || !plain(&path) || !plain(&branch) {
        return None;
    }
    let file = crate::record::render::links::relative("", relative);
    Some((branch.clone(), format!("https://{host}/{path}/blob/{branch}/{file}")))
}

/// `git@github.com:o/r.git`, `https://github.com/o/r`, `ssh://git@github.com/o/r.git`
/// → (`github.com`, `o/r`), for the forges whose file pages are `/blob/<branch>/…`.
fn forge_path(url: &str) -> Option<(String, String)> {
    let (with_scheme, rest) = url.split_once("://").map_or((false, url), |(_, rest)| (true, rest));
    let rest = rest.split_once('@').map_or(rest, |(_, host)| host);
    // `host:port/path` with a scheme; scp-like `host:path` without one.
    let (host, path) = if with_scheme { rest.split_once('/')? } else { rest.split_once(':')? };
    let host = host.split(':').next()?.to_lowercase();
    let path = path.trim_matches('/').trim_end_matches(".git");
    let known = ["github.com", "gitlab.com", "codeberg.org", "bitbucket.org"];
    (known.contains(&host.as_str()) && path.split('/').count() >= 2).then(|| (host, path.to_string()))
}

/// Keep `pattern` out of git in this clone (`.git/info/exclude`), once; a repository
/// that cannot take it is left as it is.
pub fn exclude(root: &Path, pattern: &str) {
    let Ok(Some(repo)) = crate::repo::open(root) else { return };
    let path = repo.path().join("info").join("exclude");
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    if existing.lines().any(|l| l.trim() == pattern) {
        return;
    }
    let separator = if existing.is_empty() || existing.ends_with('\n') { "" } else { "\n" };
    let _ = std::fs::create_dir_all(repo.path().join("info"))
        .and_then(|_| std::fs::write(&path, format!("{existing}{separator}# debate's own files\n{pattern}\n")));
}

/// The commit already made for this revision of this debate's record, if any: looked
/// for by its `Debate-Id:` and `Revision:` trailers near the tip of the target, so a
/// resumed debate never commits twice. The first record has no `Revision:` trailer.
pub fn find_existing(repo: &Repository, target: &Target, id: &str, revision: usize) -> Option<Oid> {
    let tip = match target {
        Target::Head => repo.head().ok()?.peel_to_commit().ok()?,
        Target::Branch(name) => repo.find_branch(name, git2::BranchType::Local).ok()?.get().peel_to_commit().ok()?,
    };
    let trailer = format!("Debate-Id: {id}");
    let records = |message: &str| {
        let trailers: Vec<&str> = message.lines().map(str::trim).collect();
        let revised = trailers.iter().find_map(|l| l.strip_prefix("Revision: ")).and_then(|n| n.parse().ok());
        // A status or scores committed since are the record's, not its recording.
        trailers.contains(&trailer.as_str())
            && !trailers.iter().any(|l| l.starts_with("Debate-Status: ") || l.starts_with("Debate-Evaluation: "))
            && revised.unwrap_or(0) == revision
    };
    let mut commit = Some(tip);
    for _ in 0..50 {
        let current = commit?;
        if current.message().is_ok_and(records) {
            return Some(current.id());
        }
        commit = current.parent(0).ok();
    }
    None
}

/// What a commit is made of, besides its tree and parent.
pub struct Authored<'a> {
    pub message: &'a str,
    pub author: &'a Signature<'a>,
    pub committer: &'a Signature<'a>,
    pub signer: Option<&'a Signer>,
}

/// A file a commit writes: its path inside the work tree, and its content.
pub struct Change<'a> {
    pub relative: &'a Path,
    pub content: &'a [u8],
}

/// A file made from the tree a commit is made on (the decisions index), with `changes`
/// applied: its path inside the work tree, and its content.
pub struct Derived {
    pub relative: PathBuf,
    pub content: Vec<u8>,
}

/// What makes the derived files of a commit on a parent (`None`: a root commit), asked
/// again whenever the commit is made again on a newer tip. On the checked-out branch it
/// writes each file into the work tree as well, so the file is staged as committed.
pub type Derive<'a> = dyn FnMut(Option<&Tree>, &[Change]) -> Result<Vec<Derived>> + 'a;

/// Commit exactly `changes` (the record, and any earlier record it supersedes), the
/// files `derive` makes from the tree they land on, and nothing else.
pub fn commit_record(
    repo: &Repository,
    target: &Target,
    changes: &[Change],
    derive: &mut Derive,
    authored: &Authored,
) -> Result<Oid> {
    let reference = match target {
        Target::Head => {
            let head = repo.find_reference("HEAD")?;
            head.symbolic_target().ok().flatten().map(str::to_string).ok_or(RecordError::Detached)?
        }
        Target::Branch(name) => format!("refs/heads/{name}"),
    };
    if *target == Target::Head {
        wait_for_index(repo)?;
    }
    let blobs =
        changes.iter().map(|change| blob_of(repo, change.relative, change.content)).collect::<Result<Vec<_>>>()?;
    // What each changed path held when the changes were made: a commit another process
    // lands first may touch the record too, and then remaking ours on top would undo it.
    let mut based_on: Option<Vec<Option<Oid>>> = None;
    for _ in 0..ATTEMPTS {
        // On the current branch, or a record branch made before (a review revises the
        // record there), the parent is its tip now; a new branch starts at HEAD.
        let tip = repo.find_reference(&reference).ok().and_then(|r| r.target());
        let parent = match target {
            Target::Head => tip,
            Target::Branch(_) => tip.or(head_commit(repo)?.map(|c| c.id())),
        };
        let parent = parent.map(|id| repo.find_commit(id)).transpose()?;
        let parent_tree = parent.as_ref().map(Commit::tree).transpose()?;
        let held: Vec<Option<Oid>> = changes
            .iter()
            .map(|change| parent_tree.as_ref().and_then(|t| t.get_path(change.relative).ok()).map(|e| e.id()))
            .collect();
        match &based_on {
            None => based_on = Some(held),
            Some(base) if *base != held => return Err(RecordError::Busy(reference)),
            Some(_) => {}
        }
        let derived = derive(parent.as_ref().map(Commit::tree).transpose()?.as_ref(), changes)?;
        let mut blobs = blobs.clone();
        for file in &derived {
            blobs.push(blob_of(repo, &file.relative, &file.content)?);
        }
        let tree = tree_with(repo, parent.as_ref(), &blobs)?;
        let commit = create_commit(repo, &tree, parent.as_ref(), authored)?;
        failpoint("before-ref-update");
        let log = format!("commit: {}", authored.message.lines().next().unwrap_or(""));
        let moved = match tip {
            Some(tip) => repo.reference_matching(&reference, commit, true, tip, &log),
            None => repo.reference(&reference, commit, false, &log),
        };
        match moved {
            Ok(_) => {
                if *target == Target::Head {
                    failpoint("after-commit-before-index");
                    for relative in
                        changes.iter().map(|c| c.relative).chain(derived.iter().map(|d| d.relative.as_path()))
                    {
                        stage(repo, relative)?;
                    }
                }
                return Ok(commit);
            }
            // Another commit reached the branch first: make ours again on top of it.
            Err(err)
                if (*target == Target::Head || tip.is_some())
                    && matches!(err.code(), ErrorCode::Modified | ErrorCode::Exists) => {}
            Err(source) => {
                return Err(match target {
                    Target::Branch(name) => RecordError::Branch { name: name.clone(), source },
                    Target::Head => source.into(),
                });
            }
        }
    }
    Err(RecordError::Busy(reference))
}

/// A file's blob, its bytes through the secret gate first (a `--branch` record reaches
/// no work tree before its commit).
fn blob_of(repo: &Repository, relative: &Path, content: &[u8]) -> Result<(String, Oid, usize)> {
    let content = crate::text::secrets::gate_bytes(content);
    Ok((git_path(relative), repo.blob(&content)?, content.len()))
}

/// A path as git's trees name it.
fn git_path(relative: &Path) -> String {
    relative.to_string_lossy().replace('\\', "/")
}

/// `parent`'s tree with each blob at its path.
fn tree_with<'r>(repo: &'r Repository, parent: Option<&Commit>, blobs: &[(String, Oid, usize)]) -> Result<Tree<'r>> {
    let mut index = Index::new()?;
    if let Some(parent) = parent {
        let tree = parent.tree()?;
        for (path, _, _) in blobs {
            refuse_links(&tree, path)?;
        }
        index.read_tree(&tree)?;
    }
    for (path, blob, size) in blobs {
        index.add(&entry(path, *blob, *size))?;
    }
    Ok(repo.find_tree(index.write_tree_to(repo)?)?)
}

/// No part of `path` is a symbolic link in `tree`: a commit would otherwise replace the
/// link with a directory, or a file behind it.
fn refuse_links(tree: &Tree, path: &str) -> Result<()> {
    let mut at = std::path::PathBuf::new();
    for part in Path::new(path).components() {
        at.push(part);
        match tree.get_path(&at) {
            Ok(entry) if entry.filemode() == i32::from(git2::FileMode::Link) => {
                return Err(RecordError::Symlink { path: at, target: None });
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// The commit object, signed when git would sign it; no reference moves yet.
fn create_commit(repo: &Repository, tree: &Tree, parent: Option<&Commit>, authored: &Authored) -> Result<Oid> {
    let parents: Vec<&Commit> = parent.into_iter().collect();
    let message = crate::text::secrets::gate(authored.message);
    let (author, committer, message) = (authored.author, authored.committer, message.as_str());
    let Some(signer) = authored.signer else {
        return Ok(repo.commit(None, author, committer, message, tree, &parents)?);
    };
    let buffer = repo.commit_create_buffer(author, committer, message, tree, &parents)?;
    let text = buffer.as_str().map_err(|_| RecordError::Sign("the commit is not valid UTF-8".into()))?;
    let signed = signer.sign(text)?;
    Ok(repo.commit_signed(text, &signed, Some("gpgsig"))?)
}

/// Wait, briefly, for another process to finish with the index: committing while the
/// index is locked would leave the index behind the commit.
fn wait_for_index(repo: &Repository) -> Result<()> {
    let lock = repo.path().join("index.lock");
    let started = Instant::now();
    while lock.exists() {
        if started.elapsed() > INDEX_PATIENCE {
            return Err(RecordError::IndexLocked(lock));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}

/// Stage exactly the record's entry, from the file just written, so its stat data is
/// right and `git status` shows nothing for it; a lock another process holds for a
/// moment is waited out.
fn stage(repo: &Repository, relative: &Path) -> Result<()> {
    let started = Instant::now();
    loop {
        let mut index = repo.index()?;
        index.read(true)?;
        index.add_path(relative)?;
        match index.write() {
            Ok(()) => return Ok(()),
            Err(err) if err.code() == ErrorCode::Locked && started.elapsed() < INDEX_PATIENCE => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(err) if err.code() == ErrorCode::Locked => {
                return Err(RecordError::IndexLocked(repo.path().join("index.lock")));
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// A resumed recording whose commit exists: make sure the index agrees with it for
/// every file the commit added or changed (a process stopped between committing and
/// staging leaves the index behind, and the user's next `git commit -a` would delete
/// the record).
pub fn repair_index(repo: &Repository, commit: Oid) -> Result<()> {
    let made = repo.find_commit(commit)?;
    let before = made.parent(0).ok().map(|p| p.tree()).transpose()?;
    let diff = repo.diff_tree_to_tree(before.as_ref(), Some(&made.tree()?), None)?;
    let paths: Vec<PathBuf> = diff.deltas().filter_map(|d| d.new_file().path().map(Path::to_path_buf)).collect();
    for relative in paths {
        if made.tree()?.get_path(&relative).is_ok() {
            repair_entry(repo, &relative, commit)?;
        }
    }
    Ok(())
}

/// The index entry of `relative` as `commit` has it.
fn repair_entry(repo: &Repository, relative: &Path, commit: Oid) -> Result<()> {
    let committed = repo.find_commit(commit)?.tree()?.get_path(relative)?.id();
    let index = repo.index()?;
    if index.get_path(relative, 0).is_some_and(|e| e.id == committed) {
        return Ok(());
    }
    wait_for_index(repo)?;
    let on_disk = repo.workdir().map(|dir| dir.join(relative)).and_then(|p| std::fs::read(p).ok());
    match on_disk {
        Some(bytes) if Oid::hash_object(git2::ObjectType::Blob, &bytes)? == committed => stage(repo, relative),
        // The file changed since: stage what was committed, and let git show the change.
        _ => {
            let mut index = repo.index()?;
            let size = repo.find_blob(committed)?.size();
            index.add(&entry(&git_path(relative), committed, size))?;
            Ok(index.write()?)
        }
    }
}

/// The hooks git would run on a commit that exist here; debate commits with libgit2
/// and runs none of them.
pub fn hooks_not_run(repo: &Repository) -> Vec<String> {
    let configured = crate::repo::GitConfig::of(repo).path("core.hooksPath");
    let dir = match configured {
        Some(dir) if dir.is_relative() => repo.workdir().unwrap_or(repo.path()).join(dir),
        Some(dir) => dir,
        None => repo.path().join("hooks"),
    };
    ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"]
        .into_iter()
        .filter(|hook| std::fs::metadata(dir.join(hook)).is_ok_and(|m| crate::platform::files::runs_as_hook(&m)))
        .map(str::to_string)
        .collect()
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
        numbers.extend(dir.iter().filter_map(|e| record_number(e.name().ok()?)));
    }
    numbers
}

/// The content of the file at `relative` as HEAD has it.
pub fn read_at_head(repo: &Repository, relative: &Path) -> Option<Vec<u8>> {
    read_in(repo, Some(&head_commit(repo).ok()??.tree().ok()?), relative)
}

/// The content of the file at `relative` in `commit` (a full or unique short id).
pub fn read_at(repo: &Repository, commit: &str, relative: &Path) -> Option<Vec<u8>> {
    let commit = repo.revparse_single(commit).ok()?.peel_to_commit().ok()?;
    read_in(repo, Some(&commit.tree().ok()?), relative)
}

/// The record carrying `id` among the files `commit` changed (a debate's record commit
/// writes its record), as that commit holds it: found by its id wherever it moved since.
pub fn record_written_in(repo: &Repository, commit: &str, id: &str) -> Option<Vec<u8>> {
    let commit = repo.revparse_single(commit).ok()?.peel_to_commit().ok()?;
    let tree = commit.tree().ok()?;
    let parent = commit.parent(0).ok().and_then(|parent| parent.tree().ok());
    let diff = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), None).ok()?;
    let wanted = format!("id: {}", id.to_lowercase());
    diff.deltas().filter_map(|delta| delta.new_file().path().map(Path::to_path_buf)).find_map(|path| {
        let bytes = read_in(repo, Some(&tree), &path)?;
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]).to_lowercase();
        text.lines().take(30).any(|line| line.trim() == wanted).then_some(bytes)
    })
}

/// Whether the work tree's bytes are the committed ones, as git compares them: a clone
/// with `core.autocrlf` checks text out with CRLF and commits it back with LF.
pub fn same_content(on_disk: &[u8], committed: &[u8]) -> bool {
    if on_disk == committed {
        return true;
    }
    let lf: Vec<u8> = on_disk
        .iter()
        .enumerate()
        .filter(|(at, b)| !(**b == b'\r' && on_disk.get(at + 1) == Some(&b'\n')))
        .map(|(_, b)| *b)
        .collect();
    lf.len() != on_disk.len() && lf == committed
}

/// The content of the file at `relative` in `tree`.
pub fn read_in(repo: &Repository, tree: Option<&Tree>, relative: &Path) -> Option<Vec<u8>> {
    let blob = tree?.get_path(relative).ok()?.to_object(repo).ok()?.peel_to_blob().ok()?;
    Some(blob.content().to_vec())
}

/// The files directly in `directory` of `tree` (no links, no subdirectories), by name,
/// in name order.
pub fn files_in(repo: &Repository, tree: Option<&Tree>, directory: &Path) -> Vec<(String, Vec<u8>)> {
    let Some(tree) = tree else { return Vec::new() };
    let listed = match directory.as_os_str().is_empty() {
        true => Some(tree.clone()),
        false => tree.get_path(directory).ok().and_then(|e| e.to_object(repo).ok()?.peel_to_tree().ok()),
    };
    let Some(listed) = listed else { return Vec::new() };
    listed
        .iter()
        .filter(|e| matches!(e.filemode(), 0o100_644 | 0o100_755))
        .filter_map(|e| Some((e.name().ok()?.to_string(), repo.find_blob(e.id()).ok()?.content().to_vec())))
        .collect()
}

/// The blob id the index stages for `relative`, if it stages one.
pub fn staged_id(repo: &Repository, relative: &Path) -> Option<Oid> {
    let mut index = repo.index().ok()?;
    index.read(false).ok()?;
    index.get_path(relative, 0).map(|e| e.id)
}

/// The id git gives `bytes` as a file.
pub fn blob_id(bytes: &[u8]) -> Result<Oid> {
    Ok(Oid::hash_object(git2::ObjectType::Blob, bytes)?)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forge_addresses_become_web_paths() {
        for url in [
            "git@github.com:acme/shop.git",
            "https://github.com/acme/shop",
            "https://user@github.com/acme/shop.git",
            "ssh://git@github.com:22/acme/shop.git",
        ] {
            assert_eq!(forge_path(url), Some(("github.com".into(), "acme/shop".into())), "{url}");
        }
        assert_eq!(forge_path("https://gitlab.com/group/sub/repo.git").unwrap().1, "group/sub/repo");
        assert_eq!(forge_path("/srv/git/shop.git"), None, "a local path is no web page");
        assert_eq!(forge_path("https://example.com/acme/shop"), None, "an unknown host");
    }
}
