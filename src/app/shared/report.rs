//! What a command that ran a debate prints on stdout: the record's path (as git names
//! it when it is only on a branch), or the JSON summary.

use std::path::Path;

use crate::app::shared::verification;
use crate::error::Result;
use crate::model::DebateState;
use crate::record;
use crate::terminal;
use crate::view::{IssueDraft, RecordSignature, Summary};

/// A summary with what the files around the debate say: the issue draft beside the
/// record, and the record's lifecycle status and signature as the record states them now.
pub fn on_disk(summary: Summary) -> Summary {
    let texts = record_texts(&summary);
    Summary {
        issue_draft: issue_draft(&summary.repository, &summary.id, &summary.title),
        record_status: texts.as_ref().and_then(|(text, _)| record::current_status(text)).map(|s| record::lifecycle(&s)),
        record_signature: texts.as_ref().map(|(text, sidecar)| signature(&summary, text, sidecar.as_deref())),
        ..summary
    }
}

/// The record's text and its transcript file's: from the work tree (files of the
/// repository, never links), else from the tip of the branch it was committed to.
fn record_texts(summary: &Summary) -> Option<(String, Option<String>)> {
    const LIMIT: u64 = 1 << 20;
    let (root, path) = (Path::new(&summary.repository), Path::new(summary.record_path.as_deref()?));
    let sidecar = record::sidecar_path(path);
    if let Some(text) = record::checked_out_text(root, path, LIMIT) {
        return Some((text, sidecar.and_then(|side| record::checked_out_text(root, &side, LIMIT))));
    }
    let repo = git2::Repository::open(root).ok()?;
    let read = |path: &Path| {
        let bytes = record::write::git::read_at(&repo, summary.branch.as_deref()?, path.strip_prefix(root).ok()?)?;
        Some(String::from_utf8_lossy(&bytes[..bytes.len().min(LIMIT as usize)]).into_owned())
    };
    Some((read(path)?, sidecar.and_then(|side| read(&side))))
}

/// Who signed the record as it is, as `debate verify` would say, with the signers git's
/// allowed-signers file names.
fn signature(summary: &Summary, text: &str, sidecar: Option<&str>) -> RecordSignature {
    let root = Path::new(&summary.repository);
    let signers = verification::signers(root, None).ok().and_then(|signers| signers.named);
    let path = summary.record_path.as_deref().unwrap_or_default();
    let relative = Path::new(path).strip_prefix(root).map_or(path.into(), |p| p.to_string_lossy().into_owned());
    RecordSignature::from(&verification::check(&relative, text, sidecar, signers.as_ref()))
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
