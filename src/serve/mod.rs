//! `debate serve`: the dashboard. An HTTP server on the process's tokio runtime that
//! shows every debate in the state database, live, and starts, continues, guides, ends
//! and pauses debates. It is a view and a front end only: the pages and the API show
//! `view`'s documents, and debates run through the commands' own start and resume,
//! handed in as a [`Launch`], with the dashboard's own events (`web_events`) in the
//! terminal's place.

mod api;
mod error;
mod events;
mod hub;
mod idle;
mod jobs;
mod launch;
mod markdown;
mod pages;
mod render;
mod security;
mod state;
mod stored;
mod web_events;

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
use futures::future::LocalBoxFuture;
use tokio::sync::{mpsc, watch};

use crate::error::{Error, Result};
use crate::terminal;

pub use launch::{Launch, NewDebate};

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
    let hub = Arc::new(hub::Hub::default());
    let guard = Arc::new(security::Guard::new(options.bind, options.port)?);
    let token = guard.token().map(str::to_string);
    let driver = Box::pin(jobs::drive(launch.clone(), hub.clone(), queue, stopping.clone()));
    let app = Arc::new(state::App {
        db: options.db.clone(),
        here: options.here.clone(),
        pages: render::Pages::new(),
        hub,
        guard: guard.clone(),
        launch,
        jobs,
        stopping,
    });
    let router = Router::new()
        .route("/", get(pages::index))
        .route("/debates/{id}", get(pages::debate))
        .route("/debates/{id}/record", get(pages::record_file))
        .route("/records", get(pages::repository_record))
        .route("/assets/{name}", get(pages::asset))
        .route("/api/debates", get(api::list).post(api::start))
        .route("/api/debates/{id}", get(api::show))
        .route("/api/debates/{id}/checkpoint", post(api::checkpoint))
        .route("/api/debates/{id}/issue", post(api::issue))
        .route("/api/debates/{id}/events", get(events::events))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(guard, security::check))
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
            idle::serve(listener, router, idle::LIMITS, async move {
                stop.await;
                let _ = stopped.send(true);
            })
            .await;
            // Every debate this server drove heard the signal too and is pausing.
            let _ = driving.await;
            Ok(())
        })
        .await
}

/// `--open`: the desktop's browser, if there is one; the link is printed either way.
fn open_browser(url: &str) {
    if let Err(err) = open::that_detached(url) {
        terminal::Terminal::new(terminal::Verbosity::Normal)
            .warn(&format!("cannot open a browser: {err}; open the link above yourself"));
    }
}
