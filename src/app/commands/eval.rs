//! `debate eval ID|PATH`: a finished debate's record scored. Each evaluator (the
//! debate's moderator unless `--evaluators` names others) is asked the rubric through
//! the engine's structured asking; the checks that need no model run beside them; the
//! scorecard is stored, printed, and with `--write` added to the record's provenance in
//! a commit of the record alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::app::invocation::request::EvalRequest;
use crate::app::shared::{existing, spending};
use crate::engine::calls::{self, Ask, Asked};
use crate::error::{Error, Result};
use crate::eval::{checks, rubric};
use crate::model::{Cap, DebateState, Evaluator, PriceList, ProviderDef, ProviderKind, RoleChoice, Scorecard, Status};
use crate::moderator::analysis;
use crate::providers::{self, Budget, Provider, Shared};
use crate::record::{self, Templates};
use crate::settings::{self, Settings};
use crate::store::{Server, Store};
use crate::terminal::{self, Terminal};
use crate::text::untrusted::for_terminal;
use crate::view::ScorecardView;

pub async fn run(request: &EvalRequest, db_path: &Path, json: bool, terminal: &Terminal) -> Result<()> {
    let (card, reviews) = scorecard(request, db_path, terminal).await?;
    match json {
        true => terminal::print_json(&card)?,
        false => terminal::print_out(&for_terminal(&terminal::scores::scorecard(&card, reviews)))?,
    }
    Ok(())
}

/// The record scored, stored and with `--write` committed: the scorecard as `debate
/// eval --json` prints it, and how many reviews reopened the debate so far.
pub async fn scorecard(request: &EvalRequest, db_path: &Path, terminal: &Terminal) -> Result<(ScorecardView, usize)> {
    let (store, state, imported) = existing::find(db_path, &request.target, request.config.as_deref(), &request.here)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    if state.status != Status::Complete {
        return Err(Error::input(format!(
            "{} is {}: it has no finished record to score yet",
            state.id,
            state.status.as_str()
        ))
        .with_hint(format!("finish it with `debate resume {}` first", state.id)));
    }
    let root = PathBuf::from(&state.repo_root);
    let loaded = settings::load(&root, request.config.as_deref())?;
    let templates = Templates::load(&root)?;
    if request.write {
        existing::here(&state, &request.here)?;
        existing::record_in_work_tree(&state, "--write adds the scores to")?;
        // The record and the debate as they are once no other command is writing them
        // (another `eval --write` may have just added its scores to both).
        let _lock = record::CommitLock::at(&root)?;
        record::lifecycle::amend::check_writable(&store.load(&state.id)?, &templates)?;
    }
    let who = Evaluators { named: &request.evaluators, offline: request.offline, cap: request.cap };
    let card = score(who, &store, &state, &loaded.settings, &templates, terminal).await?;
    let number = store.save_scorecard(&state.id, &card)?;
    let mut after = state.clone();
    after.scorecards.push(Scorecard { number, written: request.write, ..card.clone() });
    if request.write {
        let _lock = record::CommitLock::at(&root)?;
        after = store.load(&state.id)?;
        after.scorecards.retain(|c| c.number != number);
        after.scorecards.push(Scorecard { number, written: true, ..card });
        let sealer = record::seal::Sealer::new(&root, loaded.settings.signing.key.clone());
        let amendment = record::lifecycle::amend::Amendment::Scores;
        let scored = record::lifecycle::amend::amend(&after, &amendment, &templates, &sealer, &loaded.settings.record)?;
        store.save_written(&state.id, number, scored.commit.as_deref())?;
        for warning in &scored.warnings {
            terminal.warn(warning);
        }
        let shown = scored.path.strip_prefix(&root).unwrap_or(&scored.path).display().to_string();
        terminal.say(&match (&scored.commit, &scored.not_committed) {
            (Some(commit), _) => format!("The scores are in {shown}'s provenance, committed as {}.", short(commit)),
            (None, why) => format!(
                "The scores are in {shown}'s provenance; not committed ({}).",
                why.as_deref().unwrap_or("committing is off")
            ),
        });
    }
    let reviews = after.revisions.len();
    Ok((ScorecardView::of(after.scorecards.last().expect("the scorecard just added"), reviews), reviews))
}

/// Who scores a record: the offline provider, the evaluators named, or (neither) the
/// debate's moderator.
#[derive(Clone, Copy)]
pub struct Evaluators<'a> {
    pub named: &'a [String],
    pub offline: bool,
    /// What their calls may spend.
    pub cap: Cap,
}

