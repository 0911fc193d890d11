//! `debate QUESTION`: a new debate, every input checked before it is stored, then run
//! until it completes or pauses; and `--context-preview`, what it would read.

use std::path::Path;

use crate::app::invocation::request::StartRequest;
use crate::app::invocation::resolve;
use crate::app::shared::drive::{self, Run};
use crate::app::shared::input::{self, without_secrets};
use crate::app::shared::project::{self, Groundwork};
use crate::app::shared::spending;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::{DebateState, Events, PanelSize, Snapshot};
use crate::moderator::{analysis, selection};
use crate::providers;
use crate::record::seal::Sealer;
use crate::record::{self, Templates};
use crate::store::{NewDebate, Store};
use crate::terminal::{self, Terminal};
use crate::text::secrets;
use crate::view::ContextView;

/// A new debate in the repository at `root`, run until it completes or pauses. The
/// engine's events go to `events` when another front end (the dashboard) takes them,
/// else to the terminal.
pub async fn run(
    request: &StartRequest,
    db_path: &Path,
    root: &Path,
    terminal: &mut Terminal,
    events: Option<&mut dyn Events>,
) -> Result<DebateState> {
    let question = input::read_question(&request.question)?;
    let root = root.to_path_buf();
    let flags = &request.flags;
    let loaded = flags.settings(&root)?;
    let catalog = Catalog::build(&loaded.overlays)?;
    let roles = providers::choose_roles(&loaded.settings, flags.options.offline)?;
    let definitions = providers::definitions(&loaded.settings, &roles.all())?;
    let providers::Roles { moderator, debater, seat_models } = roles;
    let debaters = if seat_models.is_empty() { vec![debater.clone()] } else { seat_models.clone() };
    let providers = providers::build_panel(&moderator, &debaters, &definitions, &loaded.settings)?;
    let question = without_secrets(&question, "the question", &providers.shared.secrets, terminal);
    let Groundwork { project, context, supersedes, record: record_settings } =
        project::groundwork(request, &root, &loaded, &question, &providers.shared.secrets, terminal)?;
    project::report(&project, terminal);
    for earlier in &supersedes {
        terminal.say(&format!("This debate's record will supersede {} (\"{}\").", earlier.path, earlier.title));
    }
    let templates = Templates::load(&root)?;
    let requested_branch = flags.options.branch.as_deref();
    if let Some(name) = requested_branch {
        resolve::check_branch(&root, name)?;
    }
    record::preflight(&root, &record_settings, requested_branch.is_some())?;

    // A vague question's clarifying questions are the engine's first step, asked before
    // the panel is final.
    let analysis = analysis::analyse(&question);
    let requested_size = match loaded.settings.debate.default_perspectives {
        PanelSize::Fixed(seats) => Some(seats.get()),
        PanelSize::Auto => None,
    };
    let wanted = selection::Request { size: requested_size, forced: &flags.options.with };
    let panel = selection::select(&catalog, &question, &analysis, &wanted)?;

    // Every input is checked; from here on the debate is stored.
    let store = Store::open(db_path)?;
    spending::month_room(loaded.settings.budget.per_month_usd, &store)?;
    let id = new_id(&store)?;
    let title = record::title_of(&question);
    let snapshot = Snapshot {
        debate: loaded.settings.debate.clone(),
        record: record_settings,
        moderator,
        debater,
        seat_models,
        decision_makers: crate::repo::user_name(crate::repo::open(&root)?.as_ref()).into_iter().collect(),
        context,
        requested_size,
        forced: flags.options.with.clone(),
        providers: definitions,
        started_on: crate::repo::head_id(&root),
        branch: requested_branch.map(|name| match name {
            "" => record::default_branch(&id, &title),
            name => name.to_string(),
        }),
        project,
        supersedes,
        prices: Default::default(),
        cap: flags.cap(&loaded),
    };
    let mut snapshot = snapshot;
    spending::check_priced(&mut snapshot, loaded.settings.budget.per_month_usd)?;
    for notice in &loaded.notices {
        terminal.warn(notice);
    }
    store.create_debate(&NewDebate {
        id: &id,
        question: &question,
        title: &title,
        repo_root: &root.to_string_lossy(),
        snapshot: &snapshot,
        analysis: &analysis,
        panel: &panel,
    })?;
    let lease = store.acquire(&id)?;
    terminal.say(&format!("Debate {id}: {title}"));
    drive::announce_providers(&snapshot, terminal);
    let per_month = loaded.settings.budget.per_month_usd;
    let sealer = Sealer::new(&root, loaded.settings.signing.key.clone());
    let run = Run { providers, catalog: &catalog, templates: &templates, sealer: &sealer, per_month };
    drive::drive(db_path, &store, lease, run, drive::hearer(terminal, events)).await
}

/// `DEB-` and six characters of [0-9a-z], not taken yet.
fn new_id(store: &Store) -> Result<String> {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    loop {
        let random = getrandom::u64().map_err(|err| Error::config(format!("cannot make a debate id: {err}")))?;
        let id: String = (0..6).map(|i| ALPHABET[(random >> (i * 8)) as usize % ALPHABET.len()] as char).collect();
        let id = format!("DEB-{id}");
        if store.resolve_id(&id).is_err() {
            return Ok(id);
        }
    }
}

/// `--context-preview`: what the debaters would read about the project, on stdout,
/// without storing anything or calling a model.
pub fn preview(request: &StartRequest, json: bool, terminal: &Terminal) -> Result<()> {
    let question = input::read_question(&request.question)?;
    let root = crate::repo::around_working_directory()?;
    let loaded = request.flags.settings(&root)?;
    secrets::guard(providers::configured_keys(&loaded.settings));
    let keys = secrets::keys();
    let question = without_secrets(&question, "the question", &keys, terminal);
    let Groundwork { project, .. } = project::groundwork(request, &root, &loaded, &question, &keys, terminal)?;
    match json {
        true => terminal::print_json(&ContextView::of(&project))?,
        false => terminal::print_out(&terminal::show::context(&project))?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_id_is_deb_and_six_lowercase_characters() {
        let store = Store::open_in_memory().unwrap();
        let ids: Vec<String> = (0..50).map(|_| new_id(&store).unwrap()).collect();
        for id in &ids {
            let rest = id.strip_prefix("DEB-").unwrap();
            assert!(rest.len() == 6 && rest.chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase()), "{id}");
        }
        let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert!(distinct.len() > 45, "ids are random: {ids:?}");
    }
}
