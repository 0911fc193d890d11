//! The pages, rendered on the server from `view`'s documents with minijinja (HTML
//! templates escape every value; model text goes through `markdown`), and the two
//! embedded assets: our script and our style sheet.

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use minijinja::{Environment, Value};
use serde::Serialize;

use super::api::{self, ApiError, Filter, existing, with_store};
use super::live::{self, Situation};
use super::{App, markdown};
use crate::model::{DebateState, Status};
use crate::store::Store;
use crate::view::Detail;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/serve/base.html")),
    ("list.html", include_str!("../../templates/serve/list.html")),
    ("debate.html", include_str!("../../templates/serve/debate.html")),
    ("live.html", include_str!("../../templates/serve/live.html")),
    ("error.html", include_str!("../../templates/serve/error.html")),
];
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");
/// The largest record file shown.
const MAX_RECORD_BYTES: u64 = 1024 * 1024;

pub struct Pages {
    env: Environment<'static>,
}

/// Who drives a debate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Driver {
    Here,
    Elsewhere { pid: u32, host: String },
    Nobody,
}

/// The live part of a debate's page: what the `state` event carries.
#[derive(Debug, Serialize)]
pub struct Live {
    pub status: Status,
    /// The checkpoint buttons that apply now: `continue`, `guide`, `end`, `pause`.
    pub actions: Vec<&'static str>,
    /// The rounds argued so far: the checkpoint the buttons answer is the one after it.
    pub round: usize,
    /// Who drives it, in words.
    pub driver: String,
    pub html: String,
}

/// The record of a complete debate.
#[derive(Serialize)]
struct Record {
    path: String,
    commit: Option<String>,
    branch: Option<String>,
    /// The file as HTML; `None` when it is not in the working tree.
    html: Option<String>,
}

impl Pages {
    pub fn new() -> Pages {
        let mut env = Environment::new();
        for (name, source) in TEMPLATES {
            // The templates are ours and compiled in; a broken one fails every page test.
            if let Err(err) = env.add_template(name, source) {
                panic!("templates/serve/{name}: {err}");
            }
        }
        env.add_filter("markdown", |text: &str| Value::from_safe_string(markdown::to_html(text)));
        env.add_filter("percent", |share: f64| format!("{:.0}%", share * 100.0));
        env.add_filter("short", |commit: &str| commit.chars().take(10).collect::<String>());
        Pages { env }
    }

    fn render(&self, name: &str, context: impl Serialize) -> Result<String, ApiError> {
        self.env
            .get_template(name)
            .and_then(|template| template.render(context))
            .map_err(|err| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot render {name}: {err}")))
    }

    /// The live part of a debate's page, as it stands in the database.
    pub fn live(&self, app: &App, store: &Store, state: &DebateState, situation: Situation) -> Result<Live, ApiError> {
        let driver = live::driver(situation, store.driver(&state.id)?);
        let mut detail = Detail::of(state);
        detail.summary.issue_draft = app.launch.issue_draft(&state.repo_root, &state.id, &state.title);
        let actions = actions(state, &driver, situation);
        let said = describe(&driver, state, !actions.is_empty());
        let html = self.render(
            "live.html",
            minijinja::context! {
                d => detail,
                driver => said,
                record => record(state),
                live => state.status != Status::Complete,
            },
        )?;
        Ok(Live { status: state.status, actions, round: state.rounds.len(), driver: said, html })
    }
}

/// The buttons that apply: all four at a checkpoint this server waits at; for a debate
/// nobody drives, continue (as `--resume`), and guide and end when it stopped at a
/// checkpoint; none while it runs, or is driven elsewhere, or is complete.
fn actions(state: &DebateState, driver: &Driver, situation: Situation) -> Vec<&'static str> {
    match driver {
        _ if situation.waiting => vec!["continue", "guide", "end", "pause"],
        Driver::Here | Driver::Elsewhere { .. } => Vec::new(),
        Driver::Nobody if state.status == Status::Complete => Vec::new(),
        Driver::Nobody if live::at_checkpoint(state) => vec!["continue", "guide", "end"],
        Driver::Nobody => vec!["continue"],
    }
}

fn describe(driver: &Driver, state: &DebateState, actionable: bool) -> String {
    match driver {
        Driver::Here => "Driven by this dashboard.".into(),
        Driver::Elsewhere { pid, host } => {
            format!("Driven by process {pid} on {host}; its checkpoints are answered there.")
        }
        Driver::Nobody if state.status == Status::Complete => "Complete.".into(),
        Driver::Nobody if actionable => "Nobody drives it now: continue it here, or `debate --resume` it.".into(),
        Driver::Nobody => "Nobody drives it now.".into(),
    }
}

