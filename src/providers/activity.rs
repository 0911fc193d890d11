//! When a model last sent a token, in this process: a round's deadline waits for a model
//! that is still answering rather than cut it off (`engine::run`).

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

static LAST: Mutex<Option<Instant>> = Mutex::new(None);

/// A model sent something just now.
pub fn touch() {
    *LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
}

/// How long no model has sent anything (`None`: nothing was ever sent).
pub fn quiet_for() -> Option<Duration> {
    LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).map(|at| at.elapsed())
}
