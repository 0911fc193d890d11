//! The commands: start a debate, resume one, list, show. Each checks every input
//! before it writes anything.

pub mod dashboard;
mod lifecycle;
mod project;

use project::Groundwork;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::catalog::Catalog;
use crate::cli::{Cli, Command};
use crate::engine::run::Engine;
use crate::error::{Error, Result, Signal};
use crate::model::{
    Clarification, Clarified, DebateState, Events, Listing, PanelSize, Published, Revision, RoleChoice, Rounds,
    Snapshot, Status,
};
use crate::moderator::{analysis, selection};
use crate::providers;
use crate::record::lifecycle::Verdict;
use crate::record::{self, RecordError, Templates};
use crate::settings::{self, FlagOverrides, TrustStore};
use crate::store::{self, Lease, NewDebate, Store};
use crate::terminal::{self, Terminal, Verbosity, prompt};
use crate::text::secrets::{self, Masker};
use crate::view::{ContextView, Detail, IssueDraft, Paused, Summary};

/// Largest question we accept, from any source.
const MAX_QUESTION_BYTES: usize = 16 * 1024;
/// Largest `--context` file.
const MAX_CONTEXT_BYTES: usize = 256 * 1024;

pub async fn run(cli: Cli) -> Result<()> {
    // Whatever the command, no key in the environment leaves the process.
    secrets::guard(providers::environment_keys());
    let result = command(&cli).await;
    if let (true, Err(err)) = (cli.json, &result)
        && let Some(id) = err.paused()
    {
        // A script reading --json learns which debate paused and how to go on.
        terminal::print_json(&Paused::new(id, err.to_string(), err.hint(), err.exit_code()))?;
    }
    result
}

async fn command(cli: &Cli) -> Result<()> {
    if let Some(Command::Completions { shell }) = cli.command {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "debate", &mut script);
        return Ok(terminal::print_out(&String::from_utf8_lossy(&script))?);
    }
    let verbosity = match (cli.quiet, cli.verbose) {
        (true, _) => Verbosity::Quiet,
        (_, true) => Verbosity::Verbose,
        _ => Verbosity::Normal,
    };
    let mut terminal = Terminal::new(verbosity);
    if let Some(Command::Trust { path, revoke }) = &cli.command {
        return trust(path.as_deref(), *revoke, &terminal);
    }
    let lifecycle = match &cli.command {
        Some(Command::Accept(args)) => Some((args, Verdict::Accepted)),
        Some(Command::Reject(args)) => Some((args, Verdict::Rejected)),
        Some(Command::Deprecate(args)) => Some((args, Verdict::Deprecated)),
        _ => None,
    };
    if let Some((args, verdict)) = lifecycle {
        let terminal = Terminal::new(if args.quiet { Verbosity::Quiet } else { verbosity });
        return lifecycle::run(args, verdict, &terminal);
    }
    if let Some(Command::Serve(options)) = &cli.command {
        return dashboard::serve(options).await;
    }
    let db_path = match &cli.db {
        Some(path) => path.clone(),
        None => store::default_path()?,
    };
    if cli.list {
        return list(cli, &db_path);
    }
    if let Some(id) = &cli.show {
        let state = load_existing(&db_path, id)?.1;
        if cli.json {
            let mut detail = Detail::of(&state);
            detail.summary.issue_draft = issue_draft(&state.repo_root, &state.id, state.decision_title());
            terminal::print_json(&detail)?;
        } else {
            terminal::print_out(&terminal::show::text(&state))?;
        }
        return Ok(());
    }
    if let Some(id) = &cli.resume {
        let state = resume(cli, &db_path, id, &mut terminal, None).await?;
        return report(cli, &state);
    }
    if let Some(id) = cli.abandon.as_ref().or(cli.delete.as_ref()) {
        return give_up(&db_path, id, cli.delete.is_some(), &terminal);
    }
    if cli.context_preview {
        return preview(cli, &terminal);
    }
    let state = start(cli, &db_path, &project_root()?, &mut terminal, None).await?;
    report(cli, &state)
}

