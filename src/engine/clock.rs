//! The debate's clocks: the round and total timeouts, which stand still while a model
//! is answering.

use std::time::Duration;

use tokio::time::Instant;

use crate::providers;

/// When a step's time is up: its round's deadline and the debate's.
pub(super) type Deadlines = [Deadline; 2];

/// A clock that stands still while a model is answering: the round and total timeouts
/// measure debate's own waiting, never a slow model that is still at work (each call
/// has its own limits for a model that has gone silent).
#[derive(Debug, Clone, Copy)]
pub(super) struct Clock {
    at: Instant,
    busy: Duration,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    since: Clock,
    limit: Duration,
}

impl Clock {
    pub(super) fn start() -> Clock {
        Clock { at: Instant::now(), busy: providers::activity::busy() }
    }

    pub(super) fn after(self, limit: Duration) -> Deadline {
        Deadline { since: self, limit }
    }
}

impl Deadline {
    /// What is left of the limit, the time models spent answering not counted.
    fn remaining(&self) -> Duration {
        let answering = providers::activity::busy().saturating_sub(self.since.busy);
        let spent = self.since.at.elapsed().saturating_sub(answering);
        self.limit.saturating_sub(spent)
    }
}

/// Resolves once either deadline has passed.
pub(super) async fn deadline_passed(deadlines: Deadlines) {
    loop {
        let left = deadlines.iter().map(Deadline::remaining).min().unwrap_or_default();
        if left.is_zero() {
            return;
        }
        // While a model answers the clocks stand still: look again shortly after.
        tokio::time::sleep(left.max(Duration::from_millis(200))).await;
    }
}
