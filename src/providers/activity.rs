//! How long this process's model calls have been in flight, all told: the round and
//! total timeouts stand still while a model is answering (`engine::run`).

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

struct Busy {
    in_flight: usize,
    /// Since when a call has been in flight, while one is.
    since: Option<Instant>,
    /// Time with a call in flight before `since`.
    before: Duration,
}

static BUSY: Mutex<Busy> = Mutex::new(Busy { in_flight: 0, since: None, before: Duration::ZERO });

fn busy_state() -> std::sync::MutexGuard<'static, Busy> {
    BUSY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Time with at least one call in flight, since the process started.
pub fn busy() -> Duration {
    let busy = busy_state();
    busy.before + busy.since.map_or(Duration::ZERO, |since| since.elapsed())
}

/// A call in flight until the guard drops.
pub struct InFlight(());

pub fn in_flight() -> InFlight {
    let mut busy = busy_state();
    busy.in_flight += 1;
    if busy.since.is_none() {
        busy.since = Some(Instant::now());
    }
    InFlight(())
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut busy = busy_state();
        busy.in_flight -= 1;
        if busy.in_flight == 0
            && let Some(since) = busy.since.take()
        {
            busy.before += since.elapsed();
        }
    }
}