/// `debate trust`: trust a repository settings file as it is now, or stop trusting it.
fn trust(path: Option<&Path>, revoke: bool, terminal: &Terminal) -> Result<()> {
    let file = match path {
        Some(path) => path.to_path_buf(),
        None => settings::repository_settings(&project_root()?),
    };
    let mut store = TrustStore::load()?;
    if revoke {
        let said = match store.revoke(&file) {
            true => "is no longer trusted",
            false => "was not trusted",
        };
        store.save()?;
        terminal.say(&format!("{} {said}.", file.display()));
        return Ok(());
    }
    if !file.is_file() {
        return Err(Error::input(format!("cannot read {}: no such file", file.display()))
            .with_hint("run `debate trust` inside the repository, or name the settings file"));
    }
    // A file that does not parse is not trusted: it is reported as any settings error.
    let settings::Trustable { sensitive, content } = settings::trustable(&file)?;
    store.trust(&file, &content);
    store.save()?;
    let digest = &settings::digest(&content)[..16];
    terminal.say(&format!("Trusted {} and the scripts it names as they are now (sha256 {digest}).", file.display()));
    match sensitive.is_empty() {
        true => terminal.say("It sets nothing that needs trust."),
        false => {
            terminal.say("It may now set:");
            for setting in sensitive {
                terminal.say(&format!("  {setting}"));
            }
        }
    }
    terminal.say("Any change to the file needs `debate trust` again.");
    Ok(())
}

/// The repository the command is about: the git work tree around the working
/// directory, else the working directory itself.
fn project_root() -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(Error::WorkingDirectory)?;
    Ok(canonical(&record::git::work_tree(&cwd)?.unwrap_or(cwd)))
}

fn canonical(path: &Path) -> PathBuf {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    // git2 reports work trees with a trailing slash; keep one spelling for --list filters.
    PathBuf::from(path.to_string_lossy().trim_end_matches('/'))
}

fn list(cli: &Cli, db_path: &Path) -> Result<()> {
    let root = project_root()?;
    let scope = if cli.all { "in any repository".to_string() } else { format!("in {}", root.display()) };
    let rows: Vec<Listing> = match Store::open_existing(db_path)? {
        Some(store) => store.list((!cli.all).then(|| root.to_string_lossy()).as_deref(), cli.limit)?,
        None => Vec::new(),
    };
    if cli.json {
        let summaries: Vec<Summary> = rows
            .iter()
            .map(|row| Summary { issue_draft: issue_draft(&row.repository, &row.id, &row.title), ..Summary::from(row) })
            .collect();
        terminal::print_json(&summaries)?;
    } else {
        terminal::list::print(&rows, &scope)?;
    }
    Ok(())
}

/// The debate's issue draft, if one was written.
fn issue_draft(repo_root: &str, id: &str, title: &str) -> Option<IssueDraft> {
    let path = record::issue::draft_path(Path::new(repo_root), id);
    path.is_file().then(|| IssueDraft {
        command: record::issue::command(Path::new(repo_root), title, &path),
        path: path.display().to_string(),
    })
}

fn load_existing(db_path: &Path, id: &str) -> Result<(Store, DebateState)> {
    let store = Store::open_existing(db_path)?.ok_or_else(|| {
        Error::input(format!("no debate with id {id:?} (there is no state database at {} yet)", db_path.display()))
    })?;
    let full = store.resolve_id(id)?;
    let state = store.load(&full)?;
    Ok((store, state))
}

fn flag_overrides(cli: &Cli) -> FlagOverrides {
    FlagOverrides {
        max_rounds: cli.max_rounds,
        perspectives: cli.perspectives,
        no_checkpoints: cli.no_checkpoints,
        no_commit: cli.no_commit,
        issue: cli.issue,
        provider: cli.provider.clone(),
        model: cli.model.clone(),
        models: cli.models.clone(),
    }
}

