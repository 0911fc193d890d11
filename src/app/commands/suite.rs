//! `debate eval --suite FILE`: every question of a suite debated in a throwaway
//! repository (its context files in it) with the configured provider — or with each of
//! `--models` in turn —, each record scored as `debate eval` scores one, and a report,
//! markdown and JSON, that compares the models. The debates and their state go with the
//! scratch directory; only the report stays.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::app::commands::baseline::{self, Scoring};
use crate::app::commands::eval::{self, Evaluators};
use crate::app::commands::start;
use crate::app::invocation::request::{QuestionSource, StartRequest, SuiteRequest};
use crate::app::invocation::resolve::RunFlags;
use crate::app::shared::input;
use crate::error::{Error, Result};
use crate::eval::report::{self, BaselineTotals, Debated, Marks, Report, Run, Totals};
use crate::eval::suite::{self, Question, Suite};
use crate::model::{Cost, DebateState, Events, RoleChoice, RunOptions, Scorecard, Status};
use crate::providers;
use crate::record::Templates;
use crate::settings::{self, Settings};
use crate::store::Store;
use crate::terminal::suite::SuiteProgress;
use crate::terminal::{self, Terminal, Verbosity};
use crate::text::secrets;

pub async fn run(request: &SuiteRequest, json: bool, terminal: &Terminal) -> Result<()> {
    let origin = request.suite.display().to_string();
    let text = input::read_text_file(&request.suite, &format!("the suite {origin}"))?;
    let suite = suite::parse(&text, &origin)
        .map_err(|why| Error::input(why).with_hint("see docs/eval/suite.yaml for the format"))?;
    let base = request.suite.parent().map(Path::to_path_buf).unwrap_or_default();
    let context = read_context_files(&suite, &base)?;
    let here = crate::repo::around_working_directory()?;
    let loaded = settings::load(&here, request.config.as_deref())?;
    // Every model is resolved before the first debate: a typo costs nothing.
    let models = models(request, &loaded.settings)?;
    let scratch =
        tempfile::tempdir().map_err(|err| Error::config(format!("cannot make a scratch directory: {err}")))?;
    let total = (models.len() * suite.questions.len()) as u64;
    let progress = SuiteProgress::new(total, terminal);
    let every = every_run(request, &suite, &models, &context, scratch.path(), &progress, terminal);
    // A signal stops the suite where it is, as it stops a debate: its debates are the
    // scratch directory's, so nothing is kept of them and no call is sent after it.
    let runs = tokio::select! {
        runs = every => runs?,
        signal = crate::app::shared::drive::stop_signal() => {
            progress.finish();
            return Err(Error::Stopped { signal: signal? });
        }
    };
    progress.finish();
    let report = Report {
        suite: origin,
        date: chrono::Utc::now().format("%Y-%m-%d").to_string(),
        tool: format!("debate {}", env!("CARGO_PKG_VERSION")),
        max_rounds: request
            .options
            .max_rounds
            .or(suite.max_rounds.filter(|_| suite.questions.iter().all(|q| q.max_rounds.is_none()))),
        baseline: request.baseline,
        runs,
    };
    let json_path = request.report.with_extension("json");
    let document = secrets::gated_json(&report, true).expect("the report serialises");
    write(&request.report, &secrets::gate(&report::markdown(&report)))?;
    write(&json_path, &format!("{document}\n"))?;
    terminal.say(&format!("Report written to {} and {}.", request.report.display(), json_path.display()));
    match json {
        true => terminal::print_json(&report)?,
        false => terminal::print_out(&format!("{}\n{}\n", request.report.display(), json_path.display()))?,
    }
    Ok(())
}

/// Every question debated and scored with every model, in turn.
async fn every_run(
    request: &SuiteRequest,
    suite: &Suite,
    models: &[Model],
    context: &[Vec<ContextFile>],
    scratch: &Path,
    progress: &SuiteProgress,
    terminal: &Terminal,
) -> Result<Vec<Run>> {
    let db = scratch.join("debates.sqlite3");
    let total = (models.len() * suite.questions.len()) as u64;
    let mut runs = Vec::new();
    for (m, model) in models.iter().enumerate() {
        let mut debates = Vec::new();
        for (q, question) in suite.questions.iter().enumerate() {
            // An offline debate never waits on anything: without a yield between them,
            // a suite of thousands would never let the signal that stops it be heard.
            tokio::task::yield_now().await;
            progress.working(&format!("{} · {}", model.label, question.question));
            let repo = scratch.join(format!("m{m}-q{q}"));
            let debated = debate(request, suite, question, &context[q], model, &repo, &db).await?;
            let done = debates.len() + 1 + m * suite.questions.len();
            progress.done(&format!(
                "[{done}/{total}] {} · {}: {}",
                model.label,
                question.question,
                outcome(&debated.0)
            ));
            debates.push(debated);
        }
        let (evaluators, judged) = scorers(&debates, request);
        let debates: Vec<Debated> = debates.into_iter().map(|(debated, _)| debated).collect();
        if let Some(error) = debates.iter().all(|d| !d.completed).then(|| debates[0].error.clone()).flatten() {
            terminal.warn(&format!("no debate completed with {}: {error}", model.label));
        }
        let judged_by_its_family = judged
            && (request.evaluators.is_empty()
                || evaluators.iter().any(|e| crate::model::family(e) == crate::model::family(&model.label)));
        runs.push(Run {
            model: model.label.clone(),
            evaluators,
            judged_by_a_model: judged,
            totals: Totals::of(&debates),
            baseline: BaselineTotals::of(&debates),
            judged_by_its_family,
            debates,
        });
    }
    Ok(runs)
}

