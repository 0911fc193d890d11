//! A record's life after it is committed: `debate accept|reject|deprecate` sets its
//! status where the record keeps it, adds the change to its status history, and commits
//! only that file (and the decisions index) with the rules recording follows. Any
//! decision record will do, in any format, whoever wrote it: nothing here needs the
//! debate that made it. Asked for the status a record already states, set by another
//! tool or a person since it was signed, it signs the record again as it is.

use std::path::{Path, PathBuf};

use crate::adr;
use crate::model::{RecordSettings, TITLE_LIMIT, Verdict};
use crate::record::seal::{self, Act, Sealer};
use crate::record::write::commit::{self, Written};
use crate::record::write::git::{self, Target};
use crate::record::write::lock::CommitLock;
use crate::record::{RecordError, Result, WorkTree, lifecycle::status};
use crate::text::shorten;
use crate::text::untrusted::one_line;

/// A change of status to make.
pub struct Request<'a> {
    /// The work tree's root.
    pub root: &'a Path,
    /// The record, relative to the root.
    pub relative: &'a Path,
    pub verdict: Verdict,
    /// `YYYY-MM-DD`, for the history.
    pub date: &'a str,
    /// `commit` (off: write the file only) and where the decision directories are, for
    /// the index.
    pub settings: &'a RecordSettings,
    /// Seals a record debate wrote again, signed by the key of whoever gives the status.
    pub sealer: &'a Sealer,
}

/// What became of the record.
#[derive(Debug)]
pub struct Changed {
    pub path: PathBuf,
    /// The status as the record now states it, and as it stated it before.
    pub status: String,
    pub previous: String,
    /// `false` when the record already had that status: nothing was written.
    pub changed: bool,
    /// The record already had that status, set since it was signed by another tool or a
    /// person: it was signed again as it is.
    pub signed_again: bool,
    pub commit: Option<String>,
    /// Why it was written but not committed.
    pub not_committed: Option<String>,
    pub warnings: Vec<String>,
}

/// Give the record at `request.relative` its new status. On the checked-out branch the
/// file is written and committed (with the index of its directory); without a
/// repository, with `--no-commit` or on a detached HEAD it is written only. A record
/// that states no status, is superseded, or has changes of its own that are not
/// committed is refused with nothing written.
pub fn change(request: &Request) -> Result<Changed> {
    let (root, relative) = (request.root, request.relative);
    let path = root.join(relative);
    let repo = crate::repo::open(root)?;
    let _lock = repo.as_ref().map(CommitLock::acquire).transpose()?;
    let not_committed =
        commit::held_back(root, repo.as_ref(), request.settings.commit, &Target::Head, relative, Written::Status);
    let on_disk = WorkTree::open(root)?.read_existing(relative)?;
    // A commit changes the record as HEAD has it (a record not committed yet: as it is).
    let committed = repo.as_ref().filter(|_| not_committed.is_none()).and_then(|r| git::read_at_head(r, relative));
    let base = committed.clone().unwrap_or_else(|| on_disk.clone());
    let text = String::from_utf8(base.clone()).map_err(|_| RecordError::NoStatus(path.clone()))?;
    if let Some(problem) = status::front_matter_problem(&text) {
        return Err(RecordError::FrontMatter { path, problem });
    }
    let previous = status::current(&text).ok_or_else(|| RecordError::NoStatus(path.clone()))?;
    if previous.to_lowercase().starts_with("superseded") {
        return Err(RecordError::Superseded { path, status: previous });
    }
    let by = crate::repo::user_name(repo.as_ref());
    let entry = status::Entry { date: request.date, by: by.as_deref() };
    let content =
        status::transition(&text, request.verdict.status(), entry).ok_or(RecordError::NoStatus(path.clone()))?;
    let now = status::current(&content).unwrap_or_default();
    let unchanged_status = content == text;
    // Asked for the status it already states, set by hand or another tool since it was
    // signed: sign it again as it is.
    let signed_again = unchanged_status && seal::status_changed(root, relative, &text)?;
    let (content, warning) = match unchanged_status && !signed_again {
        true => (content.into_bytes(), None),
        false => seal::reseal(root, relative, content.into_bytes(), act(request.verdict), request.sealer)?,
    };
    let content = String::from_utf8(content).map_err(|_| RecordError::NoStatus(path.clone()))?;
    let mut changed = Changed {
        path: path.clone(),
        status: now,
        previous: previous.clone(),
        changed: !unchanged_status || signed_again,
        signed_again,
        commit: None,
        not_committed: None,
        warnings: warning.into_iter().collect(),
    };
    if !changed.changed {
        return Ok(changed);
    }
    let (Some(repo), None) = (repo, &not_committed) else {
        WorkTree::open(root)?.replace(relative, content.as_bytes())?;
        let (why, warning) = not_committed.unwrap_or_default();
        changed.not_committed = Some(why);
        changed.warnings.extend(warning);
        return Ok(changed);
    };
    // The user's own changes to the record, staged or not, are never committed along.
    let ours = [Some(git::blob_id(&base)?), Some(git::blob_id(content.as_bytes())?)];
    let staged = git::staged_id(&repo, relative);
    let staged_ours = staged.is_none() && committed.is_none() || ours.contains(&staged);
    let unchanged = git::same_content(&on_disk, &base) || git::same_content(&on_disk, content.as_bytes());
    if !unchanged || !staged_ours {
        return Err(RecordError::Changed(path));
    }
    commit::check_signing(&repo)?;
    let tree = WorkTree::open(root)?;
    if !git::same_content(&on_disk, content.as_bytes()) {
        tree.replace(relative, content.as_bytes())?;
    }
    let previous_said = match signed_again {
        true => format!("{previous}, set since it was signed; signed again"),
        false => previous.clone(),
    };
    let message = message(request.verdict, &text, relative, &previous_said);
    let change = [git::Change { relative, content: content.as_bytes() }];
    let (commit, warnings) = commit::commit(&repo, &Target::Head, &change, &message, request.settings)
        .inspect_err(|_| tree.put_back(&[(relative, &on_disk)]))?;
    changed.warnings.extend(warnings);
    changed.commit = Some(commit.to_string());
    Ok(changed)
}