/// A new debate in the repository at `root`, run until it completes or pauses. The
/// engine's events go to `events` when another front end (the dashboard) takes them,
/// else to the terminal.
async fn start(
    cli: &Cli,
    db_path: &Path,
    root: &Path,
    terminal: &mut Terminal,
    mut events: Option<&mut dyn Events>,
) -> Result<DebateState> {
    let question = read_question(cli)?;
    let root = root.to_path_buf();
    let loaded = settings::load(&root, cli.config.as_deref(), &flag_overrides(cli))?;
    let catalog = Catalog::build(&loaded.overlays)?;
    let roles = providers::choose_roles(&loaded.settings, cli.offline)?;
    let definitions = providers::definitions(&loaded.settings, &roles.all())?;
    let providers::Roles { moderator, debater, seat_models } = roles;
    let debaters = if seat_models.is_empty() { vec![debater.clone()] } else { seat_models.clone() };
    let providers = providers::build_panel(&moderator, &debaters, &definitions, &loaded.settings)?;
    let question = without_secrets(&question, "the question", &providers.secrets, terminal);
    let Groundwork { project, context, supersedes, record: record_settings } =
        project::groundwork(cli, &root, &loaded, &question, &providers.secrets, terminal)?;
    project::report(&project, terminal);
    for earlier in &supersedes {
        terminal.say(&format!("This debate's record will supersede {} (\"{}\").", earlier.path, earlier.title));
    }
    let templates = Templates::load(&root)?;
    let requested_branch = cli.branch.as_deref().map(str::trim);
    if let Some(name) = requested_branch {
        check_branch(&root, name)?;
    }
    record::preflight(&root, &record_settings, requested_branch.is_some())?;

    // A vague question gets the moderator's clarifying question when someone can answer;
    // the answer becomes part of what is analysed and debated.
    let mut analysis = analysis::analyse(&question);
    let rules = &loaded.settings.debate;
    let clarification = match analysis.vague && rules.checkpoints {
        true => {
            let patience = Duration::from_secs(rules.checkpoint_timeout_seconds.0);
            tokio::select! {
                clarified = clarify(hearer(terminal, events.as_deref_mut()), &question, patience) => clarified?,
                // Nothing is stored yet: a signal ends the command, the terminal restored.
                signal = stop_signal() => return Err(Error::Stopped { signal: signal? }),
            }
        }
        false => None,
    }
    .map(|c| Clarification { answer: without_secrets(&c.answer, "your answer", &providers.secrets, terminal), ..c });
    let subject = match &clarification {
        Some(c) => format!("{question}\n{}", c.answer),
        None => question.clone(),
    };
    if clarification.is_some() {
        analysis = analysis::analyse(&subject);
    }
    let requested_size = match loaded.settings.debate.default_perspectives {
        PanelSize::Fixed(n) => Some(n),
        PanelSize::Auto => None,
    };
    let request = selection::Request { size: requested_size, forced: &cli.with };
    let panel = selection::select(&catalog, &subject, &analysis, &request)?;

    // Every input is checked; from here on the debate is stored.
    let store = Store::open(db_path)?;
    let id = new_id(&store);
    let title = record::title_of(&question);
    let snapshot = Snapshot {
        debate: loaded.settings.debate.clone(),
        record: record_settings,
        moderator,
        debater,
        seat_models,
        decision_makers: match record::git::open(&root)? {
            record::git::Repo::Found(repo) => record::git::user_name(Some(&repo)),
            record::git::Repo::None => record::git::user_name(None),
        }
        .into_iter()
        .collect(),
        context,
        requested_size,
        forced: cli.with.clone(),
        providers: definitions,
        started_on: record::git::head_id(&root),
        branch: requested_branch.map(|name| match name {
            "" => record::default_branch(&id, &title),
            name => name.to_string(),
        }),
        project,
        supersedes,
    };
    store.create_debate(&NewDebate {
        id: &id,
        question: &question,
        title: &title,
        repo_root: &root.to_string_lossy(),
        snapshot: &snapshot,
        analysis: &analysis,
        panel: &panel,
        clarification: clarification.as_ref(),
    })?;
    let lease = store.acquire(&id)?;
    terminal.say(&format!("Debate {id}: {title}"));
    announce_providers(&providers, terminal);
    let run = Run { providers, catalog: &catalog, templates: &templates };
    drive(db_path, &store, lease, run, hearer(terminal, events)).await
}