fn record(state: &DebateState) -> Option<Record> {
    let path = state.record_path.clone()?;
    if state.status != Status::Complete {
        return None;
    }
    let html = record_text(state).map(|text| markdown::record_to_html(markdown::without_front_matter(&text)));
    Some(Record { path, commit: state.commit_id.clone(), branch: state.snapshot.branch.clone(), html })
}

/// The record's text, at most `MAX_RECORD_BYTES`: the file, or — on `--branch`, where no
/// work tree holds it — as its commit does.
fn record_text(state: &DebateState) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    match &state.snapshot.branch {
        Some(_) => {
            let committed = crate::record::committed(state)?;
            text = String::from_utf8_lossy(&committed[..committed.len().min(MAX_RECORD_BYTES as usize)]).into_owned();
        }
        None => {
            // What a pull may have replaced by a link (to a key file, say) is not shown.
            let path = std::path::Path::new(state.record_path.as_deref()?);
            let inside =
                path.canonicalize().ok()?.starts_with(std::path::Path::new(&state.repo_root).canonicalize().ok()?);
            if !inside || std::fs::symlink_metadata(path).ok()?.file_type().is_symlink() {
                return None;
            }
            std::fs::File::open(path).ok()?.take(MAX_RECORD_BYTES).read_to_string(&mut text).ok()?;
        }
    }
    Some(text)
}

/// A page's failure as a page: its status, what went wrong and what to do.
pub fn error_page(app: &App, err: ApiError) -> Response {
    let (status, message, hint) = err.parts();
    let page = app.pages.render(
        "error.html",
        minijinja::context! { status => status.to_string(), message, hint, csrf => app.guard.csrf() },
    );
    match page {
        Ok(html) => (status, Html(html)).into_response(),
        Err(err) => err.into_response(),
    }
}

/// `GET /`: the debates, filtered by status and repository, and the form to start one.
pub async fn index(State(app): State<Arc<App>>, query: Result<Query<Filter>, QueryRejection>) -> Response {
    let page = async {
        let Query(filter) = query.map_err(|err| ApiError::new(StatusCode::BAD_REQUEST, err.to_string()))?;
        let chosen = (filter.status.clone().unwrap_or_default(), filter.repository.clone().unwrap_or_default());
        let debates = api::listing(&app, filter).await?;
        let repositories = api::repositories(&app).await?;
        let statuses = [
            Status::Analyzing,
            Status::InRound,
            Status::Checkpoint,
            Status::Paused,
            Status::Synthesizing,
            Status::Recording,
            Status::Complete,
            Status::Failed,
        ];
        app.pages.render(
            "list.html",
            minijinja::context! {
                debates, repositories, statuses,
                status => chosen.0,
                repository => chosen.1,
                csrf => app.guard.csrf(),
            },
        )
    };
    match page.await {
        Ok(html) => Html(html).into_response(),
        Err(err) => error_page(&app, err),
    }
}

/// `GET /debates/{id}`: a debate, live until it completes.
pub async fn debate(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let state_app = app.clone();
    let page = async {
        let (detail, live) = with_store(&app, move |store| {
            let store = existing(store, &id)?;
            let state = store.load(&store.resolve_id(&id)?)?;
            let situation = state_app.hub.situation(&state.id);
            let live = state_app.pages.live(&state_app, &store, &state, situation)?;
            Ok((Detail::of(&state), live))
        })
        .await?;
        app.pages.render("debate.html", minijinja::context! { d => detail, live, csrf => app.guard.csrf() })
    };
    match page.await {
        Ok(html) => Html(html).into_response(),
        Err(err) => error_page(&app, err),
    }
}

/// `GET /debates/{id}/record`: the decision record file as it is, as text.
pub async fn record_file(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let text = with_store(&app, move |store| {
        let store = existing(store, &id)?;
        let state = store.load(&store.resolve_id(&id)?)?;
        record_text(&state)
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("{} has no record yet", state.id)))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// `GET /assets/{name}`: our script and style sheet, compiled in.
pub async fn asset(Path(name): Path<String>) -> Response {
    match name.as_str() {
        "app.js" => ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response(),
        "style.css" => ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response(),
        _ => ApiError::new(StatusCode::NOT_FOUND, format!("no asset {name:?}")).into_response(),
    }
}
