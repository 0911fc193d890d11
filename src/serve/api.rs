//! The JSON API: the same documents as `--list --json` and `--show --json` (`view`),
//! a new debate, a checkpoint's answer and an issue draft. Errors are JSON too:
//! `{"error": …, "hint": …}` with the status the failure deserves.

use std::str::FromStr;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

use super::error::ApiError;
use super::hub;
use super::jobs::Job;
use super::launch::NewDebate;
use super::security::CSRF_HEADER;
use super::state::App;
use super::stored::{existing, with_store};
use super::web_events::Reply;
use crate::model::{Decision, Status};
use crate::record::read::listing::{self, RepositoryRecord};
use crate::view::{Detail, IssueDraft, Summary};

/// Most debates a list shows.
const MAX_LIMIT: u32 = 1000;
/// How far back a status filter looks.
const FILTER_DEPTH: u32 = 5000;

/// `GET /api/debates` and the list page's query.
/// Unknown parameters are ignored: `?token=` comes along on the first visit.
#[derive(Debug, Default, Deserialize)]
pub struct Filter {
    /// A status name; empty: any.
    #[serde(default)]
    pub status: Option<String>,
    /// A repository path; empty: any.
    #[serde(default)]
    pub repository: Option<String>,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The debates a filter selects, newest first, as `--list --json` prints them.
pub async fn listing(app: &Arc<App>, filter: Filter) -> Result<Vec<Summary>, ApiError> {
    let status = match filter.status.as_deref().filter(|s| !s.is_empty()) {
        Some(name) => Some(Status::from_str(name).map_err(|_| {
            ApiError::new(StatusCode::BAD_REQUEST, format!("unknown status {name:?}"))
                .hint("one of analyzing, in_round, checkpoint, paused, synthesizing, recording, complete, failed")
        })?),
        None => None,
    };
    let limit = filter.limit.unwrap_or(100).clamp(1, MAX_LIMIT);
    let repository = filter.repository.filter(|r| !r.is_empty());
    let launch = app.launch.clone();
    with_store(&app.db, move |store| {
        let Some(store) = store else { return Ok(Vec::new()) };
        let depth = if status.is_some() { FILTER_DEPTH } else { limit };
        let rows = store.list(repository.as_deref(), depth)?;
        Ok(rows
            .iter()
            .filter(|row| status.is_none_or(|s| row.status == s))
            .take(limit as usize)
            .map(|row| launch.on_disk(Summary::from(row)))
            .collect())
    })
    .await
}

/// The repositories a new debate may run in: those the database knows, and the one
/// `debate serve` runs in.
pub async fn repositories(app: &Arc<App>) -> Result<Vec<String>, ApiError> {
    let here = app.here.clone();
    with_store(&app.db, move |store| {
        let mut known = match store {
            Some(store) => store.repositories()?,
            None => Vec::new(),
        };
        if let Some(here) = here
            && !known.contains(&here)
        {
            known.insert(0, here);
        }
        Ok(known)
    })
    .await
}

/// A record of the repository `debate serve` runs in, and whether this database has
/// its debate.
#[derive(Serialize)]
pub struct RepositoryDecision {
    #[serde(flatten)]
    pub record: RepositoryRecord,
    pub in_database: bool,
}

/// The decisions in the repository the dashboard runs in: on the checked-out branch and
/// the `decisions/*` branches, whether or not this database ran them.
pub async fn decisions(app: &Arc<App>) -> Result<Vec<RepositoryDecision>, ApiError> {
    let Some(here) = app.here.clone() else { return Ok(Vec::new()) };
    let launch = app.launch.clone();
    with_store(&app.db, move |store| {
        let records = listing::in_repository(std::path::Path::new(&here), &launch.record_directory(&here));
        Ok(records
            .into_iter()
            .map(|record| {
                let known =
                    |id: &String| store.as_ref().is_some_and(|s| s.resolve_id(id).is_ok_and(|found| found == *id));
                RepositoryDecision { in_database: record.id.as_ref().is_some_and(known), record }
            })
            .collect())
    })
    .await
}

/// A debate in full, as `--show --json` prints it.
pub async fn detail(app: &Arc<App>, id: &str) -> Result<Detail, ApiError> {
    let (id, launch) = (id.to_string(), app.launch.clone());
    with_store(&app.db, move |store| {
        let store = existing(store, &id)?;
        let state = store.load(&store.resolve_id(&id)?)?;
        let mut detail = Detail::of(&state);
        detail.summary = launch.on_disk(detail.summary);
        Ok(detail)
    })
    .await
}

/// `GET /api/debates`: `?status=`, `?repository=`, `?limit=` (100 by default). The
/// response also carries the CSRF token a script needs for the requests that change
/// something.
pub async fn list(State(app): State<Arc<App>>, query: Result<Query<Filter>, QueryRejection>) -> Response {
    let result = async {
        let Query(filter) = query.map_err(ApiError::rejected)?;
        listing(&app, filter).await
    };
    match result.await {
        Ok(rows) => {
            let mut response = Json(rows).into_response();
            if let Ok(csrf) = HeaderValue::from_str(app.guard.csrf()) {
                response.headers_mut().insert(CSRF_HEADER, csrf);
            }
            response
        }
        Err(err) => err.into_response(),
    }
}

/// `GET /api/debates/{id}`.
pub async fn show(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Json<Detail>, ApiError> {
    Ok(Json(detail(&app, &id).await?))
}

/// `POST /api/debates`: start a debate; `201 Created` with its summary once it is
/// stored and running (it runs on after the response).
pub async fn start(
    State(app): State<Arc<App>>,
    body: Result<Json<NewDebate>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(debate) = body.map_err(ApiError::rejected)?;
    // On a command line `-` reads stdin; from the dashboard it is no question at all.
    if debate.question.trim() == "-" {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, "the question is \"-\"").hint("ask a question"));
    }
    if !repositories(&app).await?.contains(&debate.repository) {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("{:?} is not a repository this dashboard knows", debate.repository),
        )
        .hint("choose one of the repositories the form offers"));
    }
    let id = submit(&app, |reply| Job::Start { debate, reply }).await?;
    let summary = detail(&app, &id).await?.summary;
    let location = format!("/debates/{id}");
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(summary)).into_response())
}