/// Continue a debate, as `start` runs a new one.
async fn resume(
    cli: &Cli,
    db_path: &Path,
    id: &str,
    terminal: &mut Terminal,
    events: Option<&mut dyn Events>,
) -> Result<DebateState> {
    let (store, state) = match load_existing(db_path, id) {
        Err(unknown) if cli.guide.is_some() => return Err(review_elsewhere(cli, id).unwrap_or(unknown)),
        loaded => loaded?,
    };
    // Nothing of the debate changes while another process drives it.
    let lease = store.acquire(&state.id)?;
    let state = store.load(&state.id)?;
    let reviewing = match (state.status, &cli.guide) {
        (Status::Complete, None) => return resume_complete(cli, &store, &state, terminal),
        (Status::Complete, Some(_)) => true,
        (status, Some(_)) => {
            return Err(Error::input(format!(
                "--guide reopens a completed debate, and {} is {}",
                state.id,
                status.as_str()
            ))
            .with_hint("resume it without --guide and give your guidance at its next checkpoint"));
        }
        (_, None) => false,
    };
    let root = locate_repository(&store, &state, terminal)?;
    let state = store.load(&state.id)?;
    let loaded = settings::load(&root, cli.config.as_deref(), &FlagOverrides::default())?;
    let catalog = Catalog::build(&loaded.overlays)?;
    let mut snapshot = state.snapshot.clone();
    apply_resume_flags(cli, &state, &mut snapshot, &root)?;
    let switch_to = if cli.offline { Some("offline") } else { cli.provider.as_deref() };
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
    if reviewing {
        let objection = cli.guide.as_deref().unwrap_or_default();
        let objection = without_secrets(objection, "your guidance", &providers.secrets, terminal);
        reopen(cli, &store, &state, &mut snapshot, objection.trim(), &templates, terminal)?;
    }
    if snapshot != state.snapshot {
        store.save_snapshot(&state.id, &snapshot)?;
    }
    terminal.resume_summary(&state);
    announce_providers(&providers, terminal);
    let run = Run { providers, catalog: &catalog, templates: &templates };
    drive(db_path, &store, lease, run, hearer(terminal, events)).await
}

/// Who hears the engine: the front end that takes its events, else the terminal.
fn hearer<'a, 'b: 'a>(terminal: &'a mut Terminal, events: Option<&'a mut (dyn Events + 'b)>) -> &'a mut dyn Events {
    match events {
        Some(events) => events,
        None => terminal,
    }
}

/// A provider no model stands behind is always named.
fn announce_providers(providers: &providers::Panel, terminal: &Terminal) {
    let mut said: Vec<&str> = Vec::new();
    for provider in [&providers.moderator].into_iter().chain(&providers.debaters) {
        if let Some(label) = providers::label(provider.identity().kind)
            && !said.contains(&label)
        {
            terminal.say(&format!("Provider: {label}"));
            said.push(label);
        }
    }
}

/// `--abandon` (listed as failed from now on) or `--delete` (gone from the database).
/// A record already in the repository is never touched.
fn give_up(db_path: &Path, input: &str, delete: bool, terminal: &Terminal) -> Result<()> {
    let (store, state) = load_existing(db_path, input)?;
    let id = &state.id;
    let whole = input.trim().to_lowercase();
    if delete && whole != id.to_lowercase() && format!("deb-{whole}") != id.to_lowercase() {
        return Err(Error::input(format!("--delete needs a debate's whole id; {input:?} is only the start of {id}"))
            .with_hint(format!("`debate --delete {id}`")));
    }
    if !delete && state.status == Status::Complete {
        return Err(Error::input(format!("{id} is complete: there is nothing to abandon"))
            .with_hint(format!("`debate --delete {id}` removes it from the state database (its record stays)")));
    }
    // Not while another process drives it.
    let lease = store.acquire(id)?;
    if delete {
        store.delete(id)?;
        drop(lease);
        let record = state.record_path.map(|p| format!("; its record {p} stays as it is")).unwrap_or_default();
        terminal.say(&format!("Deleted {id} from the state database{record}."));
    } else {
        store.set_status(id, Status::Failed)?;
        drop(lease);
        terminal.say(&format!(
            "Abandoned {id}: it is listed as failed. `debate --resume {id}` takes it up again; `debate --delete {id}` removes it."
        ));
    }
    Ok(())
}

