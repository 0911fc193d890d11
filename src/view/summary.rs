//! A debate in one object: what `--list --json` lists and a run prints, a failure that
//! left a debate paused, and a record's status change.

use serde::Serialize;

use crate::model::{Confidence, DebateState, EndReason, Listing, Status, Usage};
use crate::view::verification::RecordSignature;

/// A debate in one object: what `--list --json` lists, and what a run prints.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub id: String,
    pub status: Status,
    pub question: String,
    pub title: String,
    pub repository: String,
    pub created_at: String,
    pub rounds: u32,
    pub ended_by: Option<EndReason>,
    pub confidence: Option<Confidence>,
    pub record_path: Option<String>,
    /// The record's lifecycle status as the record states it now (`proposed`,
    /// `accepted`, `rejected`, `deprecated`, `superseded`), read from the work tree or
    /// the record's branch; `None` without a record to read. `status` is the debate's.
    pub record_status: Option<String>,
    /// Who signed the record as it is now (`debate verify`'s verdict), read like
    /// `record_status`; `None` without a record to read.
    pub record_signature: Option<RecordSignature>,
    pub commit_id: Option<String>,
    /// The branch the record was committed to with `--branch`.
    pub branch: Option<String>,
    pub issue_draft: Option<IssueDraft>,
    pub tokens: Tokens,
}

#[derive(Debug, Clone, Serialize)]
pub struct IssueDraft {
    pub path: String,
    /// The `gh issue create` line that files it, run from the repository root.
    pub command: String,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Tokens {
    pub prompt: u64,
    /// Of `prompt`, what the providers served from their prefix caches.
    pub cached: u64,
    pub completion: u64,
}

impl From<Usage> for Tokens {
    fn from(usage: Usage) -> Tokens {
        Tokens { prompt: usage.prompt_tokens, cached: usage.cached_tokens, completion: usage.completion_tokens }
    }
}

impl Summary {
    pub fn of(state: &DebateState) -> Summary {
        Summary {
            id: state.id.clone(),
            status: state.status,
            question: state.question.clone(),
            title: state.decision_title().to_string(),
            repository: state.repo_root.clone(),
            created_at: state.created_at.clone(),
            rounds: state.rounds.len() as u32,
            ended_by: state.end_reason,
            confidence: state.outcome.as_ref().map(|o| o.confidence),
            record_path: state.record_path.clone(),
            record_status: None,
            record_signature: None,
            commit_id: state.commit_id.clone(),
            branch: state.snapshot.branch.clone(),
            issue_draft: None,
            tokens: state.totals.into(),
        }
    }
}

impl From<&Listing> for Summary {
    fn from(row: &Listing) -> Summary {
        Summary {
            id: row.id.clone(),
            status: row.status,
            question: row.question.clone(),
            title: row.title.clone(),
            repository: row.repository.clone(),
            created_at: row.created_at.clone(),
            rounds: row.rounds,
            ended_by: row.end_reason,
            confidence: row.confidence,
            record_path: row.record_path.clone(),
            record_status: None,
            record_signature: None,
            commit_id: row.commit_id.clone(),
            branch: row.branch.clone(),
            issue_draft: None,
            tokens: row.totals.into(),
        }
    }
}

/// A debate a failure left paused (`--json` with an exit code other than 0): what
/// went wrong, and how to go on.
#[derive(Debug, Clone, Serialize)]
pub struct Paused {
    pub id: String,
    pub status: Status,
    pub error: String,
    pub hint: Option<String>,
    pub exit_code: u8,
    /// The command that continues it.
    pub resume: String,
}

impl Paused {
    /// `resume` is the command that continues it.
    pub fn new(id: &str, error: String, hint: Option<String>, exit_code: u8, resume: String) -> Paused {
        Paused { id: id.to_string(), status: Status::Paused, error, hint, exit_code, resume }
    }
}

/// `debate accept|reject|deprecate --json`: what became of the record.
#[derive(Debug, Serialize)]
pub struct StatusChange {
    pub path: String,
    /// The status as the record now states it, and as it stated it before.
    pub status: String,
    pub previous_status: String,
    /// `false` when the record already had that status: nothing was written.
    pub changed: bool,
    /// It already had that status, set since it was signed by another tool or a person,
    /// and was signed again as it is.
    pub signed_again: bool,
    pub commit: Option<String>,
    /// Why the new status was written but not committed, if it was not.
    pub not_committed: Option<String>,
}
