//! A debate's record amended where it stands — its latest scores in its provenance
//! (`debate eval --write`) or its guards changed (`debate guard`) — written again with its
//! status as the file states it, sealed again, and committed alone: the record and its
//! transcript, nothing else staged, as `accept` commits a status.

use std::path::{Path, PathBuf};

use crate::model::{DebateState, RecordSettings, TITLE_LIMIT};
use crate::record::render::{Templates, sidecar_path};
use crate::record::seal::{self, Act, Sealer};
use crate::record::write::commit::{self, Written};
use crate::record::write::git::{self, Target};
use crate::record::{RecordError, Result, WorkTree, lifecycle::status};
use crate::text::shorten;
use crate::text::untrusted::one_line;

/// What the record is amended with.
#[derive(Debug, Clone)]
pub enum Amendment {
    /// Its latest written scorecard, in its provenance.
    Scores,
    /// Its guards or review date, as the change says in a line (`add forbid dependency redis`).
    Guards(String),
}

/// What became of the record.
#[derive(Debug)]
pub struct Amended {
    pub path: PathBuf,
    pub commit: Option<String>,
    /// Why it was written but not committed.
    pub not_committed: Option<String>,
    pub warnings: Vec<String>,
}

/// The record of `before` (the debate as stored, before the amendment), as it is in the
/// work tree: only a record debate wrote, whatever status it was given since, with no
/// changes that are not committed, is amended — they would be committed too.
/// Called with the repository's `CommitLock` held, and `before` read under it: no other
/// command is halfway through writing the record.
pub fn check_writable(before: &DebateState, templates: &Templates) -> Result<()> {
    let (root, path, relative) = place(before)?;
    let repo = crate::repo::open(&root)?;
    let tree = WorkTree::open(&root)?;
    let on_disk = tree.read_existing(&relative)?;
    let text = String::from_utf8_lossy(&on_disk).replace("\r\n", "\n");
    let text = seal::unsealed(&text);
    let rendered = templates.decision(before, &path)?;
    let sidecar = sidecar_path(&relative).filter(|_| rendered.sidecar.is_some());
    let sidecar_differs = match (&sidecar, &rendered.sidecar) {
        (Some(side), Some(expected)) => tree.read(side)?.is_none_or(|b| String::from_utf8_lossy(&b) != *expected),
        _ => false,
    };
    if status::keep(text, &rendered.decision) != text || sidecar_differs {
        let sections = crate::adr::sections_that_differ(&rendered.decision, text);
        return Err(RecordError::EditedByHand { path: relative, sections });
    }
    match repo {
        Some(repo) => unsaved(&repo, &tree, std::iter::once(relative.as_path()).chain(sidecar.as_deref())),
        None => Ok(()),
    }
}

/// Refused when one of `paths` holds changes that are not committed, staged or not: the
/// amendment's commit would take them along.
fn unsaved<'p>(repo: &git2::Repository, tree: &WorkTree, mut paths: impl Iterator<Item = &'p Path>) -> Result<()> {
    let committed = |relative: &Path| {
        let on_disk = tree.read(relative).ok().flatten().unwrap_or_default();
        match git::read_at_head(repo, relative) {
            Some(at_head) => {
                git::same_content(&on_disk, &at_head) && git::staged_id(repo, relative) == git::blob_id(&at_head).ok()
            }
            None => !git::exists_at_head(repo, relative) && git::staged_id(repo, relative).is_none(),
        }
    };
    match paths.find(|relative| !committed(relative)) {
        Some(changed) => Err(RecordError::Unsaved(tree.root().join(changed))),
        None => Ok(()),
    }
}

