//! The decision record: where it goes, writing it without ever overwriting, and
//! committing it (SPEC §7).

pub mod git;
pub mod index;
pub mod issue;
pub mod lifecycle;
mod links;
mod markdown;
pub mod render;
pub mod sign;
pub mod slug;
mod status;
pub mod supersede;
pub mod worktree;

use std::path::{Path, PathBuf};

use crate::model::{DebateState, Published, RecordSettings, TITLE_LIMIT};
use crate::text::untrusted::one_line;
use crate::text::{record_number, shorten};

pub use render::{Rendered, Templates, sidecar_path};
use sign::Signer;
pub use worktree::WorkTree;

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
    #[error("{} is {status}: a superseded decision is no longer in force", path.display())]
    Superseded { path: PathBuf, status: String },
    #[error("{} has changes that are not committed; the review's rewrite of it would lose them", .0.display())]
    Edited(PathBuf),
    #[error("{} was edited in commits since the debate wrote it (commit {commit}){}; the review's rewrite would lose those edits", path.display(), if sections.is_empty() { String::new() } else { format!(", in {}", sections.join(", ")) })]
    EditedSinceCommit { path: PathBuf, commit: String, sections: Vec<String> },
    #[error("the checked-out branch does not hold {} as commit {commit} recorded it{}", path.display(), if branch.is_empty() { String::new() } else { format!(" (on {branch})") })]
    NotOnBranch { path: PathBuf, branch: String, commit: String },
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
            RecordError::InvalidBranchName(_) | RecordError::BranchExists(_) | RecordError::Superseded { .. } => 2,
            RecordError::ReadTemplate { .. } | RecordError::Template { .. } => 4,
            RecordError::Repository(err) => err.exit_code(),
            _ => 5,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            RecordError::Repository(err) => return err.hint(),
            RecordError::Git(_) => {
                "the record file is kept; fix the repository and run `debate --resume` again".into()
            }
            RecordError::Write { source, .. } if source.raw_os_error() == Some(libc::ENOSPC) => {
                "the disk is full: free some space, then `debate --resume ID` writes the record (the debate itself is kept)"
                    .into()
            }
            RecordError::Write { .. } => {
                "check that the directory is writable, then run `debate --resume` again".into()
            }
            RecordError::Taken(_) => "move that file away and run `debate --resume` again".into(),
            RecordError::Branch { .. } | RecordError::InvalidBranchName(_) | RecordError::BranchExists(_) => {
                "pass another name with --branch=NAME".into()
            }
            RecordError::ReadTemplate { .. } | RecordError::Template { .. } => {
                "fix the template or remove it to use the built-in one".into()
            }
            RecordError::Render { name, .. } => format!("check .debate/templates/{name}"),
            RecordError::Hides => "close what .debate/templates/decision.md opens, or remove it to use the built-in one".into(),
            RecordError::IndexLocked(lock) => format!(
                "when that git command is done (or, if none runs, after removing {}), run `debate --resume`",
                lock.display()
            ),
            RecordError::Busy(_) => {
                "look at what landed (`git log -1 -p`), then run the command again (`debate --resume` for a debate)".into()
            }
            RecordError::Sign(_) => {
                "fix commit signing (check with `git commit -S --allow-empty`) or turn commit.gpgsign off, then `debate --resume`"
                    .into()
            }
            RecordError::Moved { id, .. } => format!("run `debate --resume {id}` inside the repository where it is now"),
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
            RecordError::Read { .. } => "check the path and that the file is readable".into(),
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
                format!("commit or stash the changes to {} first, then run `debate --resume`", path.display())
            }
            RecordError::Outside(_) | RecordError::NoOutcome | RecordError::Detached => return None,
        })
    }
}

pub type Result<T, E = RecordError> = std::result::Result<T, E>;

