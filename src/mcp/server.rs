//! `debate mcp`'s tools and resources: each tool's arguments checked, its repository
//! chosen, its command run through the commands `app` hands in — the engine's on the
//! local task set with the call's own events, the others off the runtime's thread — and
//! what the command answers given back as text and `structuredContent`.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::commands::{Commands, Debate, Reply};
use super::events::{self, McpEvents};
use super::scope::{Claim, Refusal, Scope};
use super::tools::{
    CheckProviders, EvaluateDecision, ListDebates, Parameters, ResumeDebate, ReviewDecision, SearchDecisions,
    SetDecisionStatus, ShowDebate, StartDebate, VerifyDecision,
};
use crate::confine::{self, Confinement};
use crate::error::{Error, Result};
use crate::text::secrets;
use crate::view::Paused;

/// Work for the local task set: a future that holds the store.
pub type Job = Box<dyn FnOnce() -> LocalBoxFuture<'static, ()> + Send>;

/// The URI scheme of a record: `decision://DEB-k3x9q2`.
const SCHEME: &str = "decision://";

/// The server: its tools, the commands behind them, where their debates run, and what
/// it may touch.
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
    commands: Arc<dyn Commands>,
    jobs: mpsc::UnboundedSender<Job>,
    /// Cancelled once the client's input ends: every debate running here pauses.
    closed: CancellationToken,
    scope: Scope,
}

impl Server {
    pub fn new(
        commands: Arc<dyn Commands>,
        jobs: mpsc::UnboundedSender<Job>,
        closed: CancellationToken,
        confinement: Confinement,
    ) -> Server {
        Server { tool_router: Self::tool_router(), commands, jobs, closed, scope: Scope::new(confinement) }
    }

    /// A command that reads or writes at once, run off the runtime's thread, in the
    /// repository the call names (`given`) or the default one.
    async fn at_once(
        &self,
        given: Option<String>,
        ctx: &RequestContext<RoleServer>,
        work: impl FnOnce(&dyn Commands, &Path) -> Result<Reply> + Send + 'static,
    ) -> CallToolResult {
        match self.scope.repository(given.as_deref(), None, ctx).await {
            Ok(root) => self.blocking(move |commands| work(commands, &root)).await,
            Err(refusal) => refused(refusal),
        }
    }

    /// A command about a debate or a record (`target`), run off the runtime's thread, in
    /// the repository that holds it; `work` gets the target as the command takes it.
    async fn about(
        &self,
        (given, target): (Option<String>, &str),
        ctx: &RequestContext<RoleServer>,
        work: impl FnOnce(&dyn Commands, &Path, String) -> Result<Reply> + Send + 'static,
    ) -> CallToolResult {
        match self.scope.target(given.as_deref(), target, ctx, &self.commands).await {
            Ok(found) => self.blocking(move |commands| work(commands, &found.root, found.target)).await,
            Err(refusal) => refused(refusal),
        }
    }

    async fn blocking(&self, work: impl FnOnce(&dyn Commands) -> Result<Reply> + Send + 'static) -> CallToolResult {
        let commands = self.commands.clone();
        match tokio::task::spawn_blocking(move || work(commands.as_ref())).await {
            Ok(result) => answer(result, Vec::new()),
            Err(_) => refused("the command stopped unexpectedly (a bug: please report it)"),
        }
    }

    /// A command about a debate or a record that runs on the local task set (it holds
    /// the store), in the repository that holds it.
    async fn locally(
        &self,
        (given, target): (Option<String>, &str),
        ctx: &RequestContext<RoleServer>,
        work: impl FnOnce(Arc<dyn Commands>, PathBuf, String) -> LocalBoxFuture<'static, Result<Reply>> + Send + 'static,
    ) -> CallToolResult {
        let found = match self.scope.target(given.as_deref(), target, ctx, &self.commands).await {
            Ok(found) => found,
            Err(refusal) => return refused(refusal),
        };
        self.on_local_set(move |commands| {
            Box::pin(async move { answer(work(commands, found.root, found.target).await, Vec::new()) })
        })
        .await
    }

    /// `work` run on the local task set; its answer.
    async fn on_local_set(
        &self,
        work: impl FnOnce(Arc<dyn Commands>) -> LocalBoxFuture<'static, CallToolResult> + Send + 'static,
    ) -> CallToolResult {
        let (reply, answered) = oneshot::channel();
        let commands = self.commands.clone();
        let job: Job = Box::new(move || {
            Box::pin(async move {
                let _ = reply.send(work(commands).await);
            })
        });
        if self.jobs.send(job).is_err() {
            return refused("the server is stopping");
        }
        answered.await.unwrap_or_else(|_| refused("the server is stopping"))
    }