/// Write the record of `after` (the debate amended), keeping the status
/// the file states and sealed again by `sealer` (its signatures kept), and commit it
/// alone with the commit rules of `settings`: not committed without a repository, with
/// committing off or on a detached HEAD. Called with the repository's `CommitLock` held,
/// until the database holds the amendment: the record and the database then agree for
/// the next command.
pub fn amend(
    after: &DebateState,
    amendment: &Amendment,
    templates: &Templates,
    sealer: &Sealer,
    settings: &RecordSettings,
) -> Result<Amended> {
    let (act, written) = match amendment {
        Amendment::Scores => (Act::Scored, Written::Scores),
        Amendment::Guards(_) => (Act::Guarded, Written::Guards),
    };
    let (root, path, relative) = place(after)?;
    let repo = crate::repo::open(&root)?;
    let tree = WorkTree::open(&root)?;
    let found = tree.read_existing(&relative)?;
    let before = String::from_utf8_lossy(&found).replace("\r\n", "\n");
    let rendered = templates.decision(after, &path)?;
    let decision = status::keep(&before, &rendered.decision);
    let (decision, warning) = seal::seal(&decision, rendered.sidecar.as_deref(), Some(&before), act, sealer);
    let sidecar = sidecar_path(&relative).zip(rendered.sidecar);
    // Checked again now that no other command can be writing it.
    if let Some(repo) = &repo {
        unsaved(
            repo,
            &tree,
            std::iter::once(relative.as_path()).chain(sidecar.as_ref().map(|(side, _)| side.as_path())),
        )?;
    }
    let found_sidecar = sidecar.as_ref().map(|(side, _)| tree.read(side)).transpose()?.flatten();
    tree.replace(&relative, decision.as_bytes())?;
    if let Some((side, text)) = &sidecar {
        tree.replace(side, text.as_bytes())?;
    }
    let mut amended = Amended { path, commit: None, not_committed: None, warnings: warning.into_iter().collect() };
    let held_back = commit::held_back(&root, repo.as_ref(), settings.commit, &Target::Head, &relative, written);
    let (Some(repo), None) = (repo, &held_back) else {
        let (why, warning) = held_back.unwrap_or_default();
        amended.not_committed = Some(why);
        amended.warnings.extend(warning);
        return Ok(amended);
    };
    let mut changes = vec![git::Change { relative: &relative, content: decision.as_bytes() }];
    if let Some((side, text)) = &sidecar {
        changes.push(git::Change { relative: side, content: text.as_bytes() });
    }
    let (commit, warnings) = commit::commit(&repo, &Target::Head, &changes, &message(after, amendment), settings)
        .inspect_err(|_| {
            let mut found = vec![(relative.as_path(), found.as_slice())];
            if let (Some((side, _)), Some(bytes)) = (&sidecar, &found_sidecar) {
                found.push((side.as_path(), bytes.as_slice()));
            }
            tree.put_back(&found);
        })?;
    amended.commit = Some(commit.to_string());
    amended.warnings.extend(warnings);
    Ok(amended)
}

/// The work tree's root, the record's path, and the path inside the work tree.
fn place(state: &DebateState) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let root = PathBuf::from(&state.repo_root);
    let path = PathBuf::from(state.record_path.as_deref().ok_or(RecordError::NoOutcome)?);
    let relative = path.strip_prefix(&root).map_err(|_| RecordError::Outside(path.clone()))?.to_path_buf();
    Ok((root, path, relative))
}

/// `docs(decisions): score <title>`, the scores in one line, and the `Debate-Id:` and
/// `Debate-Evaluation:` trailers (the second tells this commit from the record's own);
/// `docs(decisions): guard <title>` and the change.
fn message(state: &DebateState, amendment: &Amendment) -> String {
    let subject = shorten(&one_line(state.decision_title()), TITLE_LIMIT);
    if let Amendment::Guards(change) = amendment {
        return format!("docs(decisions): guard {subject}\n\n{}\n\nDebate-Id: {}\n", one_line(change), state.id);
    }
    let Some(card) = state.written_scorecard() else { return format!("docs(decisions): score {subject}\n") };
    let by: Vec<&str> = card.evaluators.iter().map(|e| e.model.as_str()).collect();
    format!(
        "docs(decisions): score {subject}\n\nEvaluated by: {}\n\nDebate-Id: {}\nDebate-Evaluation: {}\n",
        one_line(&by.join(", ")),
        state.id,
        card.number
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    #[test]
    fn the_message_names_the_evaluators_and_carries_both_trailers() {
        let mut state = fixture::complete(1);
        state.scorecards.push(fixture::scorecard(true));
        assert_eq!(
            message(&state, &Amendment::Scores),
            "docs(decisions): score Cache in Postgres until p99 passes 50 ms\n\nEvaluated by: m, n\n\nDebate-Id: DEB-abc123\nDebate-Evaluation: 1\n"
        );
    }

    #[test]
    fn a_guards_message_says_the_change() {
        let state = fixture::complete(1);
        assert_eq!(
            message(&state, &Amendment::Guards("add `forbid dependency redis`".into())),
            "docs(decisions): guard Cache in Postgres until p99 passes 50 ms\n\nadd `forbid dependency redis`\n\nDebate-Id: DEB-abc123\n"
        );
    }
}
