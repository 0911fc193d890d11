//! What a command that ran a debate prints on stdout: the record's path (as git names
//! it when it is only on a branch), or the JSON summary.

use std::path::Path;

use crate::error::Result;
use crate::model::DebateState;
use crate::record;
use crate::terminal;
use crate::view::{IssueDraft, Summary};

/// The debate's issue draft, if one was written.
pub fn issue_draft(repo_root: &str, id: &str, title: &str) -> Option<IssueDraft> {
    let path = record::issue::draft_path(Path::new(repo_root), id);
    path.is_file().then(|| IssueDraft {
        command: record::issue::command(Path::new(repo_root), title, &path),
        path: path.display().to_string(),
    })
}

/// The result on stdout: the record path, or JSON.
pub fn outcome(state: &DebateState, json: bool) -> Result<()> {
    if json {
        let summary = Summary {
            issue_draft: issue_draft(&state.repo_root, &state.id, state.decision_title()),
            ..Summary::of(state)
        };
        return Ok(terminal::print_json(&summary)?);
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