/// The record's path: `record.directory` under the repository root, named by
/// `record.filename`. A name taken in the working tree or at HEAD gets `-2`, `-3`, …
fn plan_path(state: &DebateState) -> Result<PathBuf> {
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
        .replace("{slug}", &slug::slug(&state.title))
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

/// Where this debate's record goes: the stored path, unless another record took that
/// name before this one was written or committed (two debates of one title on one
/// day); then a free one. `true` when the path is new and must be stored.
pub fn path_for(state: &DebateState, templates: &Templates) -> Result<(PathBuf, bool)> {
    if let Some(stored) = state.record_path.as_deref().map(PathBuf::from)
        && !taken_by_another(state, templates, &stored)?
    {
        return Ok((stored, false));
    }
    Ok((plan_path(state)?, true))
}

fn taken_by_another(state: &DebateState, templates: &Templates, path: &Path) -> Result<bool> {
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let on_disk = match WorkTree::open(root)?.read(relative)? {
        None => return Ok(false),
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
    };
    if holds(&on_disk, &state.id, &templates.decision(state, path)?.decision) {
        return Ok(false);
    }
    // Once committed, the file was this debate's: publishing says what became of it.
    let target = match &state.snapshot.branch {
        Some(name) => git::Target::Branch(name.clone()),
        None => git::Target::Head,
    };
    Ok(match crate::repo::open(Path::new(&state.repo_root))? {
        Some(repo) => git::find_existing(&repo, &target, &state.id, state.revisions.len()).is_none(),
        None => true,
    })
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

/// Write and commit the record as the settings and the repository allow. Repeating it
/// after a crash finds the file and the commit already there and does neither twice.
pub fn publish(state: &DebateState, templates: &Templates, path: &Path) -> Result<Published> {
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let mut published =
        Published { path: path.to_path_buf(), commit: None, branch: None, not_committed: None, warnings: Vec::new() };
    let repo = crate::repo::open(root)?;
    let branch = state.snapshot.branch.clone();
    let not_committed = match &repo {
        None => Some((
            "not a git repository",
            Some(format!("{} is not a git repository; the record was written but not committed", root.display())),
        )),
        Some(_) if !state.snapshot.record.commit => {
            Some(("committing is off (--no-commit or record.commit: false)", None))
        }
        Some(repo) if branch.is_none() && git::is_detached(repo) => Some((
            "HEAD is detached",
            Some(format!(
                "HEAD is detached, so the record was written but not committed; commit it yourself (git add {0} && git commit) or use --branch next time",
                relative.display()
            )),
        )),
        Some(_) => None,
    };
    // A record's branch that is checked out now (a review, say) is the checkout's: the
    // work tree and the index follow the commit.
    let checked_out = |name: &str| repo.as_ref().is_some_and(|repo| git::is_checked_out(repo, name));
    let target = match &branch {
        Some(name) if !checked_out(name) => git::Target::Branch(name.clone()),
        _ => git::Target::Head,
    };
    let committed_to = not_committed.is_none().then_some(&target);
    // Every earlier record is marked before anything is written, so one that cannot be
    // stops the recording with nothing changed.
    let superseded = supersede::changes(state, relative, repo.as_ref(), committed_to)?;
    let (Some(repo), None) = (repo, not_committed.as_ref()) else {
        write(state, templates, path)?;
        supersede::write(root, &superseded)?;
        let (why, warning) = not_committed.unwrap_or_default();
        published.not_committed = Some(why.to_string());
        published.warnings.extend(warning);
        return Ok(published);
    };
    let rendered = templates.decision(state, path)?;
    let sidecar = sidecar_path(relative).filter(|_| rendered.sidecar.is_some());
    // On the checked-out branch the files are written first, and committed as written
    // (a status a reviewer gave is kept); with --branch only the commit holds them.
    let (decision, transcript) = match &target {
        git::Target::Head => {
            write_rendered(state, path, rendered)?;
            supersede::write(root, &superseded)?;
            failpoint("after-record-write");
            let tree = WorkTree::open(root)?;
            let read = |relative: &Path| tree.read_existing(relative);
            (read(relative)?, sidecar.as_deref().map(read).transpose()?)
        }
        git::Target::Branch(name) => {
            // A review revises the record on its branch: the status reviewers gave it stays.
            let before = git::read_on_branch(&repo, name, relative).map(|b| String::from_utf8_lossy(&b).into_owned());
            let decision = match before {
                Some(before) if keeps_status(state) => status::keep(&before, &rendered.decision),
                _ => rendered.decision,
            };
            (decision.into_bytes(), rendered.sidecar.map(String::into_bytes))
        }
    };
    let mut changes = vec![git::Change { relative, content: &decision }];
    if let (Some(relative), Some(content)) = (&sidecar, &transcript) {
        changes.push(git::Change { relative, content });
    }
    changes.extend(superseded.iter().map(|s| git::Change { relative: &s.relative, content: &s.content }));
    let commit = match git::find_existing(&repo, &target, &state.id, state.revisions.len()) {
        // Made before a crash: the index may not have caught up with it.
        Some(commit) if target == git::Target::Head => {
            git::repair_index(&repo, commit)?;
            commit
        }
        Some(commit) => commit,
        None => {
            // A debate's first record makes its branch; only a revision adds to it.
            if let (git::Target::Branch(name), true) = (&target, state.revisions.is_empty()) {
                git::check_new_branch(&repo, name)?;
            }
            let (signature, warning) = crate::repo::identity(&repo)?;
            published.warnings.extend(warning);
            let signer = Signer::for_repository(&repo, signature.email().ok())?;
            let message = commit_message(state);
            let authored = git::Authored { message: &message, signature: &signature, signer: signer.as_ref() };
            let mut index = index::Indexer::new(&repo, &target, &state.snapshot.record);
            let commit = git::commit_record(&repo, &target, &changes, &mut |p, c| index.derive(p, c), &authored)?;
            published.warnings.extend(index.warnings());
            published.warnings.extend(hooks_warning(&repo));
            commit
        }
    };
    published.commit = Some(commit.to_string());
    published.branch = branch;
    Ok(published)
}

/// Whether a rewritten record keeps the status reviewers gave it: unless a review
/// changed the chosen option, which nobody has accepted yet.
fn keeps_status(state: &DebateState) -> bool {
    let chosen = state.outcome.as_ref().and_then(|o| o.synthesis.chosen_option.as_ref());
    state.revisions.last().is_none_or(|last| last.chosen_option.as_ref() == chosen)
}

/// Before a review spends anything: the record must be where its next commit goes, as
/// the debate last wrote it. On its own branch, that branch must exist; otherwise the
/// checked-out branch must hold the record's commit, and the file no edits of its own
/// (they would be lost in the rewrite) — nor, when it was never committed, any but a
/// status. Edits committed since the debate's commit (other than a status) stop it
/// too, unless `discard_edits`.
pub fn check_revisable(state: &DebateState, templates: &Templates, discard_edits: bool) -> Result<()> {
    let root = Path::new(&state.repo_root);
    let path = PathBuf::from(state.record_path.clone().unwrap_or_default());
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.clone()))?;
    let tree = WorkTree::open(root)?;
    let (Some(repo), Some(commit)) = (crate::repo::open(root)?, state.commit_id.as_deref()) else {
        // Never committed: the file must still be what the debate wrote.
        let written = tree.read(relative)?.map(|b| String::from_utf8_lossy(&b).into_owned());
        let rendered = templates.decision(state, &path)?.decision;
        return match written {
            Some(written) if status::keep(&written, &rendered) != written => Err(RecordError::Edited(path)),
            _ => Ok(()),
        };
    };
    let now = match &state.snapshot.branch {
        Some(name) if !git::is_checked_out(&repo, name) => {
            git::read_on_branch(&repo, name, relative).ok_or_else(|| RecordError::NotOnBranch {
                path: path.clone(),
                branch: name.clone(),
                commit: commit.to_string(),
            })?
        }
        _ => {
            if !git::head_contains(&repo, commit) {
                let branch = state.snapshot.branch.clone().unwrap_or_default();
                return Err(RecordError::NotOnBranch { path, branch, commit: commit.to_string() });
            }
            let on_disk = tree.read_existing(relative)?;
            match git::read_at_head(&repo, relative) {
                Some(committed) if committed == on_disk => committed,
                _ => return Err(RecordError::Edited(path)),
            }
        }
    };
    if discard_edits {
        return Ok(());
    }
    let ours = git::read_at(&repo, commit, relative).unwrap_or_default();
    let (now, ours) = (String::from_utf8_lossy(&now), String::from_utf8_lossy(&ours));
    if status::keep(&now, &ours) == now {
        return Ok(());
    }
    Err(RecordError::EditedSinceCommit {
        sections: crate::adr::sections_that_differ(&ours, &now),
        commit: commit.chars().take(7).collect(),
        path,
    })
}

