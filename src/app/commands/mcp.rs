//! `debate mcp`: the MCP server, with the commands' own requests behind its tools. Each
//! tool builds the request the command line builds — a question as `debate new` takes
//! it, a review as `debate review` — and runs it through the same command, in the
//! repository the server chose; its answer is what that command says at a terminal, and
//! the document its `--json` prints.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use serde::Serialize;
use serde_json::{Value, json};

use crate::app::commands::{check, doctor, eval, lifecycle, list, resume, search, show, start, verify};
use crate::app::invocation::request::{
    DEFAULT_LIMIT, DEFAULT_SEARCH_LIMIT, EvalRequest, LifecycleRequest, QuestionSource, ResumeRequest, Review,
    StartRequest, VerifyRequest,
};
use crate::app::invocation::resolve::RunFlags;
use crate::app::shared::drive::stop_signal;
use crate::confine::Confinement;
use crate::error::{Error, Result};
use crate::mcp::arguments::{
    CheckDecisions, CheckProviders, EvaluateDecision, ListDebates, SearchDecisions, SetDecisionStatus, ShowDebate,
    VerifyDecision,
};
use crate::mcp::{Commands, Debate, Record, Reply};
use crate::model::{DebateState, Events, RunOptions, Status};
use crate::repo::Here;
use crate::store::{Store, StoreError};
use crate::terminal::{self, Terminal, Verbosity};
use crate::text::secrets;
use crate::text::untrusted::{for_terminal, one_line};

/// Serve the tools until the client closes its input or a signal stops the server;
/// the debates running then pause.
pub async fn serve(db: PathBuf, config: Option<PathBuf>, allow: &[PathBuf], verbosity: Verbosity) -> Result<()> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        Terminal::new(verbosity).say(
            "debate mcp serves coding agents over the Model Context Protocol, one JSON message a line on \
             stdin; an agent starts it (claude mcp add debate -- debate mcp). Ctrl-D ends it.",
        );
    }
    let stop = async {
        if stop_signal().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    crate::mcp::serve(Arc::new(Tools { db, config, verbosity }), allow, stop).await
}

/// The commands behind the tools: the state database and settings file `debate mcp`
/// was started with, and how much its commands say on stderr.
struct Tools {
    db: PathBuf,
    config: Option<PathBuf>,
    verbosity: Verbosity,
}

impl Tools {
    /// What a command says on the way goes to stderr, the server's log.
    fn terminal(&self) -> Terminal {
        Terminal::new(self.verbosity)
    }

    fn here(root: &Path) -> Here {
        Here::Repository(root.to_path_buf())
    }

    /// A run with a tool's options, and the settings file `debate mcp` was started with.
    fn flags(&self, options: RunOptions) -> RunFlags {
        RunFlags { config: self.config.clone(), options }
    }
}

