//! The tools, as a client lists them: each with its name, title, description (what an
//! agent reads to call it), the schema of its arguments and of its result, and
//! annotations that say what it does — reads only; adds without removing; calls a
//! model (open world) — and each call run in the repository the gate allows.

use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::arguments::{
    CheckDecisions, CheckProviders, EvaluateDecision, ListDebates, Parameters, ResumeDebate, ReviewDecision, Run,
    SearchDecisions, SetDecisionStatus, ShowDebate, StartDebate, VerifyDecision,
};
use super::commands::Debate;
use super::debates::Retry;
use super::outputs;
use super::replies::{answer, refused};
use super::server::Server;

#[tool_router(vis = "pub(super)")]
impl Server {
    /// Debate an engineering question and commit the decision record, as `debate new`
    /// does: a moderator picks 2-4 perspectives, they argue in rounds until they agree,
    /// stagnate or reach the round cap, and the synthesis is written to the repository's
    /// docs/decisions/ and committed. Takes minutes with a model (seconds offline); sends
    /// progress notifications when given a progress token. With checkpoints on and a client
    /// that can ask its user (elicitation), it asks after each round: continue, guide, end
    /// or pause (declining pauses; resume_debate continues). A client with the tasks
    /// extension gets a task to follow. Call search_decisions first: the team may have
    /// decided this already.
    #[tool(title = "Start a debate", output_schema = outputs::debate(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true))]
    async fn start_debate(
        &self,
        Parameters(args): Parameters<Run<StartDebate>>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.debate("start_debate", Debate::Start(args), Retry { state, responses }, ctx).await
    }

    /// Continue a paused or interrupted debate where it stopped (`debate resume`): no
    /// finished step is repeated, and a complete one commits its record.
    #[tool(title = "Resume a debate", output_schema = outputs::debate(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true))]
    async fn resume_debate(
        &self,
        Parameters(args): Parameters<Run<ResumeDebate>>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.debate("resume_debate", Debate::Resume(args), Retry { state, responses }, ctx).await
    }

    /// Reopen a completed debate for a reviewer's objection (`debate review`): one more
    /// round with the objection as its guidance, a new synthesis, and the same record
    /// rewritten in a new commit.
    #[tool(title = "Review a decision", output_schema = outputs::debate(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true))]
    async fn review_decision(
        &self,
        Parameters(args): Parameters<ReviewDecision>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        self.debate("review_decision", Debate::Review(args), Retry { state, responses }, ctx).await
    }

    /// The debates of this repository, newest first (`debate list`): id, status, rounds,
    /// question, record and commit.
    #[tool(title = "List debates", output_schema = outputs::debates(), annotations(read_only_hint = true, open_world_hint = false))]
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
    #[tool(title = "Show a debate", output_schema = outputs::debate(), annotations(read_only_hint = true, open_world_hint = false))]
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
    #[tool(title = "Search decisions", output_schema = outputs::found(), annotations(read_only_hint = true, open_world_hint = false))]
    async fn search_decisions(
        &self,
        Parameters(args): Parameters<SearchDecisions>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.at_once(args.repository.clone(), &ctx, move |commands, root| commands.search(args, root)).await
    }

    /// Check the work tree against the guards of the repository's decision records
    /// (`debate check`): each dependency or file an accepted decision rules out (or
    /// requires and is missing), with its manifest and line and the record. Call it
    /// before proposing a change: a violation means the change goes against a decision
    /// the team accepted. `base` checks only what changed since that revision.
    #[tool(title = "Check a change against the decisions", output_schema = outputs::guard_check(), annotations(read_only_hint = true, open_world_hint = false))]
    async fn check_decisions(
        &self,
        Parameters(args): Parameters<CheckDecisions>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.at_once(args.repository.clone(), &ctx, move |commands, root| commands.check(args, root)).await
    }

    /// Check a decision record offline, from the record alone (`debate verify`): its
    /// digest (an edit named by its section), its signature and who signed it.
    #[tool(title = "Verify a decision record", output_schema = outputs::verification(), annotations(read_only_hint = true, open_world_hint = false))]
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
    #[tool(title = "Set a decision's status", output_schema = outputs::status_change(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = true, open_world_hint = false))]
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
    #[tool(title = "Evaluate a decision record", output_schema = outputs::scorecard(), annotations(read_only_hint = false, destructive_hint = false, idempotent_hint = false, open_world_hint = true))]
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
    #[tool(title = "Check the providers", output_schema = outputs::providers(), annotations(read_only_hint = true, open_world_hint = true))]
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