    /// Where a debate runs and what it may be: a new one in the repository the call
    /// names; one resumed or reviewed in the repository of its own, claimed for this call.
    async fn place(
        &self,
        debate: &mut Debate,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(PathBuf, Option<Claim>), Refusal> {
        match debate {
            Debate::Start(args) => {
                let root = self.scope.repository(args.repository.as_deref(), None, ctx).await?;
                let files =
                    args.context.iter().map(|file| confine::file_in(&root, file)).collect::<Result<Vec<_>, _>>()?;
                args.context = files.iter().map(|file| file.display().to_string()).collect();
                Ok((root, None))
            }
            Debate::Resume(args) => self.claimed(args.repository.as_deref(), &mut args.id, ctx).await,
            Debate::Review(args) => self.claimed(args.repository.as_deref(), &mut args.id, ctx).await,
        }
    }

    /// The repository of the debate `id` names, and the claim on it.
    async fn claimed(
        &self,
        given: Option<&str>,
        id: &mut String,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(PathBuf, Option<Claim>), Refusal> {
        let found = self.scope.target(given, id, ctx, &self.commands).await?;
        let claim = found.id.as_deref().map(|whole| self.scope.claim(whole)).transpose()?;
        *id = found.target;
        Ok((found.root, claim))
    }

    /// A debate run through the engine for this call, in the repository it names: its
    /// steps notified as progress when the client asked for it, its checkpoints asked
    /// when the client can ask its user, and paused when the call is cancelled or the
    /// client goes away.
    async fn debate(&self, mut debate: Debate, ctx: RequestContext<RoleServer>) -> CallToolResult {
        let (root, claim) = match self.place(&mut debate, &ctx).await {
            Ok(placed) => placed,
            Err(refusal) => return refused(refusal),
        };
        let elicits = ctx.peer.supported_elicitation_modes().contains(&ElicitationMode::Form);
        // Checkpoints only where the client can ask its user; the result says when not.
        let unasked = match &mut debate {
            Debate::Start(args) => {
                let unasked = args.checkpoints && !elicits;
                args.checkpoints &= elicits;
                unasked
            }
            Debate::Resume(args) => args.checkpoints && !elicits,
            Debate::Review(_) => false,
        };
        let (progress, notifier) = match ctx.meta.get_progress_token() {
            Some(token) => {
                let (sender, messages) = mpsc::unbounded_channel();
                (Some(sender), Some(tokio::spawn(events::notify(ctx.peer.clone(), token, messages))))
            }
            None => (None, None),
        };
        let events = McpEvents::new(ctx.peer.clone(), progress, elicits, (ctx.ct.clone(), self.closed.clone()));
        let result = self
            .on_local_set(move |commands| {
                Box::pin(async move {
                    let _claim = claim;
                    let mut events = events;
                    let result = commands.debate(debate, &root, &mut events).await;
                    let mut notes = std::mem::take(&mut events.notes);
                    if unasked {
                        notes.push(
                            "Checkpoints were off: this client cannot ask its user (it declared no elicitation), \
                             so the debate ran to its end without stopping between rounds."
                                .into(),
                        );
                    }
                    answer(result, notes)
                })
            })
            .await;
        // Every step's notification goes out before the result.
        if let Some(notifier) = notifier {
            let _ = notifier.await;
        }
        result
    }
}

/// A tool error that says why: a refusal of the call's arguments (nothing done), or a
/// server that cannot run the command.
fn refused(why: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("error: {why}"))])
}

/// What a command answered, as the tool's result: its text (and `notes`) for the agent
/// and its document as `structuredContent`; a failure as a tool error with its hint,
/// and, for a debate it left paused, the document `--json` prints for one.
fn answer(result: Result<Reply>, notes: Vec<String>) -> CallToolResult {
    let notes = notes.iter().map(|note| format!("\nNote: {note}")).collect::<String>();
    match result {
        Ok(reply) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(format!("{}{notes}", reply.text))]);
            result.structured_content = Some(reply.document);
            result
        }
        Err(err) => {
            let hint = err.hint().map(|hint| format!("\nhint: {hint}")).unwrap_or_default();
            let resume =
                err.paused().map(|id| format!("\nContinue it with the resume_debate tool: {{\"id\": \"{id}\"}}."));
            let text = format!("error: {err}{hint}{}{notes}", resume.unwrap_or_default());
            let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
            if let Some(id) = err.paused() {
                let paused = Paused::new(id, err.to_string(), err.hint(), err.exit_code(), err.resume_command(id));
                result.structured_content =
                    secrets::gated_json(&paused, false).ok().and_then(|t| serde_json::from_str(&t).ok());
            }
            result
        }
    }
}