impl Commands for Tools {
    fn debate<'a>(
        &'a self,
        debate: Debate,
        root: &'a Path,
        events: &'a mut dyn Events,
    ) -> LocalBoxFuture<'a, Result<Reply>> {
        Box::pin(async move {
            let mut terminal = self.terminal();
            let state = match debate {
                Debate::Start(args) => {
                    let request = StartRequest {
                        question: QuestionSource::Text(args.own.question),
                        flags: self.flags(args.options),
                    };
                    start::run(&request, &self.db, root, &mut terminal, Some(events)).await?
                }
                Debate::Resume(args) => {
                    let flags = self.flags(args.options);
                    let request = ResumeRequest { id: args.own.id, flags, review: None, here: Tools::here(root) };
                    resume::run(&request, &self.db, &mut terminal, Some(events)).await?
                }
                Debate::Review(args) => {
                    let request = ResumeRequest {
                        id: args.id,
                        // A review runs its round without stopping, as in a pull request.
                        flags: self.flags(RunOptions { no_checkpoints: true, ..RunOptions::default() }),
                        review: Some(Review { objection: QuestionSource::Text(args.objection), discard_edits: false }),
                        here: Tools::here(root),
                    };
                    resume::run(&request, &self.db, &mut terminal, Some(events)).await?
                }
            };
            self.ran(&state, root)
        })
    }

    fn evaluate<'a>(&'a self, args: EvaluateDecision, root: &'a Path) -> LocalBoxFuture<'a, Result<Reply>> {
        Box::pin(async move {
            let request = EvalRequest {
                target: args.id,
                evaluators: Vec::new(),
                write: false,
                offline: args.offline,
                cap: Default::default(),
                config: self.config.clone(),
                here: Tools::here(root),
            };
            let (card, reviews) = eval::scorecard(&request, &self.db, &self.terminal()).await?;
            let text = for_terminal(&terminal::scores::scorecard(&card, reviews));
            Ok(Reply { text, document: document(&card) })
        })
    }

    fn check_providers<'a>(&'a self, args: CheckProviders, root: &'a Path) -> LocalBoxFuture<'a, Result<Reply>> {
        Box::pin(async move {
            let only = args.provider.as_deref();
            let checked =
                doctor::checkup(only, self.config.as_deref(), &self.db, &Tools::here(root), &self.terminal()).await?;
            let verdict = match checked.verdict() {
                Ok(()) => "A debate can run with the default provider.".to_string(),
                Err(err) => {
                    let hint = err.hint().map(|hint| format!("\nhint: {hint}")).unwrap_or_default();
                    format!("No debate can run as configured: {err}{hint}")
                }
            };
            let text = format!("{}\n{verdict}", for_terminal(&checked.table()));
            Ok(Reply { text, document: json!({ "providers": document(&checked.checkups) }) })
        })
    }

    fn list(&self, args: ListDebates, root: &Path, allowed: &Confinement) -> Result<Reply> {
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 {
            return Err(Error::input("limit must be 1 or more"));
        }
        // Every repository's debates are those of the repositories this server may touch.
        let allowed = |repository: &Path| allowed.admit(&crate::repo::canonical(repository)).is_ok();
        let (summaries, scope) = list::summaries_of(&self.db, &Tools::here(root), args.all, limit, Some(&allowed))?;
        let text = match summaries.is_empty() {
            true => format!("No debates yet {scope}."),
            false => terminal::list::table(&summaries, args.all),
        };
        Ok(Reply { text, document: json!({ "debates": document(&summaries) }) })
    }

    fn show(&self, args: ShowDebate, root: &Path) -> Result<Reply> {
        let detail = show::detail(&self.db, &args.id, &Tools::here(root), &self.terminal())?;
        Ok(Reply { text: terminal::show::text(&detail), document: document(&detail) })
    }

    fn verify(&self, args: VerifyDecision, root: &Path) -> Result<Reply> {
        let request = VerifyRequest {
            targets: vec![args.id],
            all: false,
            since: None,
            require_signature: args.require_signature,
            allowed_signers: None,
            config: self.config.clone(),
        };
        let checked = verify::verification(&request, root, &self.terminal())?;
        Ok(Reply { text: verify::report(&checked), document: document(&checked) })
    }

    fn check(&self, args: CheckDecisions, root: &Path) -> Result<Reply> {
        let checked = check::check(root, args.base.as_deref(), self.config.as_deref(), &self.terminal())?;
        Ok(Reply { text: check::report(&checked), document: document(&checked) })
    }

    fn search(&self, args: SearchDecisions, root: &Path) -> Result<Reply> {
        let limit = args.limit.unwrap_or(DEFAULT_SEARCH_LIMIT);
        if limit == 0 {
            return Err(Error::input("limit must be 1 or more"));
        }
        let found = search::search(&args.query, limit, self.config.as_deref(), &Tools::here(root), &self.db)?;
        Ok(Reply { text: terminal::list::found(&found), document: document(&found) })
    }

    fn set_status(&self, args: SetDecisionStatus, root: &Path) -> Result<Reply> {
        let verdict = args.status;
        let request = LifecycleRequest {
            target: args.id,
            verdict,
            no_commit: false,
            config: self.config.clone(),
            here: Tools::here(root),
        };
        let (change, said) = lifecycle::change(&request, &self.db, &self.terminal())?;
        Ok(Reply { text: said, document: document(&change) })
    }

    fn debate_repository(&self, id: &str) -> Result<Option<(String, PathBuf)>> {
        let Some(store) = Store::open_existing(&self.db)? else { return Ok(None) };
        match store.resolve_id(id) {
            Ok(whole) => Ok(Some((whole.clone(), PathBuf::from(store.load(&whole)?.repo_root)))),
            Err(StoreError::UnknownId(_)) => Ok(None),
            Err(err) => Err(err.into()),
        }
    }

    fn records(&self, root: &Path) -> Result<Vec<Record>> {
        let found = search::records(root, self.config.as_deref())?;
        Ok(found
            .into_iter()
            .filter_map(|(decision, id)| {
                Some(Record {
                    id: id?,
                    title: one_line(&decision.title),
                    status: one_line(&decision.status),
                    decision: one_line(&decision.decision),
                    path: decision.path,
                })
            })
            .collect())
    }

    fn record_text(&self, root: &Path, id: &str) -> Result<String> {
        search::record_text(root, id, self.config.as_deref())
    }
}

impl Tools {
    /// What a run that completed or paused answers: where it stands, the decision and
    /// its record (as `debate show` begins), and the debate as `debate show --json`
    /// prints it (which holds the summary `--json` prints for the run).
    fn ran(&self, state: &DebateState, root: &Path) -> Result<Reply> {
        let rounds = match state.rounds.len() {
            1 => "1 round".to_string(),
            n => format!("{n} rounds"),
        };
        let lead = match state.status {
            Status::Complete => format!("Debate {} is complete after {rounds}.", state.id),
            Status::Paused => format!(
                "Debate {} is paused after {rounds}; every finished step is saved. Continue it with the \
                 resume_debate tool: {{\"id\": \"{}\"}}.",
                state.id, state.id
            ),
            status => format!("Debate {} stopped after {rounds} ({}).", state.id, status.as_str()),
        };
        let detail = show::detail(&self.db, &state.id, &Tools::here(root), &self.terminal())?;
        let text = format!("{lead}\n\n{}", terminal::show::head(&detail));
        Ok(Reply { text, document: document(&detail) })
    }
}

/// A document as `--json` prints it: every string through the secret gate.
fn document<T: Serialize>(value: &T) -> Value {
    let text = secrets::gated_json(value, false).expect("documents serialise");
    serde_json::from_str(&text).expect("the gate keeps JSON whole")
}
