//! `--resume ID`: continue a paused or interrupted debate where it stopped; with
//! `--guide`, reopen a complete one for a reviewer's objection (the review loop).

use std::path::{Path, PathBuf};

use crate::app::invocation::request::{ResumeRequest, Review};
use crate::app::shared::drive::{self, Run};
use crate::app::shared::existing;
use crate::app::shared::input::{read_objection, without_secrets};
use crate::app::shared::report;
use crate::app::shared::spending;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::{DebateState, Events, Published, Revision, Snapshot, Status};
use crate::providers;
use crate::record::seal::Sealer;
use crate::record::{self, RecordError, Templates};
use crate::repo::Here;
use crate::settings;
use crate::store::Store;
use crate::terminal::Terminal;

/// Continue a debate, as `start` runs a new one.
pub async fn run(
    request: &ResumeRequest,
    db_path: &Path,
    terminal: &mut Terminal,
    events: Option<&mut dyn Events>,
) -> Result<DebateState> {
    let flags = &request.flags;
    // What no door may ask for is refused before anything is read or written.
    flags.options.check().map_err(Error::input)?;
    let (store, state, imported) = existing::find(db_path, &request.id, flags.config.as_deref(), &request.here)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    if request.review.is_some() {
        existing::here(&state, &request.here)?;
    }
    // Nothing of the debate changes while another process drives it.
    let lease = store.acquire(&state.id)?;
    let state = store.load(&state.id)?;
    match (state.status, &request.review) {
        (Status::Complete, None) => return resume_complete(request, &store, &state, terminal),
        (Status::Complete, Some(_)) | (_, None) => {}
        (status, Some(_)) => {
            return Err(Error::input(format!(
                "--guide reopens a completed debate, and {} is {}",
                state.id,
                status.as_str()
            ))
            .with_hint("resume it without --guide and give your guidance at its next checkpoint"));
        }
    }
    let root = locate_repository(&store, &state, &request.here, terminal)?;
    let state = store.load(&state.id)?;
    let loaded = settings::load(&root, flags.config.as_deref())?;
    let catalog = Catalog::build(&loaded.overlays)?;
    let mut snapshot = flags.onto(&state, &loaded.settings, &root, request.review.is_some())?;
    let providers =
        providers::build_panel(&snapshot.moderator, &snapshot.debater_roles(), &snapshot.providers, &loaded.settings)?;
    let templates = Templates::load(&root)?;
    record::preflight(&root, &snapshot.record, snapshot.branch.is_some())?;
    if let Some(review) = &request.review {
        let objection =
            without_secrets(&read_objection(&review.objection)?, "your guidance", &providers.shared.secrets, terminal);
        reopen(objection.trim(), review, &store, &state, &mut snapshot, &templates, terminal)?;
    }
    spending::check_priced(&mut snapshot, loaded.settings.budget.per_month_usd)?;
    if snapshot != state.snapshot {
        store.save_snapshot(&state.id, &snapshot)?;
    }
    terminal.resume_summary(&state);
    drive::announce_providers(&snapshot, terminal);
    let per_month = loaded.settings.budget.per_month_usd;
    let sealer = Sealer::new(&root, loaded.settings.signing.key.clone());
    let run = Run { providers, catalog: &catalog, templates: &templates, sealer: &sealer, per_month };
    drive::drive(db_path, &store, lease, run, drive::hearer(terminal, events)).await
}

/// A review's objection reopens a completed debate: its conclusion becomes a revision,
/// and it runs the rounds its rules now allow (one more, or up to `--max-rounds`) with
/// the objection as guidance.
fn reopen(
    objection: &str,
    review: &Review,
    store: &Store,
    state: &DebateState,
    snapshot: &mut Snapshot,
    templates: &Templates,
    terminal: &Terminal,
) -> Result<()> {
    record::check_revisable(state, templates, review.discard_edits)?;
    let done = state.rounds.len() as u32;
    let outcome =
        state.outcome.as_ref().ok_or_else(|| Error::input(format!("{} has no conclusion to review", state.id)))?;
    let revision = Revision {
        date: chrono::Utc::now().format("%Y-%m-%d").to_string(),
        rounds: done,
        chosen_option: outcome.synthesis.chosen_option.clone(),
        confidence: outcome.confidence,
        recommendation: outcome.synthesis.recommendation.clone(),
        commit: state.commit_id.clone(),
        reopened_by: objection.to_string(),
    };
    store.reopen(&state.id, &revision, snapshot)?;
    let more = u32::from(snapshot.debate.max_rounds) - done;
    terminal.say(&format!(
        "Reopened {} for review: {more} more round{} with your guidance, then a new synthesis rewrites {}.",
        state.id,
        if more == 1 { "" } else { "s" },
        state.record_path.as_deref().unwrap_or("its record")
    ));
    Ok(())
}

/// `--resume` of a complete debate: its record as it is. `--issue` writes the issue
/// draft it lacks; a flag that would change the debate or its record is refused.
fn resume_complete(
    request: &ResumeRequest,
    store: &Store,
    state: &DebateState,
    terminal: &mut Terminal,
) -> Result<DebateState> {
    request.flags.for_started(state)?;
    if let Some(flag) = request.flags.changing() {
        let record = state.record_path.as_deref().unwrap_or("(none)");
        return Err(Error::input(format!(
            "{} is already complete, so {flag} cannot change it; its record is {record}",
            state.id
        ))
        .with_hint("start a new debate to debate the question again"));
    }
    terminal.say(&format!("Debate {} is already complete.", state.id));
    if request.flags.options.issue && report::issue_draft(&state.repo_root, &state.id, state.decision_title()).is_none()
    {
        // Written into the repository where it is now, never where it used to be.
        let root = locate_repository(store, state, &request.here, terminal)?;
        let state = &store.load(&state.id)?;
        let templates = Templates::load(&root)?;
        let published = Published {
            path: PathBuf::from(state.record_path.clone().unwrap_or_default()),
            commit: state.commit_id.clone(),
            branch: state.snapshot.branch.clone(),
            not_committed: None,
            warnings: Vec::new(),
            pull_request: Vec::new(),
        };
        let draft = record::drafts::issue::write(state, &templates, &published)?;
        terminal.say(&format!("Issue draft written to {}. File it with:\n  {}", draft.path.display(), draft.command));
    }
    Ok(state.clone())
}

/// Where a paused debate's repository is now: where it was; or, when that path is
/// gone, the repository here if it holds the commit the debate started on (without
/// one, if it has the same name). The debate then moves with it.
fn locate_repository(store: &Store, state: &DebateState, here: &Here, terminal: &Terminal) -> Result<PathBuf> {
    let stored = PathBuf::from(&state.repo_root);
    if stored.exists() {
        return Ok(stored);
    }
    let here = here.root()?;
    let same = match &state.snapshot.started_on {
        Some(commit) => crate::repo::holds_commit(&here, commit),
        None => here.file_name() == stored.file_name(),
    };
    if !same {
        return Err(RecordError::Moved { id: state.id.clone(), from: stored }.into());
    }
    store.move_repository(&state.id, &stored, &here)?;
    terminal.say(&format!(
        "The repository moved from {} to {}; the debate continues there.",
        stored.display(),
        here.display()
    ));
    Ok(here)
}