#[tool_router]
impl Server {
    /// Debate an engineering question and commit the decision record, as `debate new`
    /// does: a moderator picks 2-4 perspectives, they argue in rounds until they agree,
    /// stagnate or reach the round cap, and the synthesis is written to the repository's
    /// docs/decisions/ and committed. Takes minutes with a model (seconds offline); sends
    /// progress notifications when given a progress token. With checkpoints on and a client
    /// that can ask its user (elicitation), it asks after each round: continue, guide, end
    /// or pause (declining pauses; resume_debate continues). Call search_decisions first:
    /// the team may have decided this already.
    #[tool]
    async fn start_debate(
        &self,
        Parameters(args): Parameters<StartDebate>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.debate(Debate::Start(args), ctx).await
    }

    /// Continue a paused or interrupted debate where it stopped (`debate resume`): no
    /// finished step is repeated, and a complete one commits its record.
    #[tool]
    async fn resume_debate(
        &self,
        Parameters(args): Parameters<ResumeDebate>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.debate(Debate::Resume(args), ctx).await
    }

    /// Reopen a completed debate for a reviewer's objection (`debate review`): one more
    /// round with the objection as its guidance, a new synthesis, and the same record
    /// rewritten in a new commit.
    #[tool]
    async fn review_decision(
        &self,
        Parameters(args): Parameters<ReviewDecision>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.debate(Debate::Review(args), ctx).await
    }

    /// The debates of this repository, newest first (`debate list`): id, status, rounds,
    /// question, record and commit.
    #[tool(annotations(read_only_hint = true))]
    async fn list_debates(
        &self,
        Parameters(args): Parameters<ListDebates>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let confinement = match self.scope.confinement(&ctx).await {
            Ok(confinement) => confinement,
            Err(refusal) => return refused(refusal),
        };
        self.at_once(args.repository.clone(), &ctx, move |commands, root| commands.list(args, root, &confinement)).await
    }

    /// One debate in full, the decision first (`debate show`): the chosen option and
    /// recommendation, confidence and caveats, then the panel and every round.
    #[tool(annotations(read_only_hint = true))]
    async fn show_debate(
        &self,
        Parameters(args): Parameters<ShowDebate>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let at = (args.repository.clone(), args.id.as_str());
        self.about(at, &ctx, move |commands, root, id| commands.show(ShowDebate { id, ..args }, root)).await
    }

    /// The repository's decision records ranked against a query, each with its decision
    /// on one line and its status (proposed, accepted, superseded…) — including records
    /// other tools wrote. Call it before proposing a change: the team may already have
    /// decided it, or decided against it.
    #[tool(annotations(read_only_hint = true))]
    async fn search_decisions(
        &self,
        Parameters(args): Parameters<SearchDecisions>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.at_once(args.repository.clone(), &ctx, move |commands, root| commands.search(args, root)).await
    }

    /// Check a decision record offline, from the record alone (`debate verify`): its
    /// digest (an edit named by its section), its signature and who signed it.
    #[tool(annotations(read_only_hint = true))]
    async fn verify_decision(
        &self,
        Parameters(args): Parameters<VerifyDecision>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let at = (args.repository.clone(), args.id.as_str());
        self.about(at, &ctx, move |commands, root, id| commands.verify(VerifyDecision { id, ..args }, root)).await
    }

    /// Give a decision record its status as people decided it (`debate accept`,
    /// `reject`, `deprecate`): the status, a line of its history, and a commit of that
    /// file alone.
    #[tool]
    async fn set_decision_status(
        &self,
        Parameters(args): Parameters<SetDecisionStatus>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let at = (args.repository.clone(), args.id.as_str());
        self.about(at, &ctx, move |commands, root, id| commands.set_status(SetDecisionStatus { id, ..args }, root))
            .await
    }

    /// Score a finished debate's record (`debate eval`): each criterion marked 1-10 with a
    /// reason by the debate's moderator (or offline, from the text alone), beside checks
    /// that need no model; the scorecard is stored with the debate.
    #[tool]
    async fn evaluate_decision(
        &self,
        Parameters(args): Parameters<EvaluateDecision>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let at = (args.repository.clone(), args.id.clone());
        self.locally((at.0, &at.1), &ctx, move |commands, root, id| {
            Box::pin(async move { commands.evaluate(EvaluateDecision { id, ..args }, &root).await })
        })
        .await
    }

