//! What the MCP server asks of the commands (`app` hands them in): every tool runs the
//! command it names, from the request the command line would build, in the repository
//! the server chose and checked; the server adds nothing to what a command answers.

use std::path::{Path, PathBuf};

use futures::future::LocalBoxFuture;

use super::arguments::{
    CheckDecisions, CheckProviders, EvaluateDecision, ListDebates, ResumeDebate, ReviewDecision, Run, SearchDecisions,
    SetDecisionStatus, ShowDebate, StartDebate, VerifyDecision,
};
use crate::confine::Confinement;
use crate::error::Result;
use crate::model::Events;

/// What a command answers a tool: text for the agent (what the command says at a
/// terminal), and the document its `--json` prints, a JSON object.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub document: serde_json::Value,
}

/// A decision record of the repository that a debate wrote: `decision://<id>`.
#[derive(Debug, Clone)]
pub struct Record {
    pub id: String,
    /// Relative to the repository root.
    pub path: String,
    pub title: String,
    pub status: String,
    /// Its decision, on one line.
    pub decision: String,
}

/// A debate a tool runs through the engine.
#[derive(Debug, Clone)]
pub enum Debate {
    /// `debate new`.
    Start(Run<StartDebate>),
    /// `debate resume`.
    Resume(Run<ResumeDebate>),
    /// `debate review ID --guide OBJECTION`.
    Review(ReviewDecision),
}

/// The commands behind the tools. Those that run the engine return futures that hold
/// the store: they run on the server's local task set, a debate reporting to `events`.
/// The others read or write at once and run off the runtime's thread. `root` is the
/// repository's work tree, chosen and checked.
pub trait Commands: Send + Sync {
    /// A debate run until it completes or pauses.
    fn debate<'a>(
        &'a self,
        debate: Debate,
        root: &'a Path,
        events: &'a mut dyn Events,
    ) -> LocalBoxFuture<'a, Result<Reply>>;
    /// `debate eval`.
    fn evaluate<'a>(&'a self, args: EvaluateDecision, root: &'a Path) -> LocalBoxFuture<'a, Result<Reply>>;
    /// `debate doctor`.
    fn check_providers<'a>(&'a self, args: CheckProviders, root: &'a Path) -> LocalBoxFuture<'a, Result<Reply>>;
    /// `debate list`; with `all`, only the debates of repositories `allowed` admits.
    fn list(&self, args: ListDebates, root: &Path, allowed: &Confinement) -> Result<Reply>;
    /// `debate show`.
    fn show(&self, args: ShowDebate, root: &Path) -> Result<Reply>;
    /// `debate search`.
    fn search(&self, args: SearchDecisions, root: &Path) -> Result<Reply>;
    /// `debate check`.
    fn check(&self, args: CheckDecisions, root: &Path) -> Result<Reply>;
    /// `debate verify`.
    fn verify(&self, args: VerifyDecision, root: &Path) -> Result<Reply>;
    /// `debate accept|reject|deprecate`.
    fn set_status(&self, args: SetDecisionStatus, root: &Path) -> Result<Reply>;
    /// The whole id of the debate `id` names in the state database (any case, a unique
    /// prefix) and the repository it was debated in; `None` when the database has none.
    fn debate_repository(&self, id: &str) -> Result<Option<(String, PathBuf)>>;
    /// The repository's records that debates wrote, as `debate search` finds them.
    fn records(&self, root: &Path) -> Result<Vec<Record>>;
    /// The markdown of the record the debate `id` wrote, as the work tree holds it.
    fn record_text(&self, root: &Path, id: &str) -> Result<String>;
}
