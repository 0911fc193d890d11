//! The tools that run a debate through the engine (start, resume, review): where it runs
//! and whether it may, who asks the user its questions, and how the call follows it — to
//! its end in one call; at 2026-07-28 leg by leg, each question an input-required result
//! whose answer comes back with the call retried; or, for a client with the tasks
//! extension, as a task it polls.

use std::path::PathBuf;

use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, InputRequiredResult, InputResponses};
use rmcp::service::{ElicitationMode, RequestContext};

use super::commands::Debate;
use super::conversation::{self, Conversation, Ends, Leg, Turn};
use super::events::{Asker, McpEvents};
use super::replies::{answer, refused};
use super::scope::{Claim, Refusal};
use super::server::Server;
use crate::confine;

/// What the retry of a call carries (2026-07-28): the handle its last result gave, and
/// the client's answers.
pub struct Retry {
    pub state: Option<String>,
    pub responses: Option<InputResponses>,
}

/// How the client can be asked the user's questions, by what the request declares.
enum Asking {
    Nobody,
    /// An elicitation request (before 2026-07-28).
    Request,
    /// Input-required results (2026-07-28).
    Rounds,
    /// A task, its questions its input-required status when the client can ask its user
    /// (2026-07-28, the tasks extension).
    Task {
        elicits: bool,
    },
}

fn asking(ctx: &RequestContext<RoleServer>) -> Asking {
    let modern = ctx.meta.protocol_version().is_some();
    let capabilities = ctx.client_capabilities().unwrap_or_default();
    let elicits = match modern {
        true => capabilities.elicitation.is_some(),
        false => ctx.peer.supported_elicitation_modes().contains(&ElicitationMode::Form),
    };
    match (modern, elicits, capabilities.supports_tasks()) {
        (true, elicits, true) => Asking::Task { elicits },
        (_, false, _) => Asking::Nobody,
        (true, true, false) => Asking::Rounds,
        (false, true, _) => Asking::Request,
    }
}

impl Server {
    /// A debate run for this call, in the repository it names (a new one) or its own (one
    /// resumed or reviewed, claimed for the call); at 2026-07-28 a retry continues the
    /// conversation its handle names.
    pub(super) async fn debate(
        &self,
        tool: &str,
        mut debate: Debate,
        retry: Retry,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        if let Some(handle) = retry.state {
            return self.answered(tool, &handle, retry.responses, &ctx).await;
        }
        let (root, claim) = match self.place(&mut debate, &ctx).await {
            Ok(placed) => placed,
            Err(refusal) => return refused(refusal).into(),
        };
        let asking = asking(&ctx);
        let asks = !matches!(asking, Asking::Nobody | Asking::Task { elicits: false });
        // Checkpoints only where the client can ask its user; the result says when not.
        let unasked = match &mut debate {
            Debate::Start(args) => {
                let unasked = !args.options.no_checkpoints && !asks;
                args.options.no_checkpoints |= !asks;
                unasked
            }
            Debate::Resume(args) => !args.options.no_checkpoints && !asks,
            Debate::Review(_) => false,
        };
        let (conversation, ends) = Conversation::new();
        let asker = match asking {
            Asking::Nobody | Asking::Task { elicits: false } => Asker::Nobody,
            Asking::Request => Asker::Client(ctx.peer.clone()),
            Asking::Rounds | Asking::Task { elicits: true } => Asker::Turns(ends.asks.clone()),
        };
        self.run(debate, root, (asker, ends), (claim, unasked));
        match asking {
            Asking::Task { .. } => self.tasks.start(conversation).into(),
            _ => self.follow(tool, conversation, &ctx).await,
        }
    }

    /// The conversation parked under `handle`, its question answered by `responses`, and
    /// followed on to its next turn.
    async fn answered(
        &self,
        tool: &str,
        handle: &str,
        responses: Option<InputResponses>,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let Some((conversation, asked)) = self.parked.take(tool, handle) else {
            return refused(
                "this call's requestState names no question this server is waiting on: it was answered, it \
                 waited too long, or the server restarted (a paused debate continues with resume_debate)",
            )
            .into();
        };
        let _ = asked.answer.send(conversation::answer_to(asked.key, responses.as_ref()));
        self.follow(tool, conversation, ctx).await
    }

    /// Follow the conversation to its next turn: its result, or its question as an
    /// input-required result (the conversation parked until the answer comes).
    async fn follow(
        &self,
        tool: &str,
        mut conversation: Conversation,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let leg = Leg { peer: ctx.peer.clone(), token: ctx.meta.get_progress_token(), cancelled: ctx.ct.clone() };
        match conversation.next(Some(&leg)).await {
            Turn::Done(result) => result.into(),
            Turn::Ask(asked) => {
                let requests = conversation::input_requests(&asked);
                let handle = self.parked.park(tool, conversation, asked);
                InputRequiredResult::new(Some(requests), Some(handle)).into()
            }
        }
    }

    /// The debate run on the local task set, reporting to its conversation's ends.
    fn run(
        &self,
        debate: Debate,
        root: PathBuf,
        (asker, ends): (Asker, Ends),
        (claim, unasked): (Option<Claim>, bool),
    ) {
        let Ends { steps, done, stop, .. } = ends;
        let events = McpEvents::new(asker, steps, (stop, self.closed.clone()));
        self.spawn_local(move |commands| {
            Box::pin(async move {
                let _claim = claim;
                let mut events = events;
                let result = commands.debate(debate, &root, &mut events).await;
                let mut notes = std::mem::take(&mut events.notes);
                if unasked {
                    notes.push(
                        "Checkpoints were off: this client cannot ask its user (it declared no elicitation), so \
                         the debate ran to its end without stopping between rounds."
                            .into(),
                    );
                }
                let _ = done.send(answer(result, notes));
            })
        });
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
                let root = self.scope.repository(args.own.repository.as_deref(), None, ctx).await?;
                let given = args.options.context.iter().map(|file| confine::file_in(&root, &file.to_string_lossy()));
                args.options.context = given.collect::<Result<Vec<_>, _>>()?;
                Ok((root, None))
            }
            Debate::Resume(args) => self.claimed(args.own.repository.as_deref(), &mut args.own.id, ctx).await,
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
}
