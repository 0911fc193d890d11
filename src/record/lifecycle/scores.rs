//! `debate eval --write`: a debate's record written again with its latest scores in its
//! provenance (and its status as the file states it), then committed alone — the record
//! and its transcript, nothing else staged — as `accept` commits a status.

use std::path::{Path, PathBuf};

use crate::model::{DebateState, RecordSettings, TITLE_LIMIT};
use crate::record::render::{Templates, sidecar_path};
use crate::record::seal::{self, Act, Sealer};
use crate::record::write::commit::{self, Written};
use crate::record::write::git::{self, Target};
use crate::record::{RecordError, Result, WorkTree, lifecycle::status};
use crate::text::shorten;
use crate::text::untrusted::one_line;

/// What became of the record.
#[derive(Debug)]
pub struct Scored {
    pub path: PathBuf,
    pub commit: Option<String>,
    /// Why it was written but not committed.
    pub not_committed: Option<String>,
    pub warnings: Vec<String>,
}

/// The record of `before` (the debate as stored, without the scores to write), as it is
/// in the work tree: only a record debate wrote, whatever status it was given since,
/// with no changes that are not committed, takes scores — they would be committed too.
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
/// scores' commit would take them along.
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

/// Write the record of `after` (the debate with its scores written), keeping the status
/// the file states and sealed again by `sealer` (its signatures kept), and commit it
/// alone with the commit rules of `settings`: not committed without a repository, with
/// committing off or on a detached HEAD. Called with the repository's `CommitLock` held,
/// until the database says the scores are written: the record and the database then
/// agree for the next command.
pub fn write_scores(
    after: &DebateState,
    templates: &Templates,
    sealer: &Sealer,
    settings: &RecordSettings,
) -> Result<Scored> {
    let (root, path, relative) = place(after)?;
    let repo = crate::repo::open(&root)?;
    let tree = WorkTree::open(&root)?;
    let found = tree.read_existing(&relative)?;
    let before = String::from_utf8_lossy(&found).replace("\r\n", "\n");
    let rendered = templates.decision(after, &path)?;
    let decision = status::keep(&before, &rendered.decision);
    let (decision, warning) = seal::seal(&decision, rendered.sidecar.as_deref(), Some(&before), Act::Scored, sealer);
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
    let mut scored = Scored { path, commit: None, not_committed: None, warnings: warning.into_iter().collect() };
    let held_back = commit::held_back(&root, repo.as_ref(), settings.commit, &Target::Head, &relative, Written::Scores);
    let (Some(repo), None) = (repo, &held_back) else {
        let (why, warning) = held_back.unwrap_or_default();
        scored.not_committed = Some(why);
        scored.warnings.extend(warning);
        return Ok(scored);
    };
    let mut changes = vec![git::Change { relative: &relative, content: decision.as_bytes() }];
    if let Some((side, text)) = &sidecar {
        changes.push(git::Change { relative: side, content: text.as_bytes() });
    }
    let (commit, warnings) =
        commit::commit(&repo, &Target::Head, &changes, &message(after), settings).inspect_err(|_| {
            let mut found = vec![(relative.as_path(), found.as_slice())];
            if let (Some((side, _)), Some(bytes)) = (&sidecar, &found_sidecar) {
                found.push((side.as_path(), bytes.as_slice()));
            }
            tree.put_back(&found);
        })?;
    scored.commit = Some(commit.to_string());
    scored.warnings.extend(warnings);
    Ok(scored)
}

/// The work tree's root, the record's path, and the path inside the work tree.
fn place(state: &DebateState) -> Result<(PathBuf, PathBuf, PathBuf)> {
    let root = PathBuf::from(&state.repo_root);
    let path = PathBuf::from(state.record_path.as_deref().ok_or(RecordError::NoOutcome)?);
    let relative = path.strip_prefix(&root).map_err(|_| RecordError::Outside(path.clone()))?.to_path_buf();
    Ok((root, path, relative))
}

/// `docs(decisions): score <title>`, the scores in one line, and the `Debate-Id:` and
/// `Debate-Evaluation:` trailers (the second tells this commit from the record's own).
fn message(state: &DebateState) -> String {
    let subject = shorten(&one_line(state.decision_title()), TITLE_LIMIT);
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
            message(&state),
            "docs(decisions): score Cache in Postgres until p99 passes 50 ms\n\nEvaluated by: m, n\n\nDebate-Id: DEB-abc123\nDebate-Evaluation: 1\n"
        );
    }
}