/// The record as the debate's commit holds it (a `--branch` record is in no work tree).
pub fn committed(state: &DebateState) -> Option<Vec<u8>> {
    let root = Path::new(&state.repo_root);
    let repo = crate::repo::open(root).ok()??;
    let commit = repo.find_commit(git2::Oid::from_str(state.commit_id.as_deref()?).ok()?).ok()?;
    let relative = Path::new(state.record_path.as_deref()?).strip_prefix(root).ok()?;
    git::read_in(&repo, Some(&commit.tree().ok()?), relative)
}

/// Which of git's commit hooks exist but did not run, if any do.
fn hooks_warning(repo: &git2::Repository) -> Option<String> {
    let hooks = git::hooks_not_run(repo);
    (!hooks.is_empty()).then(|| {
        format!(
            "the {} hook{} did not run: debate commits only the record, with libgit2, and runs no hooks",
            hooks.join(", "),
            if hooks.len() == 1 { "" } else { "s" }
        )
    })
}

/// `docs(decisions): <title>`, then the question, panel, confidence and end reason, and
/// the `Debate-Id:` trailer that makes recording idempotent.
/// Every value on one line of its own, so nothing in the question or a perspective's
/// name can add a line, a paragraph or a trailer of its own.
pub fn commit_message(state: &DebateState) -> String {
    let subject = shorten(&one_line(state.decision_title()), TITLE_LIMIT);
    let question: String = one_line(&state.question).chars().take(600).collect();
    let confidence = state.outcome.as_ref().map_or("unknown", |o| o.confidence.as_str());
    let ended = state.end_reason.map_or("unknown", |r| r.as_str());
    let superseded: Vec<&str> = state.snapshot.supersedes.iter().map(|d| d.path.as_str()).collect();
    let supersedes = match superseded.is_empty() {
        true => String::new(),
        false => format!("Supersedes: {}\n", one_line(&superseded.join(", "))),
    };
    let (verb, revision) = match state.revisions.last() {
        None => ("", String::new()),
        Some(last) => ("revise ", format!("Reopened by: {}\n", one_line(&last.reopened_by))),
    };
    let trailer = match state.revisions.len() {
        0 => String::new(),
        n => format!("Revision: {n}\n"),
    };
    format!(
        "docs(decisions): {verb}{subject}\n\nQuestion: {question}\nPerspectives: {}\nConfidence: {confidence}\nEnded by: {ended}\n{supersedes}{revision}\nDebate-Id: {}\n{trailer}",
        one_line(&state.panel_names().join(", ")),
        state.id
    )
}