/// What debates the suite in one run: as configured, offline, or one `--models` entry.
struct Model {
    label: String,
    /// `--provider` and `--model` for every role; none: as configured.
    provider: Option<String>,
    model: Option<String>,
}

fn models(request: &SuiteRequest, settings: &Settings) -> Result<Vec<Model>> {
    let roles = providers::choose_roles(settings, request.options.offline)?;
    if request.options.models.is_empty() {
        let label = match providers::label(roles.moderator.kind) {
            Some(_) => roles.moderator.provider.clone(),
            None => described(&roles.moderator, settings),
        };
        return Ok(vec![Model { label, provider: None, model: None }]);
    }
    let chosen = providers::evaluator_roles(settings, &roles.debater, &request.options.models)?;
    Ok(request
        .options
        .models
        .iter()
        .zip(chosen)
        .map(|(entry, role)| Model {
            label: entry.trim().to_string(),
            provider: Some(role.provider),
            model: role.model,
        })
        .collect())
}

/// `provider:model`, as a `--models` entry names it.
fn described(role: &RoleChoice, settings: &Settings) -> String {
    let model =
        role.model.clone().or_else(|| providers::definitions(settings, &[role]).ok()?.remove(&role.provider)?.model);
    match model {
        Some(model) => format!("{}:{model}", role.provider),
        None => role.provider.clone(),
    }
}

/// A context file of a suite, read before anything runs: its name and bytes.
type ContextFile = (std::ffi::OsString, Vec<u8>);

/// Every question's context files, read before anything runs as a repository's files are
/// read: a suite is as untrusted as a cloned repository (a shared one may name
/// `~/.ssh/id_rsa`). Plain names inside the suite's folder, never through a link, never a
/// hidden file or one whose name says it holds secrets; anything else is refused before
/// a model is called.
fn read_context_files(suite: &Suite, base: &Path) -> Result<Vec<Vec<ContextFile>>> {
    let folder = if base.as_os_str().is_empty() { Path::new(".") } else { base };
    let tree = crate::record::WorkTree::open(folder)?;
    let refused = |at: usize, file: &Path, why: String| {
        Error::input(format!("question {} of the suite names the context file {}: {why}", at + 1, file.display()))
            .with_hint("context files are files of the suite's folder, named relative to the suite file")
    };
    let mut read = Vec::new();
    for (at, question) in suite.questions.iter().enumerate() {
        let mut files = Vec::new();
        for file in &question.context {
            let hidden = file.components().any(|c| c.as_os_str().to_string_lossy().starts_with(['.', '~']));
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if hidden || crate::context::secret(&name) {
                return Err(refused(at, file, "a hidden file, or one that may hold secrets, is never read".into()));
            }
            let bytes = match tree.read(file) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => return Err(refused(at, file, "it is not there".into())),
                Err(err) => return Err(refused(at, file, err.to_string())),
            };
            files.push((file.file_name().unwrap_or(file.as_os_str()).to_os_string(), bytes));
        }
        read.push(files);
    }
    Ok(read)
}

/// Nobody attends a suite's debates: no checkpoint, no clarifying question, nothing shown.
struct Unattended;

impl Events for Unattended {}

