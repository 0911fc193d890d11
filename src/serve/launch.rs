//! What the dashboard asks of the commands that run debates (`app` hands them in), and
//! the new debate its form or API describes.

use futures::future::LocalBoxFuture;
use serde::Deserialize;

use crate::error::Result;
use crate::model::{DebateState, Events, Rounds, Seats};
use crate::view::Summary;

/// What the dashboard asks of the commands: start and resume debates exactly as
/// `debate QUESTION` and `debate resume ID` do, reporting to `events`. The futures
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
    /// The summary with what the files say: its issue draft and its record's status.
    fn on_disk(&self, summary: Summary) -> Summary;
    /// Where the repository at `repo_root` keeps its records, as its settings say.
    fn record_directory(&self, repo_root: &str) -> String;
}

/// A debate to start: the form's fields, or `POST /api/debates`'s body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewDebate {
    pub question: String,
    /// One of the repositories the database knows (or the one `debate serve` runs in).
    pub repository: String,
    /// None: the moderator decides.
    #[serde(default)]
    pub perspectives: Option<Seats>,
    /// None: the settings' cap.
    #[serde(default)]
    pub max_rounds: Option<Rounds>,
    #[serde(default = "checkpoints_on")]
    pub checkpoints: bool,
}

fn checkpoints_on() -> bool {
    true
}