/// Every evaluator's marks on the record, and the checks beside them (numbered when stored).
pub async fn score(
    who: Evaluators<'_>,
    store: &Store,
    state: &DebateState,
    settings: &Settings,
    templates: &Templates,
    terminal: &Terminal,
) -> Result<Scorecard> {
    let body = checks::body(&record_text(state, templates)?);
    let found = checks::run(&body, &analysis::analyse(&state.question).options);
    let local = checks::composed(&body, &found);
    let roles = evaluator_roles(who, state, settings)?;
    let mut definitions = state.snapshot.providers.clone();
    for role in &roles {
        if !definitions.contains_key(&role.provider) {
            definitions.extend(providers::definitions(settings, &[role])?);
        }
    }
    // One provider per evaluator, shared where two name the same provider and model.
    let mut built = providers::build_panel(&roles[0], &roles, &definitions, settings)?;
    built.shared.budget = scoring_budget(store, who.cap, state, &roles, &definitions, settings)?;
    let names: Vec<&str> = roles.iter().map(|role| shown_model(role, &definitions).unwrap_or(&role.provider)).collect();
    terminal.say(&format!("Scoring {}'s record: {}…", state.id, names.join(", ")));
    let calls = roles.iter().zip(&built.debaters).map(|(role, provider)| {
        let asked = rubric::request(state, &body, role.temperature, local.clone());
        // Each evaluator is asked strictly only once its own answer could not be read.
        let shared = Shared { strict: Default::default(), ..built.shared.clone() };
        evaluate(store, state, role, &definitions, provider.as_ref(), shared, asked)
    });
    let evaluators = futures::future::join_all(calls).await;
    for retried in built.shared.retries.take() {
        terminal.detail(&retried);
    }
    let evaluators = evaluators.into_iter().collect::<Result<Vec<_>>>()?;
    for unread in evaluators.iter().filter(|e| e.marks.is_empty()) {
        terminal.warn(&format!("{}'s answer could not be read as scores, even asked again strictly", unread.model));
    }
    Ok(Scorecard {
        number: 0,
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        revision: state.revisions.len() as u32,
        evaluators,
        checks: found,
        written: false,
    })
}

/// What the evaluators' calls may spend: `cap`, every one of their models priced (a
/// cost cap refuses one without a price before anything is sent).
fn scoring_budget(
    store: &Store,
    cap: Cap,
    state: &DebateState,
    roles: &[RoleChoice],
    definitions: &BTreeMap<String, ProviderDef>,
    settings: &Settings,
) -> Result<Budget> {
    let mut scoring = state.snapshot.clone();
    (scoring.moderator, scoring.debater, scoring.seat_models) = (roles[0].clone(), roles[0].clone(), roles.to_vec());
    (scoring.providers, scoring.cap) = (definitions.clone(), cap);
    let per_month = settings.budget.per_month_usd;
    spending::check_priced(&mut scoring, per_month)?;
    spending::month_room(per_month, store)?;
    // The evaluators' requests are the debate's on the ledger, as its calls are.
    let till = spending::LedgerTill::open(store.path(), Some(state.id.clone()), per_month)?;
    Ok(Budget::new(cap, PriceList::of(&scoring), &[], Some(std::sync::Arc::new(till))))
}

/// One evaluator's marks: the rubric asked once, and once more strictly when the answer
/// cannot be read. A server's structured format learned before is where it starts.
async fn evaluate(
    store: &Store,
    state: &DebateState,
    role: &RoleChoice,
    definitions: &BTreeMap<String, ProviderDef>,
    provider: &dyn Provider,
    shared: Shared,
    request: providers::Request,
) -> Result<Evaluator> {
    let server = server_of(role, definitions);
    let server = server.as_ref().map(|(model, base_url)| Server { provider: &role.provider, model, base_url });
    if let Some(format) = server.as_ref().map(|s| store.learnt_format(s)).transpose()?.flatten() {
        provider.start_with_format(&format);
    }
    let asked = Asked { provider, shared: &shared };
    let (completion, marks) = calls::ask_structured(asked, state, &Ask::Own(&request), rubric::read).await?;
    if let (Some(server), Some(format)) = (&server, &completion.format) {
        store.save_format(server, format)?;
    }
    Ok(Evaluator {
        provider: role.provider.clone(),
        model: shown_model(role, definitions).unwrap_or(&completion.model).to_string(),
        reasoned: provider.identity().reasoned,
        marks: marks.unwrap_or_default(),
        usage: completion.usage,
    })
}

/// `--offline`; else `--evaluators`, each a model of the moderator's provider unless it
/// names its own; else the debate's moderator as it ran.
fn evaluator_roles(who: Evaluators, state: &DebateState, settings: &Settings) -> Result<Vec<RoleChoice>> {
    let moderator = &state.snapshot.moderator;
    if who.offline {
        return Ok(vec![RoleChoice {
            provider: "offline".into(),
            kind: ProviderKind::Offline,
            model: None,
            ..moderator.clone()
        }]);
    }
    if who.named.is_empty() {
        return Ok(vec![moderator.clone()]);
    }
    Ok(providers::evaluator_roles(settings, moderator, who.named)?)
}

/// The model a role asks for: its own, else its provider's; none for a provider no model
/// stands behind (its answers name it).
fn shown_model<'a>(role: &'a RoleChoice, definitions: &'a BTreeMap<String, ProviderDef>) -> Option<&'a str> {
    if providers::label(role.kind).is_some() {
        return None;
    }
    match definitions.get(&role.provider) {
        Some(definition) => definition.model_for(role),
        None => role.model.as_deref(),
    }
}

/// The model and base URL a role's structured formats are learned under.
fn server_of(role: &RoleChoice, definitions: &BTreeMap<String, ProviderDef>) -> Option<(String, String)> {
    let definition = definitions.get(&role.provider)?;
    Some((shown_model(role, definitions)?.to_string(), definition.base_url()?))
}

/// The record as it is in the work tree, else as debate renders it from the debate
/// (its record is on a branch that is not checked out, or was removed).
fn record_text(state: &DebateState, templates: &Templates) -> Result<String> {
    let path = PathBuf::from(state.record_path.as_deref().unwrap_or_default());
    let on_disk = path
        .strip_prefix(&state.repo_root)
        .ok()
        .and_then(|relative| record::WorkTree::open(Path::new(&state.repo_root)).ok()?.read(relative).ok()?);
    Ok(match on_disk {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => templates.decision(state, &path)?.decision,
    })
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}
