//! Live debates: the debates this server drives, the checkpoints they wait at, and
//! the event streams (Server-Sent Events) that show every debate as it goes.
//!
//! Each watched debate has one channel. A debate this server drives speaks into it
//! through [`WebEvents`] (its streamed text as it arrives, a nudge at every step); for
//! every watched debate, whoever drives it, one watcher reads the database twice a
//! second (WAL lets it read while another process writes) and sends the page's live
//! part when it changed. A stream that closes costs nothing: the watcher stops with
//! its last subscriber, and the engine only ever sends into a channel without waiting.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt};
use serde::Serialize;
use tokio::sync::{Notify, broadcast, mpsc, oneshot, watch};

use super::api::{ApiError, existing, with_store};
use super::pages::Driver;
use super::{App, Launch, NewDebate};
use crate::engine::step::{self, Between, Step};
use crate::model::{Contribution, ContributionKind, DebateState, Decision, Events, Pending, Round};
use crate::store::{HEARTBEAT, Owner};
use crate::terminal::{Terminal, Verbosity};

/// How often a watched debate is read back from the database.
const POLL: Duration = Duration::from_millis(500);
/// Messages a slow stream may fall behind before it skips to the latest state.
const BACKLOG: usize = 256;

/// Where a job's outcome goes: the debate's id once it runs (or the job is done).
pub type Reply = oneshot::Sender<Result<String, ApiError>>;

/// Work for the driver, which runs the engine on the local task set.
pub enum Job {
    Start {
        debate: NewDebate,
        reply: Reply,
    },
    /// `--resume`; `decision` answers the checkpoint it stopped at, `issue` writes a
    /// complete debate's issue draft.
    Resume {
        id: String,
        decision: Option<Decision>,
        issue: bool,
        reply: Reply,
    },
}

/// A message for a debate's event streams: an SSE event name and its JSON data.
#[derive(Debug, Clone)]
pub struct Message {
    name: &'static str,
    data: String,
}

impl Message {
    pub fn new(name: &'static str, data: &impl Serialize) -> Message {
        Message { name, data: crate::text::secrets::gated_json(data, false).unwrap_or_else(|_| "null".into()) }
    }

    fn event(&self) -> Event {
        Event::default().event(self.name).data(&self.data)
    }
}

/// One watched or driven debate.
struct Channel {
    sender: broadcast::Sender<Message>,
    nudge: Arc<Notify>,
    watched: bool,
    driven: bool,
    /// The checkpoint it waits at here.
    /// The checkpoint it waits at (after this many rounds) and where its answer goes.
    waiting: Option<(usize, oneshot::Sender<Decision>)>,
}

impl Channel {
    fn new() -> Channel {
        Channel {
            sender: broadcast::channel(BACKLOG).0,
            nudge: Arc::new(Notify::new()),
            watched: false,
            driven: false,
            waiting: None,
        }
    }

    fn idle(&self) -> bool {
        !self.watched && !self.driven && self.sender.receiver_count() == 0
    }
}

/// Every channel, by debate id.
#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, Channel>>,
}

/// What this server knows of a debate.
#[derive(Debug, Clone, Copy, Default)]
pub struct Situation {
    /// This server drives it.
    pub driven: bool,
    /// ... and it waits at a checkpoint for an answer.
    pub waiting: bool,
}

impl Hub {
    fn channels(&self) -> MutexGuard<'_, HashMap<String, Channel>> {
        // A panic while holding the lock leaves the map as it was: keep using it.
        self.channels.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new stream's receiver, and whether a watcher must start for it.
    fn subscribe(&self, id: &str) -> (broadcast::Receiver<Message>, Option<Arc<Notify>>) {
        let mut channels = self.channels();
        let channel = channels.entry(id.to_string()).or_insert_with(Channel::new);
        let start = !channel.watched;
        channel.watched = true;
        (channel.sender.subscribe(), start.then(|| channel.nudge.clone()))
    }

    /// Someone has `id`'s page open (its event stream).
    fn watched(&self, id: &str) -> bool {
        self.channels().get(id).is_some_and(|channel| channel.sender.receiver_count() > 0)
    }

    /// The watcher asks whether anyone still listens; if not, it stops.
    fn keep_watching(&self, id: &str) -> bool {
        let mut channels = self.channels();
        let Some(channel) = channels.get_mut(id) else { return false };
        if channel.sender.receiver_count() > 0 {
            return true;
        }
        channel.watched = false;
        if channel.idle() {
            channels.remove(id);
        }
        false
    }

