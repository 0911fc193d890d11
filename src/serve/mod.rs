//! `debate serve`: the dashboard. An HTTP server on the process's tokio runtime that
//! shows every debate in the state database, live, and starts, continues, guides, ends
//! and pauses debates. It is a view and a front end only: the pages and the API show
//! `view`'s documents, and debates run through the commands' own start and resume,
//! handed in as a [`Launch`], with the dashboard's [`Events`] in the terminal's place.

mod api;
mod idle;
mod live;
mod markdown;
mod pages;
mod security;

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use futures::future::LocalBoxFuture;
use serde::Deserialize;
use tokio::sync::{mpsc, watch};

use crate::error::{Error, Result};
use crate::model::{DebateState, Events};
use crate::terminal;
use crate::view::IssueDraft;

pub use live::Job;

/// How the dashboard listens, and what it reads.
#[derive(Debug, Clone)]
pub struct Options {
    pub bind: IpAddr,
    pub port: u16,
    /// The state database.
    pub db: PathBuf,
    /// The repository `debate serve` runs in, offered for new debates even before the
    /// database knows it.
    pub here: Option<String>,
}

/// What the dashboard asks of the commands: start and resume debates exactly as
/// `debate QUESTION` and `debate --resume ID` do, reporting to `events`. The futures
/// hold the store, so they run on the dashboard's local task set.
pub trait Launch: Send + Sync {
    /// A new debate; `events.driving` hears its id once it is stored.
    fn start<'a>(&'a self, debate: NewDebate, events: &'a mut dyn Events) -> LocalBoxFuture<'a, Result<DebateState>>;
    /// Continue a debate (`--resume`); with `issue`, a complete one gets its issue draft.
    fn resume<'a>(
        &'a self,
        id: &'a str,
        issue: bool,
        events: &'a mut dyn Events,
    ) -> LocalBoxFuture<'a, Result<DebateState>>;
    /// The debate's issue draft, if one was written.
    fn issue_draft(&self, repo_root: &str, id: &str, title: &str) -> Option<IssueDraft>;
}

/// A debate to start: the form's fields, or `POST /api/debates`'s body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewDebate {
    pub question: String,
    /// One of the repositories the database knows (or the one `debate serve` runs in).
    pub repository: String,
    /// 2–4; none: the moderator decides.
    #[serde(default)]
    pub perspectives: Option<u8>,
    /// 1–20; none: the settings' cap.
    #[serde(default)]
    pub max_rounds: Option<u8>,
    #[serde(default = "checkpoints_on")]
    pub checkpoints: bool,
}

fn checkpoints_on() -> bool {
    true
}

/// Everything the handlers share.
struct App {
    db: PathBuf,
    here: Option<String>,
    pages: pages::Pages,
    hub: Arc<live::Hub>,
    guard: security::Guard,
    launch: Arc<dyn Launch>,
    jobs: mpsc::UnboundedSender<Job>,
    /// Turns true when the server stops: event streams end with it.
    stopping: watch::Receiver<bool>,
}

/// A dashboard ready to serve.
pub struct Dashboard {
    pub router: Router,
    /// Runs the debates the dashboard drives. It must run on a `tokio::task::LocalSet`
    /// (the engine's futures stay on one thread), and ends once `stopping` turns true
    /// and every debate it drives has stopped.
    pub driver: LocalBoxFuture<'static, ()>,
    /// What every request must carry when listening beyond loopback.
    pub token: Option<String>,
}

/// The dashboard's routes and the task that runs the debates it drives.
pub fn build(options: &Options, launch: Arc<dyn Launch>, stopping: watch::Receiver<bool>) -> Result<Dashboard> {
    let (jobs, queue) = mpsc::unbounded_channel();
    let hub = Arc::new(live::Hub::default());
    let guard = security::Guard::new(options.bind, options.port)?;
    let token = guard.token().map(str::to_string);
    let driver = Box::pin(live::drive(launch.clone(), hub.clone(), queue, stopping.clone()));
    let app = Arc::new(App {
        db: options.db.clone(),
        here: options.here.clone(),
        pages: pages::Pages::new(),
        hub,
        guard,
        launch,
        jobs,
        stopping,
    });
    let router = Router::new()
        .route("/", get(pages::index))
        .route("/debates/{id}", get(pages::debate))
        .route("/debates/{id}/record", get(pages::record_file))
        .route("/assets/{name}", get(pages::asset))
        .route("/api/debates", get(api::list).post(api::start))
        .route("/api/debates/{id}", get(api::show))
        .route("/api/debates/{id}/checkpoint", post(api::checkpoint))
        .route("/api/debates/{id}/issue", post(api::issue))
        .route("/api/debates/{id}/events", get(live::events))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(app.clone(), security::check))
        .layer(axum::middleware::map_response(security::gate))
        .with_state(app);
    Ok(Dashboard { router, driver, token })
}

/// Serve until `stop` resolves (the commands pass Ctrl-C, SIGTERM or SIGHUP); the
/// debates this server drives hear the same signal and pause, as a terminal's do,
/// before it returns.
pub async fn run(
    mut options: Options,
    launch: Arc<dyn Launch>,
    open: bool,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(options.bind, options.port))
        .await
        .map_err(|err| Error::input(format!("cannot listen on {}:{}: {err}", options.bind, options.port)))?;
    let port = listener.local_addr().map_err(|err| Error::config(format!("cannot read the bound port: {err}")))?.port();
    options.port = port;
    let (stopped, stopping) = watch::channel(false);
    let Dashboard { router, driver, token } = build(&options, launch, stopping)?;
    let url = match options.bind {
        IpAddr::V6(ip) => format!("http://[{ip}]:{port}/"),
        IpAddr::V4(ip) => format!("http://{ip}:{port}/"),
    };
    let shown = match &token {
        // Printed once, like Jupyter: the link carries it, and the browser keeps it as a cookie.
        Some(token) => format!("{url}?token={token}"),
        None => url,
    };
    terminal::print_out(&format!("Listening on {shown}\n"))?;
    if open {
        open_browser(&shown);
    }
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let driving = tokio::task::spawn_local(driver);
            let listener = idle::IdleListener::new(listener, idle::IDLE);
            let served = axum::serve(listener, router).with_graceful_shutdown(async move {
                stop.await;
                let _ = stopped.send(true);
            });
            let result = served.await.map_err(|err| Error::config(format!("the dashboard stopped: {err}")));
            // Every debate this server drove heard the signal too and is pausing.
            let _ = driving.await;
            result
        })
        .await
}

/// `--open`: the desktop's browser, if there is one; the link is printed either way.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(err) = spawned {
        terminal::Terminal::new(terminal::Verbosity::Normal)
            .warn(&format!("cannot open a browser with {opener}: {err}; open the link above yourself"));
    }
}