/// One question debated in a new repository at `repo`, its context files copied in,
/// and its record scored; what it came to. Only an interruption stops the suite: a
/// debate that fails, or a record that cannot be scored, is reported as such.
async fn debate(
    request: &SuiteRequest,
    suite: &Suite,
    question: &Question,
    context: &[ContextFile],
    model: &Model,
    repo: &Path,
    db: &Path,
) -> Result<(Debated, Option<Scorecard>)> {
    let context = throwaway_repository(repo, context)?;
    let start = StartRequest {
        question: QuestionSource::Text(question.question.clone()),
        flags: RunFlags {
            config: request.config.clone(),
            // The suite's options, but for one model of `--models` in every role.
            options: RunOptions {
                max_rounds: question.rounds(suite, request.options.max_rounds),
                no_checkpoints: true,
                no_commit: true,
                provider: model.provider.clone(),
                model: model.model.clone(),
                models: Vec::new(),
                context,
                ..request.options.clone()
            },
        },
    };
    let mut quiet = Terminal::new(Verbosity::Quiet);
    let started = Instant::now();
    let debated = start::run(&start, db, repo, &mut quiet, Some(&mut Unattended)).await;
    let wall_seconds = started.elapsed().as_secs_f64();
    let mut result = Debated {
        question: question.question.clone(),
        domain: question.domain.clone(),
        wall_seconds,
        team_chose: question.chosen.clone(),
        expected_options: question.options.clone(),
        ..Debated::default()
    };
    let state = match debated {
        // Ctrl-C or a signal: the suite stops there.
        Err(err) if err.exit_code() >= 128 => return Err(err),
        Err(err) => {
            result.error = Some(err.to_string());
            return Ok((result, None));
        }
        Ok(state) => state,
    };
    describe(&mut result, &state, question);
    if state.status != Status::Complete {
        return Ok((result, None));
    }
    let who = Evaluators { named: &request.evaluators, offline: request.options.offline, cap: request.options.cap() };
    let settings = settings::load(repo, request.config.as_deref())?.settings;
    let store = Store::open(db)?;
    let templates = Templates::load(repo)?;
    let card = match eval::score(who, &store, &state, &settings, &templates, &quiet).await {
        Ok(card) => card,
        Err(err) if err.exit_code() >= 128 => return Err(err),
        Err(err) => {
            result.error = Some(format!("the record could not be scored: {err}"));
            return Ok((result, None));
        }
    };
    result.marks = Marks::of(&card);
    if let Some(kind) = request.baseline {
        let scoring = Scoring { who, store: &store, settings: &settings, templates: &templates, terminal: &quiet };
        let mut answered = baseline::compare(kind, &state, &result.marks, repo, &scoring).await?;
        answered.matches_team =
            report::chose_the_teams(question.chosen.as_deref(), answered.chosen_option.as_deref(), answered.completed);
        result.baseline = Some(answered);
    }
    Ok((result, Some(card)))
}

/// A new git repository at `repo` holding the context files (by their names), and the
/// paths the debaters read them from.
fn throwaway_repository(repo: &Path, files: &[ContextFile]) -> Result<Vec<PathBuf>> {
    let scratch = |err: std::io::Error| Error::config(format!("cannot write {}: {err}", repo.display()));
    std::fs::create_dir_all(repo).map_err(scratch)?;
    git2::Repository::init(repo).map_err(|err| Error::config(format!("cannot make a repository: {err}")))?;
    let mut copies = Vec::new();
    for (name, bytes) in files {
        let copy = repo.join(name);
        std::fs::write(&copy, bytes).map_err(scratch)?;
        copies.push(copy);
    }
    Ok(copies)
}

/// What the debate came to: its tokens, cost, rounds, end, the option it chose against
/// the team's, the options it debated and which expected ones it weighed (one to one).
fn describe(result: &mut Debated, state: &DebateState, question: &Question) {
    result.completed = state.status == Status::Complete;
    result.tokens = state.totals;
    result.cost_usd = Cost::of(state).known();
    result.rounds = state.rounds.len() as u32;
    result.ended_by = state.end_reason.map(|r| r.as_str().to_string());
    let synthesis = state.outcome.as_ref().map(|o| &o.synthesis);
    result.chosen_option = synthesis.and_then(|s| s.chosen_option.clone());
    result.matches_team =
        report::chose_the_teams(question.chosen.as_deref(), result.chosen_option.as_deref(), result.completed);
    let debated: Vec<String> = match synthesis.filter(|s| !s.options.is_empty()) {
        Some(s) => s.options.iter().map(|o| o.option.clone()).collect(),
        None => state.analysis.options.clone(),
    };
    result.weighed_options = report::weighed(&question.options, &debated);
    result.debated_options = debated;
}

/// Who scored a run's records, and whether a model judged any.
fn scorers(debates: &[(Debated, Option<Scorecard>)], request: &SuiteRequest) -> (Vec<String>, bool) {
    let cards: Vec<&Scorecard> = debates.iter().filter_map(|(_, card)| card.as_ref()).collect();
    let mut names: Vec<String> = Vec::new();
    for evaluator in cards.iter().flat_map(|card| &card.evaluators) {
        if !names.contains(&evaluator.model) {
            names.push(evaluator.model.clone());
        }
    }
    if names.is_empty() {
        names = match request.evaluators.is_empty() {
            true => vec!["each debate's moderator".into()],
            false => request.evaluators.clone(),
        };
    }
    (names, cards.iter().any(|card| card.judged_by_a_model()))
}

/// How a debate ended, in a few words, for the progress line.
fn outcome(debated: &Debated) -> String {
    match (&debated.error, debated.completed) {
        (Some(error), _) => format!("failed ({error})"),
        (None, false) => "not complete".into(),
        (None, true) => format!(
            "{} round{}, chose {}, {:.1} s",
            debated.rounds,
            if debated.rounds == 1 { "" } else { "s" },
            debated.chosen_option.as_deref().unwrap_or("no single option"),
            debated.wall_seconds
        ),
    }
}

/// Write a report file, whole.
fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|err| {
        Error::input(format!("cannot write the report {}: {err}", path.display()))
            .with_hint("pass --report PATH where it can be written")
    })
}
