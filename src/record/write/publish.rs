//! Writing the record into the work tree (whole or not at all, never over another's
//! file) and committing it; and what a review checks before it rewrites one.

use std::path::{Path, PathBuf};

use crate::model::{DebateState, Published, TITLE_LIMIT};
use crate::record::drafts::pull_request;
use crate::record::error::{RecordError, Result};
use crate::record::failpoint::failpoint;
use crate::record::read::carried::CarryError;
use crate::record::read_back_committed;
use crate::record::render::{Rendered, Templates, sidecar_path};
use crate::record::seal::{self, Act, Sealer};
use crate::record::write::commit::{self, Written};
use crate::record::write::git;
use crate::record::write::lock::CommitLock;
use crate::record::write::path::plan_path;
use crate::record::write::worktree::WorkTree;
use crate::record::{lifecycle::status, lifecycle::supersede};
use crate::text::shorten;
use crate::text::untrusted::one_line;

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
    if holds(seal::unsealed(&on_disk), &state.id, &templates.decision(state, path)?.decision) {
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

/// Write and commit the record as the settings and the repository allow, sealed (and
/// signed, when `sealer` has a key that can). Repeating it after a crash finds the file
/// and the commit already there and does neither twice.
pub fn publish(state: &DebateState, templates: &Templates, sealer: &Sealer, path: &Path) -> Result<Published> {
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let mut published = Published {
        path: path.to_path_buf(),
        commit: None,
        branch: None,
        not_committed: None,
        warnings: Vec::new(),
        pull_request: Vec::new(),
    };
    let repo = crate::repo::open(root)?;
    let _lock = repo.as_ref().map(CommitLock::acquire).transpose()?;
    let branch = state.snapshot.branch.clone();
    // A record's branch that is checked out now (a review, say) is the checkout's: the
    // work tree and the index follow the commit.
    let checked_out = |name: &str| repo.as_ref().is_some_and(|repo| git::is_checked_out(repo, name));
    let target = match &branch {
        Some(name) if !checked_out(name) => git::Target::Branch(name.clone()),
        _ => git::Target::Head,
    };
    let not_committed =
        commit::held_back(root, repo.as_ref(), state.snapshot.record.commit, &target, relative, Written::Record);
    let committed_to = not_committed.is_none().then_some(&target);
    // Every earlier record is marked before anything is written, so one that cannot be
    // stops the recording with nothing changed. Only a debate's first record marks them:
    // a review never applies its supersedes again (the team may have given those records
    // another status since, by command).
    let superseded = match state.revisions.is_empty() {
        true => supersede::changes(state, relative, repo.as_ref(), committed_to, sealer)?,
        false => Vec::new(),
    };
    let (Some(repo), None) = (repo, not_committed.as_ref()) else {
        let rendered = rendered(state, templates, path)?;
        published.warnings.extend(write_rendered(state, path, rendered, sealer)?);
        supersede::write(root, &superseded)?;
        let (why, warning) = not_committed.unwrap_or_default();
        published.not_committed = Some(why);
        published.warnings.extend(warning);
        return Ok(published);
    };
    let rendered = rendered(state, templates, path)?;
    let sidecar = sidecar_path(relative).filter(|_| rendered.sidecar.is_some());
    // On the checked-out branch the files are written first, and committed as written
    // (a status a reviewer gave is kept); with --branch only the commit holds them.
    let (decision, transcript) = match &target {
        git::Target::Head => {
            published.warnings.extend(write_rendered(state, path, rendered, sealer)?);
            supersede::write(root, &superseded)?;
            failpoint("after-record-write");
            let tree = WorkTree::open(root)?;
            let read = |relative: &Path| tree.read_existing(relative);
            (read(relative)?, sidecar.as_deref().map(read).transpose()?)
        }
        git::Target::Branch(name) => {
            // A review revises the record on its branch: the status reviewers gave it stays.
            let before = git::read_on_branch(&repo, name, relative).map(|b| String::from_utf8_lossy(&b).into_owned());
            let decision = match &before {
                Some(before) if keeps_status(state) => status::keep(before, &rendered.decision),
                _ => rendered.decision,
            };
            let (sealed, warning) =
                seal::seal(&decision, rendered.sidecar.as_deref(), before.as_deref(), act(state), sealer);
            published.warnings.extend(warning);
            (sealed.into_bytes(), rendered.sidecar.map(String::into_bytes))
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
            let message = commit_message(state);
            let (commit, warnings) = commit::commit(&repo, &target, &changes, &message, &state.snapshot.record)?;
            published.warnings.extend(warnings);
            commit
        }
    };
    published.commit = Some(commit.to_string());
    match &target {
        git::Target::Branch(name) => {
            published.pull_request = match state.revisions.is_empty() {
                true => pull_request::commands(state, name, relative),
                // A revision: pushing the branch updates the pull request it already has.
                false => vec![format!("git push origin {}", crate::text::shell_quote(name))],
            };
        }
        // A revision on a checked-out branch with an upstream (a pull request's, fetched
        // to review it): the push that updates it.
        git::Target::Head if !state.revisions.is_empty() => {
            published.pull_request = git::push_to_upstream(&repo).into_iter().collect();
        }
        git::Target::Head => {}
    }
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
    let repo = crate::repo::open(root)?;
    // Not in the middle of another command's commit of the same record.
    let _lock = repo.as_ref().map(CommitLock::acquire).transpose()?;
    let (Some(repo), Some(commit)) = (repo, state.commit_id.as_deref()) else {
        // Never committed: the file must still be what the debate wrote.
        let written = tree.read(relative)?.map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"));
        let rendered = templates.decision(state, &path)?.decision;
        return match written.as_deref().map(seal::unsealed) {
            Some(written) if status::keep(written, &rendered) != written => Err(RecordError::Edited(path)),
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
                Some(committed) if git::same_content(&on_disk, &committed) => committed,
                _ => return Err(RecordError::Edited(path)),
            }
        }
    };
    if discard_edits {
        return Ok(());
    }
    // A record moved since (`git mv`) is found in the debate's commit by its id.
    let ours = git::read_at(&repo, commit, relative)
        .or_else(|| git::record_written_in(&repo, commit, &state.id))
        .unwrap_or_default();
    let (now, ours) = (String::from_utf8_lossy(&now), String::from_utf8_lossy(&ours));
    let (now, ours) = (seal::unsealed(&now), seal::unsealed(&ours));
    if status::keep(now, ours) == now {
        return Ok(());
    }
    Err(RecordError::EditedSinceCommit {
        sections: crate::adr::sections_that_differ(ours, now),
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
    // A revision's commit marks nothing superseded, so it names nothing.
    let supersedes = match superseded.is_empty() || !state.revisions.is_empty() {
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

/// The text at `relative` is this debate's record or transcript: its front matter or
/// its heading names the debate, or (with a template that writes no id) it holds
/// exactly what the debate renders.
fn holds(text: &str, id: &str, rendered: &str) -> bool {
    text == rendered
        || text.lines().take(30).any(|l| l.trim() == format!("id: {id}"))
        || text.starts_with(&format!("# Transcript of {id}:"))
}

/// The record, rendered and read back as a clone would read it: what debate writes, it
/// reads back, or it writes nothing.
fn rendered(state: &DebateState, templates: &Templates, path: &Path) -> Result<Rendered> {
    let rendered = templates.decision(state, path)?;
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let sidecar = rendered.sidecar.as_deref().map(str::as_bytes);
    let why = match read_back_committed(root, relative, rendered.decision.as_bytes(), sidecar, templates) {
        // A repository's template may leave the transcript out: nothing to read back.
        Ok(_) | Err(RecordError::NotCarried { why: CarryError::Missing, .. }) => return Ok(rendered),
        Err(RecordError::EditedByHand { sections, .. }) => {
            format!("a clone would render its {} otherwise", sections.join(", "))
        }
        Err(RecordError::NotCarried { why, .. }) => why.to_string(),
        Err(other) => other.to_string(),
    };
    Err(RecordError::WouldNotReadBack(why))
}

/// Write the record (sealed) and its transcript, when that goes beside it. Already
/// there as rendered (a resumed debate): nothing to do; this debate's, but older (a
/// review revised it): replaced, keeping the status a reviewer gave it and the
/// signatures of the version it replaces. Each file appears whole or not at all, and
/// never over another's file. What the user should hear about its signature.
fn write_rendered(state: &DebateState, path: &Path, rendered: Rendered, sealer: &Sealer) -> Result<Option<String>> {
    let sealing = Sealing { sidecar: rendered.sidecar.as_deref(), act: act(state), sealer };
    let warning = write_ours(state, path, rendered.decision.clone(), keeps_status(state), Some(sealing))?;
    if let (Some(sidecar), Some(text)) = (sidecar_path(path), rendered.sidecar) {
        write_ours(state, &sidecar, text, false, None)?;
    }
    Ok(warning)
}

/// How the record (not its transcript) is sealed as it is written.
struct Sealing<'a> {
    sidecar: Option<&'a str>,
    act: Act,
    sealer: &'a Sealer,
}

/// What a debate's record records: its first version, or a review's revision.
fn act(state: &DebateState) -> Act {
    match state.revisions.is_empty() {
        true => Act::Recorded,
        false => Act::Revised,
    }
}

fn write_ours(
    state: &DebateState,
    path: &Path,
    text: String,
    keep_status: bool,
    sealing: Option<Sealing>,
) -> Result<Option<String>> {
    let root = Path::new(&state.repo_root);
    let relative = path.strip_prefix(root).map_err(|_| RecordError::Outside(path.to_path_buf()))?;
    let tree = WorkTree::open(root)?;
    let before = tree.read(relative)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    if let Some(before) = &before
        && !holds(seal::unsealed(before), &state.id, &text)
    {
        return Err(RecordError::Taken(path.to_path_buf()));
    }
    let text = match &before {
        Some(before) if keep_status => status::keep(before, &text),
        _ => text,
    };
    let (text, warning) = match sealing {
        Some(s) => seal::seal(&text, s.sidecar, before.as_deref(), s.act, s.sealer),
        None => (text, None),
    };
    match before {
        None => tree.create(relative, text.as_bytes())?,
        Some(before) if before == text => {}
        Some(_) => tree.replace(relative, text.as_bytes())?,
    }
    Ok(warning)
}
