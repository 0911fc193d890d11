//! `debate mcp`'s server: what it answers a client in both eras of the protocol (the
//! 2025-11-25 handshake, and 2026-07-28's discovery with each request carrying its
//! version), and how a call runs — its repository allowed by the gate (`scope`), its
//! command run through the commands `app` hands in (the engine's on the local task set,
//! the others off the runtime's thread), and what the command answers given back as text
//! and `structuredContent`. The tools are `tools`, the prompts `prompts`, the debates'
//! conversations and tasks `debates`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, Implementation, ListPromptsResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::commands::{Commands, Reply};
use super::conversation::Parked;
use super::prompts;
use super::replies::{answer, refused};
use super::scope::{Refusal, Scope};
use super::tasks::Tasks;
use crate::confine::Confinement;
use crate::error::{Error, Result};

/// Work for the local task set: a future that holds the store.
pub type Job = Box<dyn FnOnce() -> LocalBoxFuture<'static, ()> + Send>;

/// The URI scheme of a record: `decision://DEB-k3x9q2`.
const SCHEME: &str = "decision://";

/// The server: its tools, the commands behind them, where their debates run, and what
/// it may touch.
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
    pub(super) commands: Arc<dyn Commands>,
    jobs: mpsc::UnboundedSender<Job>,
    /// Cancelled once the client's input ends: every debate running here pauses.
    pub(super) closed: CancellationToken,
    pub(super) scope: Scope,
    /// Debates waiting for the answer to a question (2026-07-28's input-required results).
    pub(super) parked: Parked,
    /// Debates followed as tasks.
    pub(super) tasks: Tasks,
}

impl Server {
    pub fn new(
        commands: Arc<dyn Commands>,
        jobs: mpsc::UnboundedSender<Job>,
        closed: CancellationToken,
        confinement: Confinement,
    ) -> Server {
        let scope = Scope::new(confinement);
        let (parked, tasks) = (Parked::default(), Tasks::default());
        Server { tool_router: Self::tool_router(), commands, jobs, closed, scope, parked, tasks }
    }

    /// A command that reads or writes at once, run off the runtime's thread, in the
    /// repository the call names (`given`) or the default one.
    pub(super) async fn at_once(
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
    pub(super) async fn about(
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

    pub(super) async fn blocking(
        &self,
        work: impl FnOnce(&dyn Commands) -> Result<Reply> + Send + 'static,
    ) -> CallToolResult {
        let commands = self.commands.clone();
        match tokio::task::spawn_blocking(move || work(commands.as_ref())).await {
            Ok(result) => answer(result, Vec::new()),
            Err(_) => refused("the command stopped unexpectedly (a bug: please report it)"),
        }
    }

    /// A command about a debate or a record that runs on the local task set (it holds
    /// the store), in the repository that holds it.
    pub(super) async fn locally(
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
    pub(super) async fn on_local_set(
        &self,
        work: impl FnOnce(Arc<dyn Commands>) -> LocalBoxFuture<'static, CallToolResult> + Send + 'static,
    ) -> CallToolResult {
        let (reply, answered) = oneshot::channel();
        self.spawn_local(move |commands| {
            Box::pin(async move {
                let _ = reply.send(work(commands).await);
            })
        });
        answered.await.unwrap_or_else(|_| refused("the server is stopping"))
    }

    /// `work` started on the local task set, not waited for.
    pub(super) fn spawn_local(
        &self,
        work: impl FnOnce(Arc<dyn Commands>) -> LocalBoxFuture<'static, ()> + Send + 'static,
    ) {
        let commands = self.commands.clone();
        // A server that is stopping drops the job: its conversation ends unanswered.
        let _ = self.jobs.send(Box::new(move || work(commands)));
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities =
            ServerCapabilities::builder().enable_tools().enable_resources().enable_prompts().enable_tasks().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("debate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Decision records of this repository, and debates that write them. Before proposing a change \
                 the team may have decided already, call search_decisions. To decide a hard question, \
                 start_debate debates it and commits the record (docs/decisions/); show_debate reads one, \
                 review_decision answers an objection, set_decision_status records what people decided. \
                 Each record is also a resource, decision://<id>; the prompts decide and review start both.",
            )
    }

    /// A tool's call; a refusal of its arguments said as every other refusal is.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let called = self.tool_router.call(ToolCallContext::new(self, request, context)).await?;
        Ok(match called {
            CallToolResponse::Complete(result) => CallToolResponse::Complete(said_as_refusal(result)),
            other => other,
        })
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::listed()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<GetPromptResponse, ErrorData> {
        prompts::get(&request.name, request.arguments.unwrap_or_default()).map(GetPromptResponse::from)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<GetTaskResult, ErrorData> {
        self.tasks.get(&request.task_id)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        self.tasks.update(&request.task_id, &request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id)
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

/// rmcp's refusal of a tool's arguments (`failed to deserialize parameters: …`) in the
/// words of every other refusal (`error: …`).
fn said_as_refusal(mut result: CallToolResult) -> CallToolResult {
    if result.is_error == Some(true)
        && let Some(text) = result.content.first().and_then(|c| c.as_text())
        && let Some(why) = text.text.strip_prefix(super::arguments::REFUSED)
    {
        result.content[0] = ContentBlock::text(format!("error: {why}"));
    }
    result
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
