//! A debate a tool call runs, as a conversation with the client: the debate runs on
//! the server's local task set while the call (or, at 2026-07-28, each of its legs)
//! relays its steps as progress to the leg's token and waits for its next turn — a
//! question for the user, or its end. A question parks the conversation under an opaque
//! handle (the `requestState` of an input-required result, or a task's id) until the
//! client answers it; a leg cancelled stops the debate, which pauses.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, ElicitRequest, ElicitResult, InputRequest, InputRequests, InputResponses,
    ProgressNotificationParam, ProgressToken,
};
use rmcp::service::Peer;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::events::{Asked, Step};

/// The conversation's next turn.
pub enum Turn {
    /// The debate asks the user; the answer goes to `Asked::answer`.
    Ask(Asked),
    /// The debate ended (completed, paused or failed): the call's result.
    Done(CallToolResult),
}

/// The client a leg of the conversation reports to: its progress token, and its
/// cancellation.
pub struct Leg {
    pub peer: Peer<RoleServer>,
    pub token: Option<ProgressToken>,
    pub cancelled: CancellationToken,
}

/// The ends of a conversation the debate holds: where it asks, where its steps go, where
/// its result goes, and what stops it.
pub struct Ends {
    pub asks: mpsc::UnboundedSender<Asked>,
    pub steps: mpsc::UnboundedSender<Step>,
    pub done: oneshot::Sender<CallToolResult>,
    pub stop: CancellationToken,
}

/// A debate running for a call, seen from the call.
pub struct Conversation {
    asked: mpsc::UnboundedReceiver<Asked>,
    steps: mpsc::UnboundedReceiver<Step>,
    done: oneshot::Receiver<CallToolResult>,
    stop: CancellationToken,
    counter: Counter,
    /// The latest step in words (a task's status message).
    latest: Latest,
}

/// The latest step of a conversation in words, shared with whoever shows it.
pub type Latest = Arc<Mutex<Option<String>>>;

impl Conversation {
    /// A conversation, and the ends its debate holds.
    pub fn new() -> (Conversation, Ends) {
        let (asks, asked) = mpsc::unbounded_channel();
        let (steps_sender, steps) = mpsc::unbounded_channel();
        let (done_sender, done) = oneshot::channel();
        let stop = CancellationToken::new();
        let ends = Ends { asks, steps: steps_sender, done: done_sender, stop: stop.clone() };
        let latest = Latest::default();
        (Conversation { asked, steps, done, stop, counter: Counter::default(), latest }, ends)
    }

    /// Its latest step in words, as it changes.
    pub fn latest(&self) -> Latest {
        self.latest.clone()
    }

