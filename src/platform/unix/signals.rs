//! The signals that stop a debate (Ctrl-C, SIGTERM, SIGHUP), and Ctrl-C left to a
//! program in the foreground.

use std::io;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::platform::stop::Stop;

/// The first of Ctrl-C, SIGTERM and SIGHUP to arrive.
pub async fn first() -> io::Result<Stop> {
    let (mut interrupt, mut terminate, mut hang_up) =
        (signal(SignalKind::interrupt())?, signal(SignalKind::terminate())?, signal(SignalKind::hangup())?);
    Ok(tokio::select! {
        _ = interrupt.recv() => Stop::Interrupt,
        _ = terminate.recv() => Stop::Terminate,
        _ = hang_up.recv() => Stop::HangUp,
    })
}

/// While the value lives, Ctrl-C does not end this process: it is the foreground
/// program's (a pager's) to use.
pub fn leave_interrupts() -> Option<Signal> {
    signal(SignalKind::interrupt()).ok()
}