/// Test hook, in test builds only (the `failpoints` feature): `DEBATE_FAILPOINT=<name>`
/// aborts the process at that point, as a crash would, so tests can check that
/// `--resume` repairs every half-finished recording; `<name>:sleep=<ms>` waits there
/// instead, so a test can make another process act in between.
#[cfg(feature = "failpoints")]
pub fn failpoint(name: &str) {
    let Ok(set) = std::env::var("DEBATE_FAILPOINT") else { return };
    match set.split_once(":sleep=") {
        Some((at, ms)) if at == name => std::thread::sleep(std::time::Duration::from_millis(ms.parse().unwrap_or(0))),
        None if set == name => std::process::abort(),
        _ => {}
    }
}

#[cfg(not(feature = "failpoints"))]
pub fn failpoint(_name: &str) {}

/// The text at `relative` is this debate's record or transcript: its front matter or
/// its heading names the debate, or (with a template that writes no id) it holds
/// exactly what the debate renders.
fn holds(text: &str, id: &str, rendered: &str) -> bool {
    text == rendered
        || text.lines().take(30).any(|l| l.trim() == format!("id: {id}"))
        || text.starts_with(&format!("# Transcript of {id}:"))
}

/// Render and write the record (and its transcript, when that goes beside it). Already
/// there as rendered (a resumed debate): nothing to do; this debate's, but older (a
/// review revised it): replaced, keeping the status a reviewer gave it. Each file appears
/// whole or not at all, and never over another's file.
pub fn write(state: &DebateState, templates: &Templates, path: &Path) -> Result<()> {
    write_rendered(state, path, templates.decision(state, path)?)
}