    /// Stop the debate: it pauses at its next safe point, every finished step saved.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// What stops the debate.
    pub fn stopper(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Until the debate asks or ends: its steps relayed as progress to `leg`'s token, and
    /// `leg`'s cancellation a stop.
    pub async fn next(&mut self, leg: Option<&Leg>) -> Turn {
        let cancelled = leg.map(|leg| leg.cancelled.clone()).unwrap_or_default();
        let mut watching = leg.is_some();
        loop {
            tokio::select! {
                biased;
                Some(step) = self.steps.recv() => self.relay(step, leg).await,
                Some(asked) = self.asked.recv() => {
                    self.drain(leg).await;
                    return Turn::Ask(asked);
                }
                done = &mut self.done => {
                    self.drain(leg).await;
                    let stopped = || super::replies::refused("the server is stopping");
                    return Turn::Done(done.unwrap_or_else(|_| stopped()));
                }
                () = cancelled.cancelled(), if watching => {
                    watching = false;
                    self.stop();
                }
            }
        }
    }

    /// Every step already sent, relayed before the turn it came before.
    async fn drain(&mut self, leg: Option<&Leg>) {
        while let Ok(step) = self.steps.try_recv() {
            self.relay(step, leg).await;
        }
    }

    async fn relay(&mut self, step: Step, leg: Option<&Leg>) {
        let progress = self.counter.count(&step);
        *self.latest.lock().unwrap_or_else(|e| e.into_inner()) = Some(step.message.clone());
        let Some(Leg { peer, token: Some(token), .. }) = leg else { return };
        let mut notification = ProgressNotificationParam::new(token.clone(), progress).with_message(step.message);
        if let Some(total) = step.total {
            notification = notification.with_total(f64::from(total));
        }
        let _ = peer.notify_progress(notification).await;
    }
}

/// Progress as a client shows it: a number that only grows, toward the total once it
/// is known — each stage (analysis, a round, the synthesis) one unit, its steps filling
/// it by halves, the record written the total itself.
#[derive(Debug, Default)]
struct Counter {
    stage: u32,
    within: i32,
    last: f64,
}

impl Counter {
    fn count(&mut self, step: &Step) -> f64 {
        let counted = match (step.last, step.total) {
            (true, Some(total)) => f64::from(total),
            _ => {
                if step.stage != self.stage {
                    (self.stage, self.within) = (step.stage, 0);
                }
                self.within += 1;
                f64::from(step.stage) + 1.0 - 0.5f64.powi(self.within.min(40))
            }
        };
        self.last = if counted > self.last { counted } else { self.last + 1e-6 };
        self.last
    }
}

/// Conversations waiting for the client's answer, each under its handle.
#[derive(Clone, Default)]
pub struct Parked {
    waiting: Arc<Mutex<HashMap<String, Waiting>>>,
}

/// A conversation of a tool waiting for the answer to its question.
type Waiting = (String, Conversation, Asked);

impl Parked {
    /// Park `conversation` of tool `tool` until `asked` is answered; its handle.
    pub fn park(&self, tool: &str, conversation: Conversation, asked: Asked) -> String {
        let handle = handle();
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        waiting.insert(handle.clone(), (tool.to_string(), conversation, asked));
        handle
    }

    /// The conversation of tool `tool` parked under `handle`, and its question.
    pub fn take(&self, tool: &str, handle: &str) -> Option<(Conversation, Asked)> {
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        match waiting.get(handle) {
            Some((parked, _, _)) if parked == tool => waiting.remove(handle).map(|(_, c, a)| (c, a)),
            _ => None,
        }
    }
}

/// The question as the input request a client answers: an elicitation form, under its key.
pub fn input_requests(asked: &Asked) -> InputRequests {
    let request = InputRequest::Elicitation(ElicitRequest::new(asked.params.clone()));
    InputRequests::from([(asked.key.to_string(), request)])
}

/// The answer the client gave to `key` among its input responses, if it gave one.
pub fn answer_to(key: &str, responses: Option<&InputResponses>) -> Option<ElicitResult> {
    serde_json::from_value(responses?.get(key)?.clone()).ok()
}

/// An opaque handle nobody can guess: 128 bits from the operating system.
pub fn handle() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(stage: u32, total: Option<u32>, last: bool) -> Step {
        Step { message: String::new(), stage, total, last }
    }

    #[test]
    fn progress_only_grows_and_the_record_is_the_total() {
        let mut counter = Counter::default();
        let steps = [
            step(0, None, false),
            step(0, Some(5), false),
            step(1, Some(5), false),
            step(1, Some(5), false),
            step(2, Some(5), false),
            step(4, Some(5), false),
            step(4, Some(5), true),
        ];
        let counted: Vec<f64> = steps.iter().map(|s| counter.count(s)).collect();
        assert!(counted.windows(2).all(|w| w[0] < w[1]), "{counted:?}");
        assert_eq!(counted.last(), Some(&5.0));
        assert!(counted[..6].iter().all(|c| *c < 5.0), "{counted:?}");
        let many: Vec<f64> = (0..100).map(|_| counter.count(&step(4, Some(5), false))).collect();
        assert!(many.windows(2).all(|w| w[0] < w[1]), "still growing");
    }

    #[test]
    fn an_answer_is_read_from_its_key() {
        let responses = serde_json::json!({"checkpoint": {"action": "accept", "content": {"action": "end"}}});
        let responses: InputResponses = serde_json::from_value(responses).unwrap();
        let answer = answer_to("checkpoint", Some(&responses)).unwrap();
        assert_eq!(answer.content.unwrap()["action"], "end");
        assert!(answer_to("clarify", Some(&responses)).is_none());
        assert!(answer_to("checkpoint", None).is_none());
        assert_eq!(handle().len(), 32);
        assert_ne!(handle(), handle());
    }
}