/// Hand a job to the driver; the answer comes once the debate runs here, or when the
/// job is done (or failed) without running one.
async fn submit(app: &Arc<App>, job: impl FnOnce(Reply) -> Job) -> Result<String, ApiError> {
    let (reply, answer) = oneshot::channel();
    app.jobs.send(job(reply)).map_err(|_| ApiError::stopping())?;
    answer.await.map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the job ended without an answer"))?
}

/// How to go on at a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Continue,
    Guide,
    End,
    Pause,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub action: Action,
    /// With `guide`: the guidance for the next round.
    #[serde(default)]
    pub guidance: Option<String>,
    /// The rounds argued when the answer was given: the checkpoint it answers. Without
    /// it, the answer goes to whichever checkpoint the debate stands at.
    #[serde(default)]
    pub round: Option<usize>,
}

/// `POST /api/debates/{id}/checkpoint`: answer the checkpoint a debate waits at here;
/// or continue a debate nobody drives (paused in a terminal, or stopped), as
/// `--resume` does, with the answer for the checkpoint it stopped at. `202 Accepted`
/// with its summary: the debate goes on after the response.
pub async fn checkpoint(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Result<Json<Answer>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(answer) = body.map_err(ApiError::rejected)?;
    let decision = match (answer.action, answer.guidance.as_deref().map(str::trim)) {
        (Action::Guide, Some(text)) if crate::text::untrusted::shows_anything(text) => {
            Decision::Guide(text.to_string())
        }
        (Action::Guide, _) => {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "guidance is empty").hint("write the guidance"));
        }
        (Action::Continue, _) => Decision::Continue,
        (Action::End, _) => Decision::End,
        (Action::Pause, _) => Decision::Pause,
    };
    let state = {
        let id = id.clone();
        with_store(&app.db, move |store| {
            let store = existing(store, &id)?;
            Ok(store.load(&store.resolve_id(&id)?)?)
        })
        .await?
    };
    let id = state.id.clone();
    if let Some(round) = answer.round.filter(|round| *round != state.rounds.len()) {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("the checkpoint after round {round} of {id} was answered already"),
        )
        .hint("look at the debate as it stands now"));
    }
    if app.hub.decide(&id, answer.round, decision.clone()) {
        return accepted(&app, &id).await;
    }
    let conflict = |message: String| Err(ApiError::new(StatusCode::CONFLICT, message));
    if app.hub.situation(&id).driven {
        return conflict(format!("{id} is running here and is not waiting at a checkpoint"));
    }
    if state.status == Status::Complete {
        return conflict(format!("{id} is complete"));
    }
    let at_checkpoint = hub::at_checkpoint(&state);
    match answer.action {
        Action::Pause => return conflict(format!("{id} is not running here: there is nothing to pause")),
        Action::Guide | Action::End if !at_checkpoint => {
            return Err(ApiError::new(StatusCode::CONFLICT, format!("{id} is not stopped at a checkpoint"))
                .hint("continue resumes it where it stopped"));
        }
        _ => {}
    }
    if !app.hub.claim(&id) {
        return conflict(format!("{id} is being taken up here already"));
    }
    let decision = at_checkpoint.then_some(decision);
    submit(&app, |reply| Job::Resume { id: id.clone(), decision, issue: false, reply }).await?;
    accepted(&app, &id).await
}

async fn accepted(app: &Arc<App>, id: &str) -> Result<Response, ApiError> {
    let summary = detail(app, id).await?.summary;
    Ok((StatusCode::ACCEPTED, Json(summary)).into_response())
}

/// `POST /api/debates/{id}/issue`: write the issue draft of a complete debate, as
/// `debate resume ID --issue` does; `201 Created` with its path and `gh` command.
pub async fn issue(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let summary = detail(&app, &id).await?.summary;
    if summary.status != Status::Complete {
        return Err(ApiError::new(StatusCode::CONFLICT, format!("{} is not complete yet", summary.id))
            .hint("the issue draft follows the decision record"));
    }
    let id = summary.id;
    submit(&app, |reply| Job::Resume { id: id.clone(), decision: None, issue: true, reply }).await?;
    let draft: Option<IssueDraft> = detail(&app, &id).await?.summary.issue_draft;
    match draft {
        Some(draft) => Ok((StatusCode::CREATED, Json(draft)).into_response()),
        None => Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("no issue draft was written for {id}"))),
    }
}

pub async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such page").hint("the dashboard is at /; the API under /api/debates")
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "this method is not allowed here")
}
