//! `--resume ID`: continue a paused or interrupted debate where it stopped; with
//! `--guide`, reopen a complete one for a reviewer's objection (the review loop).

use std::path::{Path, PathBuf};

use super::drive::{self, Run};
use super::input::{read_objection, without_secrets};
use super::request::ResumeRequest;
use super::{existing, report, start};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::{DebateState, Events, Published, Revision, RoleChoice, Rounds, Snapshot, Status};
use crate::providers;
use crate::record::{self, RecordError, Templates};
use crate::settings::{self, FlagOverrides};
use crate::store::Store;
use crate::terminal::Terminal;

/// Continue a debate, as `start` runs a new one.
pub async fn run(
    request: &ResumeRequest,
    db_path: &Path,
    terminal: &mut Terminal,
    events: Option<&mut dyn Events>,
) -> Result<DebateState> {
    let (store, state, imported) = existing::find(db_path, &request.id, request.config.as_deref())?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    if request.review.is_some() {
        existing::here(&state)?;
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
    let root = locate_repository(&store, &state, terminal)?;
    let state = store.load(&state.id)?;
    let loaded = settings::load(&root, request.config.as_deref(), &FlagOverrides::default())?;
    let catalog = Catalog::build(&loaded.overlays)?;
    let mut snapshot = state.snapshot.clone();
    apply_resume_flags(request, &state, &mut snapshot, &root)?;
    let switch_to = if request.offline { Some("offline") } else { request.provider.as_deref() };
    if let Some(name) = switch_to {
        snapshot.moderator = providers::switch(&snapshot.moderator, &loaded.settings, name)?;
        snapshot.debater = providers::switch(&snapshot.debater, &loaded.settings, name)?;
        // One provider for every role now: the seats' own models no longer apply.
        snapshot.seat_models.clear();
    }
    // Debates stored before their providers were: take them from the settings now.
    let roles: Vec<RoleChoice> = [snapshot.moderator.clone()].into_iter().chain(snapshot.debater_roles()).collect();
    for role in &roles {
        if !snapshot.providers.contains_key(&role.provider) {
            snapshot.providers.extend(providers::definitions(&loaded.settings, &[role])?);
        }
    }
    let providers =
        providers::build_panel(&snapshot.moderator, &snapshot.debater_roles(), &snapshot.providers, &loaded.settings)?;
    let templates = Templates::load(&root)?;
    record::preflight(&root, &snapshot.record, snapshot.branch.is_some())?;
    if let Some(review) = &request.review {
        let objection =
            without_secrets(&read_objection(&review.objection)?, "your guidance", &providers.secrets, terminal);
        reopen(objection.trim(), request, &store, &state, &mut snapshot, &templates, terminal)?;
    }
    if snapshot != state.snapshot {
        store.save_snapshot(&state.id, &snapshot)?;
    }
    terminal.resume_summary(&state);
    drive::announce_providers(&snapshot, terminal);
    let run = Run { providers, catalog: &catalog, templates: &templates };
    drive::drive(db_path, &store, lease, run, drive::hearer(terminal, events)).await
}

/// The flags a resumed debate can still take: its remaining rounds, checkpoints, the
/// model, and, until its record is being written, where the record goes. The others
/// (question, panel, context) were fixed when it started; clap refuses them.
fn apply_resume_flags(
    request: &ResumeRequest,
    state: &DebateState,
    snapshot: &mut Snapshot,
    root: &Path,
) -> Result<()> {
    if let Some(rounds) = request.max_rounds {
        snapshot.debate.max_rounds = Rounds(rounds);
    }
    if request.no_checkpoints {
        snapshot.debate.checkpoints = false;
    }
    if request.issue {
        snapshot.record.issue_draft = true;
    }
    if let Some(model) = &request.model {
        // Seats of several providers cannot share one model name.
        let one_provider = request.provider.is_some() || request.offline;
        if !one_provider && snapshot.seat_models.iter().any(|seat| seat.provider != snapshot.debater.provider) {
            return Err(Error::input(format!(
                "{} seats models of several providers, so one --model cannot replace them all",
                state.id
            ))
            .with_hint("add --provider NAME to go on with one provider and that model for every role"));
        }
        snapshot.moderator.model = Some(model.clone());
        snapshot.debater.model = Some(model.clone());
        for seat in &mut snapshot.seat_models {
            seat.model = Some(model.clone());
        }
    }
    // Once the record is being written, what it says and where it goes are fixed; a
    // review rewrites the record where it is, with whichever provider it is given.
    let reviewing = request.review.is_some() && state.status == Status::Complete;
    let fixed = [
        (request.no_commit, "--no-commit"),
        (request.branch.is_some(), "--branch"),
        (request.offline && !reviewing, "--offline"),
        (request.provider.is_some() && !reviewing, "--provider"),
    ];
    if let (Some(path), Some((_, flag))) = (&state.record_path, fixed.iter().find(|(given, _)| *given)) {
        let why = match reviewing {
            true => {
                format!("{}'s review rewrites its record {path} where it is, so {flag} cannot change that", state.id)
            }
            false => format!("{}'s record is already being written to {path}, so {flag} cannot change it", state.id),
        };
        return Err(Error::input(why).with_hint(format!("run it without {flag}")));
    }
    if request.no_commit || request.branch.is_some() {
        snapshot.record.commit &= !request.no_commit;
        if let Some(name) = request.branch.as_deref() {
            start::check_branch(root, name)?;
            snapshot.branch =
                Some(if name.is_empty() { record::default_branch(&state.id, &state.title) } else { name.to_string() });
        }
    }
    Ok(())
}

/// A review's objection reopens a completed debate: its conclusion becomes a revision,
/// and it runs one more round (or up to `--max-rounds`) with the objection as guidance.
fn reopen(
    objection: &str,
    request: &ResumeRequest,
    store: &Store,
    state: &DebateState,
    snapshot: &mut Snapshot,
    templates: &Templates,
    terminal: &Terminal,
) -> Result<()> {
    let discard_edits = request.review.as_ref().is_some_and(|review| review.discard_edits);
    record::check_revisable(state, templates, discard_edits)?;
    let done = state.rounds.len() as u32;
    let rounds = review_rounds(&state.id, state.record_path.as_deref(), done, request.max_rounds)?;
    snapshot.debate.max_rounds = Rounds(rounds);
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
    terminal.say(&format!(
        "Reopened {} for review: {} more round{} with your guidance, then a new synthesis rewrites {}.",
        state.id,
        u32::from(rounds) - done,
        if u32::from(rounds) - done == 1 { "" } else { "s" },
        state.record_path.as_deref().unwrap_or("its record")
    ));
    Ok(())
}

/// How many rounds a reviewed debate may have: `--max-rounds`, which must add one, or
/// one more than it argued, up to the most a debate may.
fn review_rounds(id: &str, record: Option<&str>, done: u32, max_rounds: Option<u8>) -> Result<u8> {
    Ok(match max_rounds {
        Some(max) if u32::from(max) <= done => {
            return Err(Error::input(format!("{id} has argued {done} rounds; --max-rounds {max} adds none"))
                .with_hint(format!("give --max-rounds more than {done}, or leave it out for one more round")));
        }
        Some(max) => max,
        None if done < u32::from(Rounds::MAX) => (done + 1) as u8,
        None => {
            return Err(Error::input(format!("{id} has argued {done} rounds, the most a debate may"))
                .with_hint(format!("debate the objection anew with --supersedes {}", record.unwrap_or("<record>"))));
        }
    })
}

/// `--resume` of a complete debate: its record as it is. `--issue` writes the issue
/// draft it lacks; a flag that would change the debate or its record is refused.
fn resume_complete(
    request: &ResumeRequest,
    store: &Store,
    state: &DebateState,
    terminal: &mut Terminal,
) -> Result<DebateState> {
    let changes = [
        (request.max_rounds.is_some(), "--max-rounds"),
        (request.no_checkpoints, "--no-checkpoints"),
        (request.no_commit, "--no-commit"),
        (request.branch.is_some(), "--branch"),
        (request.model.is_some(), "--model"),
        (request.provider.is_some(), "--provider"),
        (request.offline, "--offline"),
    ];
    if let Some((_, flag)) = changes.iter().find(|(given, _)| *given) {
        let record = state.record_path.as_deref().unwrap_or("(none)");
        return Err(Error::input(format!(
            "{} is already complete, so {flag} cannot change it; its record is {record}",
            state.id
        ))
        .with_hint("start a new debate to debate the question again"));
    }
    terminal.say(&format!("Debate {} is already complete.", state.id));
    if request.issue && report::issue_draft(&state.repo_root, &state.id, state.decision_title()).is_none() {
        // Written into the repository where it is now, never where it used to be.
        let root = locate_repository(store, state, terminal)?;
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
        let draft = record::issue::write(state, &templates, &published)?;
        terminal.say(&format!("Issue draft written to {}. File it with:\n  {}", draft.path.display(), draft.command));
    }
    Ok(state.clone())
}

/// Where a paused debate's repository is now: where it was; or, when that path is
/// gone, the repository here if it holds the commit the debate started on (without
/// one, if it has the same name). The debate then moves with it.
fn locate_repository(store: &Store, state: &DebateState, terminal: &Terminal) -> Result<PathBuf> {
    let stored = PathBuf::from(&state.repo_root);
    if stored.exists() {
        return Ok(stored);
    }
    let here = crate::repo::around_working_directory()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_adds_one_round_unless_max_rounds_says_more() {
        assert_eq!(review_rounds("DEB-a", None, 2, None).unwrap(), 3);
        assert_eq!(review_rounds("DEB-a", None, 2, Some(5)).unwrap(), 5);
        let none_added = review_rounds("DEB-a", None, 3, Some(3)).unwrap_err();
        assert_eq!(none_added.to_string(), "DEB-a has argued 3 rounds; --max-rounds 3 adds none");
        let full = review_rounds("DEB-a", Some("docs/decisions/x.md"), u32::from(Rounds::MAX), None).unwrap_err();
        assert!(full.hint().unwrap().ends_with("--supersedes docs/decisions/x.md"), "{full:?}");
    }
}
