//! The engine's events for a debate this server drives, in the terminal's place: its
//! streamed text and every step to the debate's pages, its checkpoints answered over
//! HTTP.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::oneshot;

use super::error::ApiError;
use super::hub::{Hub, Message};
use crate::model::{Clarified, Contribution, ContributionKind, DebateState, Decision, Events, Pending, Round};
use crate::terminal::{Terminal, Verbosity};

/// Where a job's outcome goes: the debate's id once it runs (or the job is done).
pub type Reply = oneshot::Sender<Result<String, ApiError>>;

/// The engine's events for a debate this server drives: streamed to its pages, and
/// its checkpoints answered by `POST /api/debates/{id}/checkpoint`.
pub struct WebEvents {
    pub hub: Arc<Hub>,
    /// The debate, once it runs here.
    pub id: Option<String>,
    /// What the job is about, for the server's log before then.
    pub label: String,
    /// The answer for the first checkpoint, given before the debate was resumed.
    pub decided: Option<Decision>,
    pub reply: Option<Reply>,
}

impl WebEvents {
    fn send(&self, message: Message) {
        if let Some(id) = &self.id {
            self.hub.send(id, message);
        }
    }

    fn nudge(&self) {
        if let Some(id) = &self.id {
            self.hub.nudge(id);
        }
    }

    /// The job is over: answer whoever still waits, and let the debate go.
    pub fn finish(mut self, result: crate::error::Result<DebateState>) {
        let answer = match result {
            Ok(state) => Ok(state.id),
            Err(err) => {
                // A request still waiting gets the error as its answer; a failure after the
                // page was answered is told to the server's log as well as the live page.
                if self.reply.is_none() {
                    let shown = format!("{}: {err}", self.id.as_deref().unwrap_or(&self.label));
                    Terminal::new(Verbosity::Normal).warn(&shown);
                }
                self.send(Message::new("notice", &Notice { text: &err.to_string() }));
                Err(ApiError::from(err))
            }
        };
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(answer);
        }
        if let Some(id) = &self.id {
            self.hub.release(id);
        }
    }
}

#[derive(Serialize)]
struct Notice<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Working<'a> {
    round: u32,
    doing: &'a str,
    seats: Vec<Seat<'a>>,
}

#[derive(Serialize)]
struct Seat<'a> {
    seat: usize,
    name: &'a str,
}

#[derive(Serialize)]
struct Delta<'a> {
    seat: usize,
    text: &'a str,
}

#[derive(Serialize)]
struct Landed {
    seat: usize,
}

#[derive(Serialize)]
struct Moderating<'a> {
    what: &'a str,
}