/// The flags a resumed debate can still take: its remaining rounds, checkpoints, the
/// model, and, until its record is being written, where the record goes. The others
/// (question, panel, context) were fixed when it started; clap refuses them.
fn apply_resume_flags(cli: &Cli, state: &DebateState, snapshot: &mut Snapshot, root: &Path) -> Result<()> {
    if let Some(rounds) = cli.max_rounds {
        snapshot.debate.max_rounds = Rounds(rounds);
    }
    if cli.no_checkpoints {
        snapshot.debate.checkpoints = false;
    }
    if cli.issue {
        snapshot.record.issue_draft = true;
    }
    if let Some(model) = &cli.model {
        // Seats of several providers cannot share one model name.
        let one_provider = cli.provider.is_some() || cli.offline;
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
    // Once the record is being written, what it says and where it goes are fixed.
    let fixed = [
        (cli.no_commit, "--no-commit"),
        (cli.branch.is_some(), "--branch"),
        (cli.offline, "--offline"),
        (cli.provider.is_some(), "--provider"),
    ];
    if let (Some(path), Some((_, flag))) = (&state.record_path, fixed.iter().find(|(given, _)| *given)) {
        return Err(Error::input(format!(
            "{}'s record is already being written to {path}, so {flag} cannot change it",
            state.id
        ))
        .with_hint(format!("resume without {flag}")));
    }
    if cli.no_commit || cli.branch.is_some() {
        snapshot.record.commit &= !cli.no_commit;
        if let Some(name) = cli.branch.as_deref().map(str::trim) {
            check_branch(root, name)?;
            snapshot.branch =
                Some(if name.is_empty() { record::default_branch(&state.id, &state.title) } else { name.to_string() });
        }
    }
    Ok(())
}

/// Why a review cannot run here on a debate this machine never ran, when its record is
/// in this repository (a teammate's, or a fresh clone's): the record carries the
/// transcript for people, not the state the engine goes on from.
fn review_elsewhere(cli: &Cli, id: &str) -> Option<Error> {
    let root = project_root().ok()?;
    let record = settings::load(&root, cli.config.as_deref(), &FlagOverrides::default()).ok()?.settings.record;
    let path = project::locate(&root, id, &record, "--resume").ok()?;
    Some(
        Error::input(format!(
            "{id} is not in this machine's state database, so its review cannot run here; its record is {path}, \
             which keeps the transcript for reviewers but not the state a debate goes on from"
        ))
        .with_hint(format!(
            "run the review where the debate ran, or debate the objection anew: debate --supersedes {path} \"…\""
        )),
    )
}

/// A review's objection reopens a completed debate: its conclusion becomes a revision,
/// and it runs one more round (or up to `--max-rounds`) with the objection as guidance.
fn reopen(
    cli: &Cli,
    store: &Store,
    state: &DebateState,
    snapshot: &mut Snapshot,
    objection: &str,
    templates: &Templates,
    terminal: &Terminal,
) -> Result<()> {
    if objection.is_empty() {
        return Err(Error::input("--guide needs the reviewer's objection")
            .with_hint("--guide \"Reviewer: what about operating cost?\""));
    }
    record::check_revisable(state, templates, cli.discard_edits)?;
    let done = state.rounds.len() as u32;
    let rounds = match cli.max_rounds {
        Some(max) if u32::from(max) <= done => {
            return Err(Error::input(format!("{} has argued {done} rounds; --max-rounds {max} adds none", state.id))
                .with_hint(format!("give --max-rounds more than {done}, or leave it out for one more round")));
        }
        Some(max) => max,
        None if done < u32::from(Rounds::MAX) => (done + 1) as u8,
        None => {
            return Err(Error::input(format!("{} has argued {done} rounds, the most a debate may", state.id))
                .with_hint(format!(
                    "debate the objection anew with --supersedes {}",
                    state.record_path.as_deref().unwrap_or("<record>")
                )));
        }
    };
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

/// `--resume` of a complete debate: its record as it is. `--issue` writes the issue
/// draft it lacks; a flag that would change the debate or its record is refused.
fn resume_complete(cli: &Cli, store: &Store, state: &DebateState, terminal: &mut Terminal) -> Result<DebateState> {
    let changes = [
        (cli.max_rounds.is_some(), "--max-rounds"),
        (cli.no_checkpoints, "--no-checkpoints"),
        (cli.no_commit, "--no-commit"),
        (cli.branch.is_some(), "--branch"),
        (cli.model.is_some(), "--model"),
        (cli.provider.is_some(), "--provider"),
        (cli.offline, "--offline"),
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
    if cli.issue && issue_draft(&state.repo_root, &state.id, state.decision_title()).is_none() {
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
    let here = project_root()?;
    let same = match &state.snapshot.started_on {
        Some(commit) => record::git::holds_commit(&here, commit),
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

/// What a run of the engine needs besides the store.
struct Run<'a> {
    providers: providers::Panel,
    catalog: &'a Catalog,
    templates: &'a Templates,
}

/// Run the engine until the debate completes, pauses or is interrupted.
/// One process drives a debate at a time: it holds the debate's lease while it runs,
/// says it is alive from a second connection, and gives the lease up however it stops.
/// Ctrl-C, SIGTERM and SIGHUP all pause the debate.
async fn drive(
    db_path: &Path,
    store: &Store,
    lease: Lease<'_>,
    run: Run<'_>,
    events: &mut dyn Events,
) -> Result<DebateState> {
    let id = lease.id().to_string();
    events.driving(&id);
    let heartbeat = {
        let (db_path, id, owner) = (db_path.to_path_buf(), id.clone(), lease.owner().clone());
        tokio::spawn(async move {
            let Ok(store) = Store::open(&db_path) else { return };
            // Until the lease is lost; the engine notices that at its next step.
            while store.heartbeat(&id, &owner).unwrap_or(true) {
                tokio::time::sleep(store::HEARTBEAT).await;
            }
        })
    };
    let Run { providers, catalog, templates } = run;
    let mut engine = Engine { store, providers, catalog, templates, events };
    let result = tokio::select! {
        result = engine.run(&id) => result,
        signal = stop_signal() => match signal {
            Ok(signal) => Err(engine.pause(&id, Error::Stopped { signal })),
            Err(err) => Err(err),
        },
    };
    heartbeat.abort();
    drop(lease);
    result
}

/// The first of Ctrl-C, SIGTERM and SIGHUP to arrive.
async fn stop_signal() -> Result<Signal> {
    use tokio::signal::unix::{SignalKind, signal};
    let listen = |kind| signal(kind).map_err(|err| Error::config(format!("cannot listen for signals: {err}")));
    let (mut terminate, mut hang_up) = (listen(SignalKind::terminate())?, listen(SignalKind::hangup())?);
    Ok(tokio::select! {
        _ = tokio::signal::ctrl_c() => Signal::Interrupt,
        _ = terminate.recv() => Signal::Terminate,
        _ = hang_up.recv() => Signal::HangUp,
    })
}

/// The result on stdout: the record path, or JSON.
fn report(cli: &Cli, state: &DebateState) -> Result<()> {
    if cli.json {
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

/// `--branch` needs a repository with a valid, unused branch name.
fn check_branch(root: &Path, name: &str) -> Result<()> {
    match record::git::open(root)? {
        record::git::Repo::None => Err(Error::input("--branch needs a git repository")
            .with_hint("run debate inside a git work tree, or drop --branch")),
        // The default name holds the new debate's id, so it cannot be taken yet.
        record::git::Repo::Found(_) if name.is_empty() => Ok(()),
        record::git::Repo::Found(repo) => Ok(record::git::check_new_branch(&repo, name)?),
    }
}

/// Ask the clarifying question, when someone can answer; an empty answer debates the
/// question as it is.
async fn clarify(events: &mut dyn Events, question: &str, patience: Duration) -> Result<Option<Clarification>> {
    let Some(answer) = events.clarify(question, patience) else { return Ok(None) };
    match answer.await {
        Clarified::Answer(answer) => Ok(Some(Clarification { question: prompt::CLARIFYING_QUESTION.into(), answer })),
        Clarified::Skipped => Ok(None),
        Clarified::Interrupted => Err(Error::interrupted("interrupted before the debate started; nothing was saved")),
    }
}

fn new_id(store: &Store) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    loop {
        let id: String = (0..6).map(|_| ALPHABET[fastrand::usize(..ALPHABET.len())] as char).collect();
        let id = format!("DEB-{id}");
        if store.resolve_id(&id).is_err() {
            return id;
        }
    }
}

/// The question from the argument, `--file`, or stdin (`-`): UTF-8 text, not empty,
/// not binary, not huge.
fn read_question(cli: &Cli) -> Result<String> {
    let (bytes, origin) = match (&cli.question, &cli.file) {
        (Some(q), None) if q != "-" => (q.clone().into_bytes(), "the question".to_string()),
        (Some(_), None) => (read_limited(std::io::stdin().lock(), "stdin")?, "the question on stdin".into()),
        (None, Some(path)) if path.as_os_str() == "-" => {
            (read_limited(std::io::stdin().lock(), "stdin")?, "the question on stdin".into())
        }
        (None, Some(path)) => {
            let file = std::fs::File::open(path)
                .map_err(|err| Error::input(format!("cannot read the question file {}: {err}", path.display())))?;
            (read_limited(file, &path.display().to_string())?, format!("the question file {}", path.display()))
        }
        _ => {
            return Err(Error::input("no question given")
                .with_hint("debate \"Should we use Redis or Postgres for caching?\" (or --file PATH, or - for stdin); see debate --help"));
        }
    };
    let text = checked_text(bytes, &origin, MAX_QUESTION_BYTES)?;
    let question = text.trim().to_string();
    if question.is_empty() {
        return Err(Error::input(format!("{origin} is empty"))
            .with_hint("ask a question with a decision in it, e.g. \"Redis or Postgres for caching?\""));
    }
    Ok(question)
}

fn read_limited(reader: impl Read, origin: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_CONTEXT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::input(format!("cannot read {origin}: {err}")))?;
    Ok(bytes)
}

fn checked_text(bytes: Vec<u8>, origin: &str, limit: usize) -> Result<String> {
    if bytes.len() > limit {
        return Err(Error::input(format!("{origin} is larger than {} KiB", limit / 1024))
            .with_hint("shorten it; put background material in a --context file"));
    }
    if bytes.contains(&0) {
        return Err(
            Error::input(format!("{origin} looks binary (it contains NUL bytes)")).with_hint("pass a UTF-8 text file")
        );
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::input(format!("{origin} is not valid UTF-8")).with_hint("convert it to UTF-8"))
}

/// `text` with every known key and everything shaped like a credential masked, and a
/// warning for each kind found: nothing of it is stored, sent or written.
fn without_secrets(text: &str, origin: &str, keys: &Masker, terminal: &Terminal) -> String {
    let (masked, found) = secrets::scrub(text, keys);
    for what in found {
        warn_masked(origin, &what, terminal);
    }
    masked
}

fn warn_masked(origin: &str, what: &str, terminal: &Terminal) {
    terminal.warn(&secrets::masked_warning(origin, what));
}

/// `--context-preview`: what the debaters would read about the project, on stdout,
/// without storing anything or calling a model.
fn preview(cli: &Cli, terminal: &Terminal) -> Result<()> {
    let question = read_question(cli)?;
    let root = project_root()?;
    let loaded = settings::load(&root, cli.config.as_deref(), &flag_overrides(cli))?;
    secrets::guard(providers::configured_keys(&loaded.settings));
    let keys = secrets::keys();
    let question = without_secrets(&question, "the question", &keys, terminal);
    let Groundwork { project, .. } = project::groundwork(cli, &root, &loaded, &question, &keys, terminal)?;
    match cli.json {
        true => terminal::print_json(&ContextView::of(&project))?,
        false => terminal::print_out(&terminal::show::context(&project))?,
    }
    Ok(())
}
