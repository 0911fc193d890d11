//! The pages: the list of debates with the form to start one, a debate (live until it
//! completes), its record file, an error as a page, and the two embedded assets: our
//! script and our style sheet.

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;

use super::api::{self, Filter};
use super::error::ApiError;
use super::markdown;
use super::render::record_text;
use super::state::App;
use super::stored::{existing, with_store};
use crate::model::Status;
use crate::record::read::listing;
use crate::view::Detail;

const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

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
        let decisions = api::decisions(&app).await?;
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
        // The form's default: where `debate serve` runs, else the first the database knows.
        let target = app.here.clone().or_else(|| repositories.first().cloned());
        app.pages.render(
            "list.html",
            minijinja::context! {
                debates, repositories, statuses, decisions,
                here => app.here,
                target,
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
        let (detail, live) = with_store(&app.db, move |store| {
            let store = existing(store, &id)?;
            let state = store.load(&store.resolve_id(&id)?)?;
            let situation = state_app.hub.situation(&state.id);
            let live = state_app.pages.live(state_app.launch.as_ref(), &store, &state, situation)?;
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
    let text = with_store(&app.db, move |store| {
        let store = existing(store, &id)?;
        let state = store.load(&store.resolve_id(&id)?)?;
        record_text(&state)
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("{} has no record yet", state.id)))
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// Which record `GET /records` shows.
#[derive(Deserialize)]
pub struct RecordOnBranch {
    branch: String,
    path: String,
}

/// `GET /records?branch=…&path=…`: a decision record of this repository as its branch
/// holds it, for one this database never ran; only a record the list shows.
pub async fn repository_record(
    State(app): State<Arc<App>>,
    query: Result<Query<RecordOnBranch>, QueryRejection>,
) -> Response {
    let page = async {
        let Query(wanted) = query.map_err(|err| ApiError::new(StatusCode::BAD_REQUEST, err.to_string()))?;
        let not_found = || {
            ApiError::new(StatusCode::NOT_FOUND, format!("no decision record {} on {}", wanted.path, wanted.branch))
                .hint("open one the list of this repository's decisions shows")
        };
        let here = app.here.clone().ok_or_else(not_found)?;
        let (launch, branch, path) = (app.launch.clone(), wanted.branch.clone(), wanted.path.clone());
        // Settings and git are read off the runtime's thread, as the database is.
        let (record, text) = tokio::task::spawn_blocking(move || {
            listing::text_on(std::path::Path::new(&here), &launch.record_directory(&here), &branch, &path)
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(not_found)?;
        app.pages.render(
            "record.html",
            minijinja::context! {
                title => record.title,
                status => record.status,
                id => record.id,
                branch => record.branch,
                path => record.path,
                html => minijinja::Value::from_safe_string(markdown::record_to_html(markdown::without_front_matter(&text))),
                csrf => app.guard.csrf(),
            },
        )
    };
    match page.await {
        Ok(html) => Html(html).into_response(),
        Err(err) => error_page(&app, err),
    }
}

/// `GET /assets/{name}`: our script and style sheet, compiled in.
pub async fn asset(Path(name): Path<String>) -> Response {
    match name.as_str() {
        "app.js" => ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], SCRIPT).into_response(),
        "style.css" => ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response(),
        _ => ApiError::new(StatusCode::NOT_FOUND, format!("no asset {name:?}")).into_response(),
    }
}