impl Events for WebEvents {
    fn driving(&mut self, id: &str) {
        self.hub.drive(id);
        self.id = Some(id.to_string());
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(Ok(id.to_string()));
        }
    }

    /// Someone answers when the page is open, or answered before the debate resumed.
    fn attended(&self) -> bool {
        self.decided.is_some() || self.id.as_deref().is_some_and(|id| self.hub.watched(id))
    }

    fn checkpoint(&mut self, _state: &DebateState, round: u32, patience: Duration) -> Option<Pending<Decision>> {
        if let Some(decision) = self.decided.take() {
            return Some(Box::pin(std::future::ready(decision)));
        }
        let id = self.id.clone()?;
        let answer = self.hub.wait(&id, round as usize);
        let hub = self.hub.clone();
        Some(Box::pin(async move {
            // The engine marks the debate as at a checkpoint before it waits: show it now.
            hub.nudge(&id);
            match tokio::time::timeout(patience, answer).await {
                Ok(Ok(decision)) => decision,
                Ok(Err(_)) => Decision::EndOfInput,
                Err(_) => Decision::TimedOut,
            }
        }))
    }

    /// The moderator's questions wait for an answer from the page (the form's starter is
    /// there by the time it asks); Continue, or none in time, debates the question as it is.
    fn clarify(&mut self, _questions: &[&str], patience: Duration) -> Option<Pending<Clarified>> {
        let id = self.id.clone()?;
        let answer = self.hub.wait(&id, 0);
        let hub = self.hub.clone();
        Some(Box::pin(async move {
            hub.nudge(&id);
            match tokio::time::timeout(patience, answer).await {
                Ok(Ok(Decision::Guide(text))) => Clarified::Answer(text),
                Ok(Ok(Decision::Interrupted)) => Clarified::Interrupted,
                _ => Clarified::Skipped,
            }
        }))
    }

    fn moderating(&mut self, what: &str) {
        self.send(Message::new("moderating", &Moderating { what }));
        self.nudge();
    }

    fn panel(&mut self, _state: &DebateState) {
        self.nudge();
    }

    fn round_started(&mut self, _round: u32, _of: u32, _framing: &str) {
        self.nudge();
    }

    fn working(&mut self, round: u32, kind: ContributionKind, seats: &[(usize, String)]) {
        let doing = if kind == ContributionKind::Argument { "arguing" } else { "rebutting" };
        let seats = seats.iter().map(|(seat, name)| Seat { seat: *seat, name }).collect();
        self.send(Message::new("working", &Working { round, doing, seats }));
    }

    fn live(&self) -> bool {
        true
    }

    fn delta(&mut self, seat: usize, text: &str) {
        self.send(Message::new("delta", &Delta { seat, text }));
    }

    fn contribution(&mut self, _round: u32, _name: &str, contribution: &Contribution) {
        self.send(Message::new("landed", &Landed { seat: contribution.seat }));
        self.nudge();
    }

    fn failed(&mut self, _round: u32, seat: usize, name: &str) {
        self.send(Message::new("landed", &Landed { seat }));
        self.send(Message::new("notice", &Notice { text: &format!("{name}: the provider failed") }));
    }

    fn dropped(&mut self, name: &str, reason: &str) {
        self.send(Message::new("notice", &Notice { text: &format!("{name} leaves the panel: {reason}") }));
    }

    fn assessed(&mut self, _state: &DebateState, _round: &Round) {
        self.nudge();
    }

    fn ended(&mut self, _state: &DebateState, _reason: crate::model::EndReason) {
        self.nudge();
    }

    fn synthesized(&mut self, _outcome: &crate::model::Outcome) {
        self.nudge();
    }

    fn recorded(
        &mut self,
        _state: &DebateState,
        _record: &crate::model::Published,
        _draft: Option<&crate::model::Draft>,
    ) {
        self.nudge();
    }

    fn paused(&mut self, _id: &str, why: &str) {
        self.send(Message::new("notice", &Notice { text: &format!("Paused ({why}); every finished step is saved.") }));
        self.nudge();
    }

    fn warning(&mut self, text: &str) {
        self.send(Message::new("notice", &Notice { text }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;

    fn driving(hub: &Arc<Hub>, id: &str) -> (WebEvents, oneshot::Receiver<Result<String, ApiError>>) {
        let (reply, answer) = oneshot::channel();
        let mut events =
            WebEvents { hub: hub.clone(), id: None, label: String::new(), decided: None, reply: Some(reply) };
        events.driving(id);
        (events, answer)
    }

    #[tokio::test]
    async fn streamed_text_reaches_every_stream_and_a_closed_one_costs_nothing() {
        let hub = Arc::new(Hub::default());
        let (mut events, answer) = driving(&hub, "DEB-abc123");
        assert_eq!(answer.await.unwrap().unwrap(), "DEB-abc123", "the id goes back once it runs");
        let (mut first, _) = hub.subscribe("DEB-abc123");
        let (second, _) = hub.subscribe("DEB-abc123");
        drop(second);
        assert!(events.live());
        events.delta(1, "<b>Redis</b> is");
        let message = first.recv().await.unwrap();
        assert_eq!((message.name, message.data.as_str()), ("delta", r#"{"seat":1,"text":"<b>Redis</b> is"}"#));
        drop(first);
        events.delta(1, " faster");
        assert!(!hub.keep_watching("DEB-abc123"), "no stream left: the watcher stops");
        events.finish(Ok(fixture::state()));
        assert!(hub.channels().is_empty(), "nothing is kept for a debate nobody watches or drives");
    }

    #[tokio::test]
    async fn a_checkpoint_waits_for_the_answer_given_over_http() {
        let hub = Arc::new(Hub::default());
        let (mut events, _) = driving(&hub, "DEB-abc123");
        let state = fixture::state();
        let asked = events.checkpoint(&state, 1, Duration::from_secs(60)).unwrap();
        assert!(hub.situation("DEB-abc123").waiting);
        assert!(!hub.decide("DEB-other1", None, Decision::End), "only the debate that waits");
        assert!(!hub.decide("DEB-abc123", Some(2), Decision::End), "only at the checkpoint it answers");
        assert!(hub.decide("DEB-abc123", Some(1), Decision::Guide("Weigh cost".into())));
        assert_eq!(asked.await, Decision::Guide("Weigh cost".into()));
        assert!(!hub.situation("DEB-abc123").waiting);
        assert!(!hub.decide("DEB-abc123", None, Decision::End), "answered once");
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_checkpoint_times_out_and_a_given_answer_is_used_at_once() {
        let hub = Arc::new(Hub::default());
        let (mut events, _) = driving(&hub, "DEB-abc123");
        let state = fixture::state();
        let asked = events.checkpoint(&state, 1, Duration::from_secs(1800)).unwrap();
        assert_eq!(asked.await, Decision::TimedOut);
        events.decided = Some(Decision::End);
        assert_eq!(events.checkpoint(&state, 1, Duration::from_secs(1800)).unwrap().await, Decision::End);
    }
}