/// What a status records, as the record's seal says it.
fn act(verdict: Verdict) -> Act {
    match verdict {
        Verdict::Accepted => Act::Accepted,
        Verdict::Rejected => Act::Rejected,
        Verdict::Deprecated => Act::Deprecated,
    }
}

/// `docs(decisions): accept <title>`, the change of status and the record's path, and
/// the `Debate-Id:` and `Debate-Status:` trailers when the record carries a debate id
/// (the second tells this commit from the record's own). Every value on one line of its
/// own.
fn message(verdict: Verdict, text: &str, relative: &Path, previous: &str) -> String {
    let fields = adr::read(&relative.to_string_lossy(), text);
    let stem = relative.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let title = fields.as_ref().map_or(stem, |f| f.title.clone());
    let subject = shorten(&one_line(&title), TITLE_LIMIT);
    let trailer = fields
        .and_then(|f| f.id)
        .filter(|id| {
            let lower = id.to_ascii_lowercase();
            lower.len() == 10 && lower.starts_with("deb-") && lower[4..].chars().all(|c| c.is_ascii_alphanumeric())
        })
        .map(|id| format!("\nDebate-Id: {id}\nDebate-Status: {}\n", verdict.status()))
        .unwrap_or_default();
    format!(
        "docs(decisions): {} {subject}\n\nStatus: {} (was {})\nRecord: {}\n{trailer}",
        verdict.verb(),
        verdict.status(),
        one_line(previous),
        one_line(&relative.to_string_lossy()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_change_and_carries_the_debate_id() {
        let ours =
            "---\nid: DEB-abc123\ntitle: \"Redis or Postgres\"\nstatus: proposed\n---\n# Decision: Redis or Postgres\n";
        let message = message(Verdict::Accepted, ours, Path::new("docs/decisions/x.md"), "proposed");
        assert_eq!(
            message,
            "docs(decisions): accept Redis or Postgres\n\nStatus: accepted (was proposed)\nRecord: docs/decisions/x.md\n\nDebate-Id: DEB-abc123\nDebate-Status: accepted\n"
        );
        let hostile = "---\nid: \"DEB-abc123\\nSigned-off-by: x\"\n---\n# A\nB\n\n## Status\n\nProposed\n";
        let message = super::message(Verdict::Rejected, hostile, Path::new("adr/0001-a.md"), "Proposed\nX: y");
        assert!(!message.contains("Debate-Id") && !message.contains("\nX: y"), "{message}");
        assert!(message.starts_with("docs(decisions): reject A\n"), "{message}");
        let title = "Cache product pages in Postgres ".repeat(4);
        let long = format!("# {title}\n\n## Status\n\nProposed\n");
        let message = super::message(Verdict::Accepted, &long, Path::new("adr/0002-b.md"), "Proposed");
        let subject = message.lines().next().unwrap().trim_start_matches("docs(decisions): accept ");
        let kept = subject.strip_suffix('…').expect("marked as cut");
        assert!(subject.chars().count() <= TITLE_LIMIT, "{subject}");
        assert!(title.starts_with(kept) && title[kept.len()..].starts_with(' '), "cut at a word: {subject}");
    }
}