fn write_rendered(state: &DebateState, path: &Path, rendered: Rendered) -> Result<()> {
    write_ours(state, path, rendered.decision, keeps_status(state))?;
    if let (Some(sidecar), Some(text)) = (sidecar_path(path), rendered.sidecar) {
        write_ours(state, &sidecar, text, false)?;
    }
    Ok(())
}

fn write_ours(state: &DebateState, path: &Path, text: String, keep_status: bool) -> Result<()> {
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let tree = WorkTree::open(root)?;
    let Some(before) = tree.read(relative)? else {
        return tree.create(relative, text.as_bytes());
    };
    let before = String::from_utf8_lossy(&before);
    if !holds(&before, &state.id, &text) {
        return Err(RecordError::Taken(path.to_path_buf()));
    }
    let text = if keep_status { status::keep(&before, &text) } else { text };
    if before == text {
        return Ok(());
    }
    tree.replace(relative, text.as_bytes())
}

/// Whether debate can write records there, and commit them if it is to: checked before
/// a debate spends anything, and again when the record is written.
pub fn preflight(repo_root: &Path, settings: &RecordSettings, on_branch: bool) -> Result<()> {
    check_directory(repo_root, Path::new(&settings.directory.0))?;
    let Some(repo) = crate::repo::open(repo_root)? else { return Ok(()) };
    let commits = settings.commit && (on_branch || !git::is_detached(&repo));
    if commits {
        let (signature, _) = crate::repo::identity(&repo)?;
        if let Some(signer) = Signer::for_repository(&repo, signature.email().ok())? {
            signer.check()?;
        }
    }
    Ok(())
}

/// Every existing part of `directory` under the root is a real directory (no symbolic
/// link that could lead the record out of the work tree, nor a commit that would
/// replace the link), and the deepest one takes a new file.
fn check_directory(root: &Path, directory: &Path) -> Result<()> {
    WorkTree::open(root)?.check_directory(directory)
}

/// Replace the file at `relative` under `root` with `content`, whole or not at all,
/// keeping its permissions.
fn replace_file(root: &Path, relative: &Path, content: &[u8]) -> Result<()> {
    WorkTree::open(root)?.replace(relative, content)
}

/// A short title from the question: its first line, without a trailing `?`, at most
/// 72 characters and never cut mid-word.
pub fn title_of(question: &str) -> String {
    let line = question.lines().map(one_line).find(|l| !l.is_empty()).unwrap_or_default();
    shorten(line.trim_end_matches(['?', '.', '!', ' ']), TITLE_LIMIT)
}
