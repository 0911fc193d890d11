//! How a debate talks to whoever runs it: what the engine reports as it goes, and the
//! questions it asks a human. The terminal implements this; so may any other front end.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;

use super::{Contribution, ContributionKind, DebateState, EndReason, Outcome, Round};

/// An answer still to come. It resolves by itself once its patience is spent, and
/// dropping it abandons the question cleanly.
pub type Pending<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The human's answer at a checkpoint (docs/guide.md, "At the terminal").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Continue,
    /// Continue, with this guidance for the next round.
    Guide(String),
    /// Go to synthesis now.
    End,
    Pause,
    /// Input ended (Ctrl-D): nobody can answer; the debate pauses.
    EndOfInput,
    /// The terminal went away (closed, hung up): the debate pauses as SIGHUP pauses it.
    HungUp,
    /// Nobody answered in time; the debate pauses.
    TimedOut,
    /// Ctrl-C.
    Interrupted,
}

/// What became of the clarifying question for a vague question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Clarified {
    Answer(String),
    /// Left empty, input ended, or no answer in time: debate the question as it is.
    Skipped,
    /// Ctrl-C.
    Interrupted,
}

/// What happened to the record.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    pub path: PathBuf,
    pub commit: Option<String>,
    /// The branch holding the commit when it is not the checked-out one.
    pub branch: Option<String>,
    /// Why the record was not committed, when it was not.
    pub not_committed: Option<String>,
    pub warnings: Vec<String>,
    /// On a branch of its own: the commands that push it and open (or update) its pull
    /// request.
    pub pull_request: Vec<String>,
}

/// A written issue draft and the command that files it.
#[derive(Debug, Clone, Serialize)]
pub struct Draft {
    pub path: PathBuf,
    pub title: String,
    pub command: String,
}

/// What the engine reports as it goes, and the questions it asks; every method has a
/// silent default, so a front end implements what it shows.
pub trait Events {
    /// Between rounds: ask the human how to go on, or `None` when nobody can answer.
    /// Called with the round just finished.
    fn checkpoint(&mut self, _state: &DebateState, _round: u32, _patience: Duration) -> Option<Pending<Decision>> {
        None
    }
    /// Whether someone is there to answer a checkpoint now. When nobody is, a round
    /// opens without waiting for the previous round's evaluation.
    fn attended(&self) -> bool {
        false
    }
    /// Before a vague question is debated: ask what is meant, or `None`.
    fn clarify(&mut self, _questions: &[&str], _patience: Duration) -> Option<Pending<Clarified>> {
        None
    }
    /// At the end of a debate run with checkpoints on: does the human want an issue
    /// draft? `None` when nobody can answer.
    fn wants_issue_draft(&mut self, _patience: Duration) -> Option<Pending<bool>> {
        None
    }
    /// Resolves when the front end stops the debate it runs (a client cancelled its
    /// request, or went away): the debate pauses then, as on Ctrl-C, every finished step
    /// saved. `None`: only the process's signals stop it.
    fn stopped(&mut self) -> Option<Pending<()>> {
        None
    }
    /// This process now drives debate `id` (it holds its lease) and runs its steps.
    fn driving(&mut self, _id: &str) {}
    /// The moderator is at work (analysing, evaluating, synthesising).
    fn moderating(&mut self, _what: &str) {}
    fn panel(&mut self, _state: &DebateState) {}
    /// Round `round` of at most `of` opened.
    fn round_started(&mut self, _round: u32, _of: u32, _framing: &str) {}
    /// A step's calls start, for these seats (in panel order).
    fn working(&mut self, _round: u32, _kind: ContributionKind, _seats: &[(usize, String)]) {}
    fn contribution(&mut self, _round: u32, _name: &str, _contribution: &Contribution) {}
    fn assessed(&mut self, _state: &DebateState, _round: &Round) {}
    fn ended(&mut self, _state: &DebateState, _reason: EndReason) {}
    fn synthesized(&mut self, _outcome: &Outcome) {}
    fn recorded(&mut self, _state: &DebateState, _record: &Published, _draft: Option<&Draft>) {}
    /// Whether to stream debaters' text as it arrives (a front end that shows it).
    fn live(&self) -> bool {
        false
    }
    /// Text of the debater at `seat` as it arrives (only when `live`).
    fn delta(&mut self, _seat: usize, _text: &str) {}
    /// A debater's call failed this step.
    fn failed(&mut self, _round: u32, _seat: usize, _name: &str) {}
    /// A debater left the panel after repeated provider failures.
    fn dropped(&mut self, _name: &str, _reason: &str) {}
    /// The debate paused and can be resumed.
    fn paused(&mut self, _id: &str, _why: &str) {}
    /// Something the user should know that changes nothing of the debate's course.
    fn warning(&mut self, _text: &str) {}
    /// A call's try failed and is made again: which call, why, how many tries remain.
    fn retrying(&mut self, _line: &str) {}
    /// A model server on this machine was found to serve `at_once` requests at once.
    fn server_learned(&mut self, _base_url: &str, _at_once: &super::AtOnce) {}
}