    /// Take `id` to drive here, before its job starts; `false` when this server drives
    /// it already (two tabs answering one checkpoint start one job, not two).
    pub fn claim(&self, id: &str) -> bool {
        let mut channels = self.channels();
        let channel = channels.entry(id.to_string()).or_insert_with(Channel::new);
        !std::mem::replace(&mut channel.driven, true)
    }

    fn drive(&self, id: &str) {
        self.channels().entry(id.to_string()).or_insert_with(Channel::new).driven = true;
    }

    fn release(&self, id: &str) {
        let mut channels = self.channels();
        if let Some(channel) = channels.get_mut(id) {
            channel.driven = false;
            channel.waiting = None;
            channel.nudge.notify_one();
            if channel.idle() {
                channels.remove(id);
            }
        }
    }

    fn wait(&self, id: &str, round: usize) -> oneshot::Receiver<Decision> {
        let (sender, receiver) = oneshot::channel();
        if let Some(channel) = self.channels().get_mut(id) {
            channel.waiting = Some((round, sender));
        }
        receiver
    }

    /// Answer the checkpoint `id` waits at here — the one after `round` rounds, when the
    /// answer names it; `false` when it waits at none (or at another).
    pub fn decide(&self, id: &str, round: Option<usize>, decision: Decision) -> bool {
        let mut channels = self.channels();
        let Some(channel) = channels.get_mut(id) else { return false };
        if round.is_some_and(|round| channel.waiting.as_ref().is_some_and(|(at, _)| *at != round)) {
            return false;
        }
        channel.waiting.take().is_some_and(|(_, sender)| sender.send(decision).is_ok())
    }

    pub fn situation(&self, id: &str) -> Situation {
        match self.channels().get(id) {
            Some(c) => Situation { driven: c.driven, waiting: c.waiting.as_ref().is_some_and(|(_, w)| !w.is_closed()) },
            None => Situation::default(),
        }
    }

    /// To every stream of `id`; nobody listening is fine.
    fn send(&self, id: &str, message: Message) {
        if let Some(channel) = self.channels().get(id) {
            let _ = channel.sender.send(message);
        }
    }

    /// Read `id` back now rather than at the next poll.
    fn nudge(&self, id: &str) {
        if let Some(channel) = self.channels().get(id) {
            channel.nudge.notify_one();
        }
    }
}

/// Whether a debate nobody drives stopped at a checkpoint: its next step opens a
/// round after the first, with checkpoints on. Only then do guide and end apply.
pub fn at_checkpoint(state: &DebateState) -> bool {
    matches!(step::next(state, Between::Checkpoint), Step::StartRound(round) if round > 1)
        && state.snapshot.debate.checkpoints
}

/// Who drives a debate, for the page, from the lease in the database.
pub fn driver(situation: Situation, holder: Option<(Owner, i64)>) -> Driver {
    let me = Owner::this_process();
    match holder {
        _ if situation.driven => Driver::Here,
        Some((owner, _)) if owner.pid == me.pid && owner.host == me.host => Driver::Here,
        // A driver silent for three heartbeats has probably gone; resuming will tell.
        Some((owner, silent)) if silent <= 3 * HEARTBEAT.as_secs() as i64 => {
            Driver::Elsewhere { pid: owner.pid, host: owner.host }
        }
        _ => Driver::Nobody,
    }
}

