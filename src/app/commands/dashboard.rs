//! `debate serve`: the dashboard, with the commands' own start and resume behind it, so
//! a debate started or continued in the browser is checked and run exactly as one in
//! the terminal.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::LocalBoxFuture;

use crate::app::commands::resume;
use crate::app::commands::start;
use crate::app::invocation::request::{QuestionSource, ResumeRequest, ServeRequest, StartRequest};
use crate::app::invocation::resolve::RunFlags;
use crate::app::shared::drive::stop_signal;
use crate::app::shared::report;
use crate::error::Result;
use crate::model::{DebateState, Events, RunOptions};
use crate::serve::{self, Launch, NewDebate};
use crate::terminal::{Terminal, Verbosity};
use crate::view::Summary;

pub async fn serve(request: ServeRequest, db: PathBuf) -> Result<()> {
    // Outside a repository the dashboard still shows every debate; new ones then go to
    // the repositories the database knows.
    let here = crate::repo::around_working_directory().ok().map(|root| root.to_string_lossy().into_owned());
    let options = serve::Options { bind: request.bind, port: request.port, db: db.clone(), here };
    // The signals that pause a terminal's debate stop the server; each debate it drives
    // hears them too and pauses.
    let stop = async {
        if stop_signal().await.is_err() {
            // Nothing to listen to: the server runs until it is killed.
            std::future::pending::<()>().await;
        }
    };
    serve::run(options, launcher(db, request.config, request.offline), request.open, stop).await
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

impl Launch for Launcher {
    fn start<'a>(&'a self, debate: NewDebate, events: &'a mut dyn Events) -> LocalBoxFuture<'a, Result<DebateState>> {
        Box::pin(async move {
            let request = start_request(&debate, self.config.clone(), self.offline);
            // Warnings still reach the server's terminal; the debate itself goes to `events`.
            let mut terminal = Terminal::new(Verbosity::Quiet);
            start::run(&request, &self.db, &PathBuf::from(&debate.repository), &mut terminal, Some(events)).await
        })
    }

    fn resume<'a>(
        &'a self,
        id: &'a str,
        issue: bool,
        events: &'a mut dyn Events,
    ) -> LocalBoxFuture<'a, Result<DebateState>> {
        Box::pin(async move {
            // A resumed debate keeps the providers it started with.
            let request = ResumeRequest {
                id: id.to_string(),
                flags: RunFlags { config: self.config.clone(), options: RunOptions { issue, ..RunOptions::default() } },
                ..Default::default()
            };
            let mut terminal = Terminal::new(Verbosity::Quiet);
            resume::run(&request, &self.db, &mut terminal, Some(events)).await
        })
    }

    fn on_disk(&self, summary: Summary) -> Summary {
        report::on_disk(summary)
    }

    fn record_directory(&self, repo_root: &str) -> String {
        let settings = crate::settings::load(Path::new(repo_root), self.config.as_deref());
        let record = settings.map(|loaded| loaded.settings.record).unwrap_or_default();
        record.directory.0
    }
}

/// The form's debate as the command line would ask for it (its rounds and panel size
/// bounded by their types, as the command line's flags are).
fn start_request(debate: &NewDebate, config: Option<PathBuf>, offline: bool) -> StartRequest {
    StartRequest {
        question: QuestionSource::Text(debate.question.clone()),
        flags: RunFlags {
            config,
            options: RunOptions {
                perspectives: debate.perspectives,
                max_rounds: debate.max_rounds,
                no_checkpoints: !debate.checkpoints,
                offline,
                ..RunOptions::default()
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Rounds, Seats};

    fn form(perspectives: Option<u8>, max_rounds: Option<u8>) -> NewDebate {
        NewDebate {
            question: "-".into(),
            repository: "/repo".into(),
            perspectives: perspectives.map(|n| Seats::try_from(i64::from(n)).unwrap()),
            max_rounds: max_rounds.map(|n| Rounds::try_from(i64::from(n)).unwrap()),
            checkpoints: false,
        }
    }

    #[test]
    fn the_forms_flags_are_the_command_lines() {
        let request = start_request(&form(Some(3), Some(20)), None, true);
        let flags = &request.flags.options;
        assert_eq!((flags.perspectives.map(Seats::get), flags.max_rounds.map(Rounds::get)), (Some(3), Some(20)));
        assert!(flags.no_checkpoints && flags.offline);
    }

    #[test]
    fn the_forms_question_is_text_even_when_it_is_a_dash() {
        // A dash on the command line reads stdin; from a form it is only text.
        let request = start_request(&form(None, None), None, false);
        assert_eq!(request.question, QuestionSource::Text("-".into()));
    }
}
