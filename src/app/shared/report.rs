//! What a command that ran a debate prints on stdout: the record's path (as git names
//! it when it is only on a branch), or the JSON summary.

use std::path::Path;

use crate::error::Result;
use crate::model::DebateState;
use crate::record;
use crate::terminal;
use crate::view::{IssueDraft, Summary};

/// A summary with what the files around the debate say: the issue draft beside the
/// record, and the record's lifecycle status as the record states it now.
pub fn on_disk(summary: Summary) -> Summary {
    Summary {
        issue_draft: issue_draft(&summary.repository, &summary.id, &summary.title),
        record_status: record_status(&summary),
        ..summary
    }
}

/// The record's lifecycle word: from the work tree (a file of the repository, never a
/// link), else from the tip of the branch it was committed to.
fn record_status(summary: &Summary) -> Option<String> {
    const LIMIT: u64 = 1 << 20;
    let (root, path) = (Path::new(&summary.repository), Path::new(summary.record_path.as_deref()?));
    let text = match record::checked_out_text(root, path, LIMIT) {
        Some(text) => text,
        None => {
            let repo = git2::Repository::open(root).ok()?;
            let bytes = record::write::git::read_at(&repo, summary.branch.as_deref()?, path.strip_prefix(root).ok()?)?;
            String::from_utf8_lossy(&bytes[..bytes.len().min(LIMIT as usize)]).into_owned()
        }
    };
    record::current_status(&text).map(|status| record::lifecycle(&status))
}

/// The debate's issue draft, if one was written.
pub fn issue_draft(repo_root: &str, id: &str, title: &str) -> Option<IssueDraft> {
    let path = record::drafts::issue::draft_path(Path::new(repo_root), id);
    path.is_file().then(|| IssueDraft {
        command: record::drafts::issue::command(Path::new(repo_root), title, &path),
        path: path.display().to_string(),
    })
}

/// The result on stdout: the record path, or JSON.
pub fn outcome(state: &DebateState, json: bool) -> Result<()> {
    if json {
        return Ok(terminal::print_json(&on_disk(Summary::of(state)))?);
    }
    let Some(path) = &state.record_path else { return Ok(()) };
    match (&state.snapshot.branch, &state.commit_id) {
        // The record is only on the branch: print it as git names it (`git show` takes it).
        (Some(branch), Some(_)) => {
            let relative = Path::new(path).strip_prefix(&state.repo_root).unwrap_or(Path::new(path));
            terminal::print_out(&format!("{branch}:{}\n", relative.display()))?;
        }
        _ => terminal::print_out(&format!("{path}\n"))?,
    }
    Ok(())
}
