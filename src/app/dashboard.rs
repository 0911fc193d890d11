//! `debate serve`: the dashboard, with the commands' own start and resume behind it, so
//! a debate started or continued in the browser is checked and run exactly as one in
//! the terminal.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;
use futures::future::LocalBoxFuture;

use super::{issue_draft, project_root, resume, start, stop_signal};
use crate::cli::{Cli, ServeArgs};
use crate::error::{Error, Result};
use crate::model::{DebateState, Events};
use crate::serve::{self, Launch, NewDebate};
use crate::store;
use crate::terminal::{Terminal, Verbosity};
use crate::view::IssueDraft;

pub async fn serve(args: &ServeArgs) -> Result<()> {
    let db = match &args.db {
        Some(path) => path.clone(),
        None => store::default_path()?,
    };
    // Outside a repository the dashboard still shows every debate; new ones then go to
    // the repositories the database knows.
    let here = project_root().ok().map(|root| root.to_string_lossy().into_owned());
    let options = serve::Options { bind: args.bind, port: args.port, db: db.clone(), here };
    // The signals that pause a terminal's debate stop the server; each debate it drives
    // hears them too and pauses.
    let stop = async {
        if stop_signal().await.is_err() {
            // Nothing to listen to: the server runs until it is killed.
            std::future::pending::<()>().await;
        }
    };
    serve::run(options, launcher(db, args.config.clone(), args.offline), args.open, stop).await
}

/// The commands behind a dashboard: debates start and resume as `debate` does, in the
/// state database `db`; new debates also read the settings file `config` and, with
/// `offline`, use the offline debater.
pub fn launcher(db: PathBuf, config: Option<PathBuf>, offline: bool) -> Arc<dyn Launch> {
    Arc::new(Launcher { db, config, offline })
}

struct Launcher {
    db: PathBuf,
    config: Option<PathBuf>,
    offline: bool,
}

impl Launcher {
    /// The command line `debate ARGS`, checked as a terminal's is.
    fn cli(&self, args: Vec<String>, new: bool) -> Result<Cli> {
        let mut line = vec!["debate".to_string()];
        if let Some(config) = &self.config {
            line.extend(["--config".to_string(), config.display().to_string()]);
        }
        // A resumed debate keeps the providers it started with.
        if new && self.offline {
            line.push("--offline".into());
        }
        line.extend(args);
        Cli::try_parse_from(line).map_err(|err| {
            let text = err.to_string();
            let message = text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ");
            Error::input(message.to_string())
        })
    }
}

impl Launch for Launcher {
    fn start<'a>(&'a self, debate: NewDebate, events: &'a mut dyn Events) -> LocalBoxFuture<'a, Result<DebateState>> {
        Box::pin(async move {
            let cli = self.cli(debate.args(), true)?;
            // Warnings still reach the server's terminal; the debate itself goes to `events`.
            let mut terminal = Terminal::new(Verbosity::Quiet);
            start(&cli, &self.db, &PathBuf::from(&debate.repository), &mut terminal, Some(events)).await
        })
    }

    fn resume<'a>(
        &'a self,
        id: &'a str,
        issue: bool,
        events: &'a mut dyn Events,
    ) -> LocalBoxFuture<'a, Result<DebateState>> {
        Box::pin(async move {
            let mut args = vec!["--resume".to_string(), id.to_string()];
            if issue {
                args.push("--issue".into());
            }
            let cli = self.cli(args, false)?;
            let mut terminal = Terminal::new(Verbosity::Quiet);
            resume(&cli, &self.db, id, &mut terminal, Some(events)).await
        })
    }

    fn issue_draft(&self, repo_root: &str, id: &str, title: &str) -> Option<IssueDraft> {
        issue_draft(repo_root, id, title)
    }
}
