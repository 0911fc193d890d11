//! What this server knows of each debate it shows or drives: one channel per debate
//! for its event streams, whether it drives it, and the checkpoint it waits at here.
//!
//! A stream that closes costs nothing: a channel is kept only while someone watches or
//! this server drives its debate, and the engine only ever sends into it without waiting.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::response::sse::Event;
use serde::Serialize;
use tokio::sync::{Notify, broadcast, oneshot};

use crate::engine::step::{self, Between, Step};
use crate::model::{DebateState, Decision};
use crate::store::{HEARTBEAT, Owner};

/// Messages a slow stream may fall behind before it skips to the latest state.
const BACKLOG: usize = 256;

/// A message for a debate's event streams: an SSE event name and its JSON data.
#[derive(Debug, Clone)]
pub struct Message {
    pub name: &'static str,
    pub data: String,
}

impl Message {
    pub fn new(name: &'static str, data: &impl Serialize) -> Message {
        Message { name, data: crate::text::secrets::gated_json(data, false).unwrap_or_else(|_| "null".into()) }
    }

    pub fn event(&self) -> Event {
        Event::default().event(self.name).data(&self.data)
    }
}

/// One watched or driven debate.
pub struct Channel {
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
    pub fn channels(&self) -> MutexGuard<'_, HashMap<String, Channel>> {
        // A panic while holding the lock leaves the map as it was: keep using it.
        self.channels.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new stream's receiver, and whether a watcher must start for it.
    pub fn subscribe(&self, id: &str) -> (broadcast::Receiver<Message>, Option<Arc<Notify>>) {
        let mut channels = self.channels();
        let channel = channels.entry(id.to_string()).or_insert_with(Channel::new);
        let start = !channel.watched;
        channel.watched = true;
        (channel.sender.subscribe(), start.then(|| channel.nudge.clone()))
    }

    /// Someone has `id`'s page open (its event stream).
    pub fn watched(&self, id: &str) -> bool {
        self.channels().get(id).is_some_and(|channel| channel.sender.receiver_count() > 0)
    }

    /// The watcher asks whether anyone still listens; if not, it stops.
    pub fn keep_watching(&self, id: &str) -> bool {
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

    pub fn drive(&self, id: &str) {
        self.channels().entry(id.to_string()).or_insert_with(Channel::new).driven = true;
    }

    pub fn release(&self, id: &str) {
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

    pub fn wait(&self, id: &str, round: usize) -> oneshot::Receiver<Decision> {
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
    pub fn send(&self, id: &str, message: Message) {
        if let Some(channel) = self.channels().get(id) {
            let _ = channel.sender.send(message);
        }
    }

    /// Read `id` back now rather than at the next poll.
    pub fn nudge(&self, id: &str) {
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

/// Who drives a debate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Driver {
    Here,
    Elsewhere { pid: u32, host: String },
    Nobody,
}