/// The engine's events for a debate this server drives: streamed to its pages, and
/// its checkpoints answered by `POST /api/debates/{id}/checkpoint`.
struct WebEvents {
    hub: Arc<Hub>,
    /// The debate, once it runs here.
    id: Option<String>,
    /// What the job is about, for the server's log before then.
    label: String,
    /// The answer for the first checkpoint, given before the debate was resumed.
    decided: Option<Decision>,
    reply: Option<Reply>,
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
    fn finish(mut self, result: crate::error::Result<DebateState>) {
        let answer = match result {
            Ok(state) => Ok(state.id),
            Err(err) => {
                let shown = format!("{}: {err}", self.id.as_deref().unwrap_or(&self.label));
                Terminal::new(Verbosity::Normal).warn(&shown);
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

    fn moderating(&mut self, what: &str) {
        self.send(Message::new("moderating", &Moderating { what }));
        self.nudge();
    }

    fn panel(&mut self, _state: &DebateState) {
        self.nudge();
    }

    fn round_started(&mut self, _round: u32, _framing: &str) {
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

    fn ended(&mut self, _reason: crate::model::EndReason) {
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

/// The driver: runs each job's debate on the local task set until the server stops,
/// then waits for the debates it drives (each pauses on the signal that stopped it).
pub async fn drive(
    launch: Arc<dyn Launch>,
    hub: Arc<Hub>,
    mut jobs: mpsc::UnboundedReceiver<Job>,
    mut stopping: watch::Receiver<bool>,
) {
    let mut running = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            job = jobs.recv() => match job {
                Some(job) => {
                    running.spawn_local(run(launch.clone(), hub.clone(), job));
                }
                None => break,
            },
            stopped = stopping.wait_for(|stopped| *stopped) => {
                let _ = stopped;
                break;
            }
            Some(_) = running.join_next() => {}
        }
    }
    jobs.close();
    while running.join_next().await.is_some() {}
}

async fn run(launch: Arc<dyn Launch>, hub: Arc<Hub>, job: Job) {
    match job {
        Job::Start { debate, reply } => {
            let label = "a new debate".to_string();
            let mut events = WebEvents { hub, id: None, label, decided: None, reply: Some(reply) };
            let result = launch.start(debate, &mut events).await;
            events.finish(result);
        }
        Job::Resume { id, decision, issue, reply } => {
            let label = id.clone();
            let mut events = WebEvents { hub: hub.clone(), id: None, label, decided: decision, reply: Some(reply) };
            let result = launch.resume(&id, issue, &mut events).await;
            events.finish(result);
            // Claimed before it started, so released however it ended.
            hub.release(&id);
        }
    }
}

/// The live part of a debate's page, as the `state` event carries it.
async fn state_message(app: &Arc<App>, id: &str) -> Result<Message, ApiError> {
    let situation = app.hub.situation(id);
    let (id, app) = (id.to_string(), app.clone());
    with_store(&app.clone(), move |store| {
        let store = existing(store, &id)?;
        let state = store.load(&id)?;
        Ok(Message::new("state", &app.pages.live(&app, &store, &state, situation)?))
    })
    .await
}

/// Reads a watched debate back twice a second, or at once when its driver here says
/// something changed, and sends its live part when that differs from the last one.
async fn watch(app: Arc<App>, id: String, nudge: Arc<Notify>) {
    let mut stopping = app.stopping.clone();
    let mut last: Option<String> = None;
    loop {
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = nudge.notified() => {}
            _ = stopping.wait_for(|stopped| *stopped) => return,
        }
        if !app.hub.keep_watching(&id) {
            return;
        }
        // A failed read (the debate deleted, the disk busy) is tried again next time.
        if let Ok(message) = state_message(&app, &id).await
            && last.as_ref() != Some(&message.data)
        {
            last = Some(message.data.clone());
            app.hub.send(&id, message);
        }
    }
}

/// `GET /api/debates/{id}/events`: Server-Sent Events. `state` first and whenever the
/// debate changes (`{status, actions, driver, html}`); for a debate this server drives
/// also `working` (`{round, doing, seats}`), `delta` (`{seat, text}`: streamed text),
/// `landed` (`{seat}`), `moderating` (`{what}`) and `notice` (`{text}`).
pub async fn events(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let id = {
        let id = id.clone();
        with_store(&app, move |store| Ok(existing(store, &id)?.resolve_id(&id)?)).await?
    };
    let (receiver, start) = app.hub.subscribe(&id);
    if let Some(nudge) = start {
        tokio::spawn(watch(app.clone(), id.clone(), nudge));
    }
    let first = state_message(&app, &id).await?;
    let mut stopping = app.stopping.clone();
    let updates = futures::stream::unfold((receiver, app, id), |(mut receiver, app, id)| async move {
        loop {
            match receiver.recv().await {
                Ok(message) => return Some((message, (receiver, app, id))),
                // Too slow for the stream: skip to how the debate stands now.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Ok(message) = state_message(&app, &id).await {
                        return Some((message, (receiver, app, id)));
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let stream = futures::stream::once(std::future::ready(first))
        .chain(updates)
        .map(|message| Ok(message.event()))
        .take_until(async move {
            let _ = stopping.wait_for(|stopped| *stopped).await;
        });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
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
