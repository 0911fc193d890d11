//! The one way a change reaches git. Whether it is committed at all (a repository,
//! committing on, a branch to commit to), and the commit: signed as git would sign it,
//! with the decisions index made from the tree it lands on, and a warning for the hooks
//! that did not run. Publishing a record and changing a record's status both go here.

use std::path::Path;

use git2::{Oid, Repository};

use crate::model::RecordSettings;
use crate::record::error::Result;
use crate::record::write::git::{self, Change, Target};
use crate::record::write::index;
use crate::record::write::sign::Signer;

/// What a command writes, as its notes name it when it is not committed.
#[derive(Debug, Clone, Copy)]
pub enum Written {
    Record,
    Status,
    Scores,
    Guards,
}

/// Why the change at `relative` is written but not committed, and the warning that says
/// so (none when the user chose it); `None`: it is committed to `target`.
pub fn held_back(
    root: &Path,
    repo: Option<&Repository>,
    commit_on: bool,
    target: &Target,
    relative: &Path,
    written: Written,
) -> Option<(String, Option<String>)> {
    let (what, otherwise) = match written {
        Written::Record => ("the record", " or use --branch next time"),
        Written::Status => ("the new status", ""),
        Written::Scores => ("the record with its scores", ""),
        Written::Guards => ("the record with its guards", ""),
    };
    match repo {
        None => Some((
            "not a git repository".into(),
            Some(format!("{} is not a git repository; {what} was written but not committed", root.display())),
        )),
        Some(_) if !commit_on => Some(("committing is off (--no-commit or record.commit: false)".into(), None)),
        Some(repo) if *target == Target::Head && git::is_detached(repo) => Some((
            "HEAD is detached".into(),
            Some(format!(
                "HEAD is detached, so {what} was written but not committed; commit it yourself (git add {} && git commit){otherwise}",
                relative.display()
            )),
        )),
        Some(_) => None,
    }
}

/// Commit exactly `changes` with `message` to `target`, with the decisions index of
/// `settings`; the commit and what the user should hear about it.
pub fn commit(
    repo: &Repository,
    target: &Target,
    changes: &[Change],
    message: &str,
    settings: &RecordSettings,
) -> Result<(Oid, Vec<String>)> {
    let identity = crate::repo::identity(repo)?;
    let mut warnings: Vec<String> = identity.warning.into_iter().collect();
    let signer = Signer::for_repository(repo, identity.committer.email().ok())?;
    let authored =
        git::Authored { message, author: &identity.author, committer: &identity.committer, signer: signer.as_ref() };
    let mut index = index::Indexer::new(repo, target, settings);
    let commit = git::commit_record(repo, target, changes, &mut |p, c| index.derive(p, c), &authored);
    let commit = match commit {
        Ok(commit) => commit,
        Err(err) => {
            // Best effort: the commit's own failure is what to report.
            let _ = index.put_back();
            return Err(err);
        }
    };
    warnings.extend(index.warnings());
    warnings.extend(hooks_warning(repo));
    Ok((commit, warnings))
}

/// A commit git would sign can be signed: checked before anything is written.
pub fn check_signing(repo: &Repository) -> Result<()> {
    let identity = crate::repo::identity(repo)?;
    if let Some(signer) = Signer::for_repository(repo, identity.committer.email().ok())? {
        signer.check()?;
    }
    Ok(())
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