    /// Whether each configured provider can run a debate (`debate doctor`): reachable,
    /// key present (never shown), model there, structured answers, streaming, requests at
    /// once, speed, and what a default debate would take.
    #[tool]
    async fn check_providers(
        &self,
        Parameters(args): Parameters<CheckProviders>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let root = match self.scope.repository(args.repository.as_deref(), None, &ctx).await {
            Ok(root) => root,
            Err(refusal) => return refused(refusal),
        };
        self.on_local_set(move |commands| {
            Box::pin(async move { answer(commands.check_providers(args, &root).await, Vec::new()) })
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("debate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Decision records of this repository, and debates that write them. Before proposing a change \
                 the team may have decided already, call search_decisions. To decide a hard question, \
                 start_debate debates it and commits the record (docs/decisions/); show_debate reads one, \
                 review_decision answers an objection, set_decision_status records what people decided. \
                 Each record is also a resource, decision://<id>.",
            )
    }

    /// The handshake's versions only: a debate's checkpoints and the client's roots are
    /// requests to the client, which protocol 2026-07-28 no longer allows.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::LATEST_WITH_INITIALIZE))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let root = self.scope.repository(None, None, &ctx).await.map_err(unusable)?;
        let commands = self.commands.clone();
        let records = tokio::task::spawn_blocking(move || commands.records(&root))
            .await
            .map_err(|_| ErrorData::internal_error("the records could not be read", None))?
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        let resources = records
            .into_iter()
            .map(|record| {
                Resource::new(format!("{SCHEME}{}", record.id), record.id.clone())
                    .with_title(record.title)
                    .with_description(format!("{} ({}) — {}", record.path, record.status, record.decision))
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let not_found = |why: String| ErrorData::resource_not_found(why, Some(serde_json::json!({"uri": uri})));
        let Some(id) = uri.strip_prefix(SCHEME).filter(|id| !id.is_empty()) else {
            return Err(not_found(format!("{uri} is no decision record: they are {SCHEME}<id>")));
        };
        let root = self.scope.repository(None, None, &ctx).await.map_err(unusable)?;
        let (commands, id) = (self.commands.clone(), id.to_string());
        let text = tokio::task::spawn_blocking(move || commands.record_text(&root, &id))
            .await
            .map_err(|_| ErrorData::internal_error("the record could not be read", None))?
            .map_err(|err| not_found(err.to_string()))?;
        let contents = ResourceContents::text(text, uri.clone()).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

/// A repository refused for a resource request.
fn unusable(refusal: Refusal) -> ErrorData {
    ErrorData::invalid_params(format!("error: {refusal}"), None)
}

/// `debate mcp`: serve the tools over stdin and stdout until the client closes its input
/// or `stop` resolves (a signal); every debate running then pauses before it returns.
pub async fn serve(commands: Arc<dyn Commands>, allow: &[PathBuf], stop: impl Future<Output = ()>) -> Result<()> {
    use rmcp::ServiceExt;
    let closed = CancellationToken::new();
    let transport = super::transport::stdio(closed.clone())?;
    let here =
        std::env::current_dir().map_err(|err| Error::config(format!("cannot read the working directory: {err}")))?;
    let confinement = Confinement::new(allow, &here).map_err(Error::input)?;
    let (jobs, queue) = mpsc::unbounded_channel();
    let server = Server::new(commands, jobs, closed.clone(), confinement);
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let driver = tokio::task::spawn_local(drive(queue, closed.clone()));
            let served = async {
                tokio::pin!(stop);
                let handshake = tokio::select! {
                    handshake = server.serve(transport) => handshake,
                    () = &mut stop => return Ok(()),
                };
                match handshake {
                    Ok(running) => {
                        let cancel = running.cancellation_token();
                        tokio::select! {
                            _ = running.waiting() => {}
                            () = stop => cancel.cancel(),
                        }
                        Ok(())
                    }
                    // The client went away before the handshake: nothing to serve.
                    Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
                    Err(err) => Err(Error::input(format!("the client's first message was not understood: {err}"))),
                }
            };
            let served = served.await;
            // Whatever ended it, every debate running here pauses; then the server ends.
            closed.cancel();
            let _ = driver.await;
            served
        })
        .await
}

/// The local task set's driver: each job run alongside the others until the client's
/// input ends, then every one still running waited for (each pauses on that).
async fn drive(mut queue: mpsc::UnboundedReceiver<Job>, closed: CancellationToken) {
    let mut running = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            job = queue.recv() => match job {
                Some(job) => {
                    running.spawn_local(job());
                }
                None => break,
            },
            () = closed.cancelled() => break,
            Some(_) = running.join_next() => {}
        }
    }
    queue.close();
    while running.join_next().await.is_some() {}
}
