//! The console's events that stop a debate (Ctrl-C, Ctrl-Break, the console closing, the
//! user logging off, the system shutting down), and Ctrl-C left to a program in the
//! foreground. For the last three Windows ends the process once the handler returns;
//! tokio's handler waits for the process to end itself, so a debate gets the seconds
//! Windows allows (five for a closing console) to pause.

use std::io;

use tokio::signal::windows::{CtrlC, ctrl_break, ctrl_c, ctrl_close, ctrl_logoff, ctrl_shutdown};

use crate::platform::stop::Stop;

/// The first of the console's stopping events to arrive.
pub async fn first() -> io::Result<Stop> {
    let (mut interrupt, mut break_, mut close) = (ctrl_c()?, ctrl_break()?, ctrl_close()?);
    let (mut logoff, mut shutdown) = (ctrl_logoff()?, ctrl_shutdown()?);
    Ok(tokio::select! {
        _ = interrupt.recv() => Stop::Interrupt,
        _ = break_.recv() => Stop::Break,
        _ = close.recv() => Stop::Closed,
        _ = logoff.recv() => Stop::Closed,
        _ = shutdown.recv() => Stop::Closed,
    })
}

/// While the value lives, Ctrl-C does not end this process: it is the foreground
/// program's (a pager's) to use.
pub fn leave_interrupts() -> Option<CtrlC> {
    ctrl_c().ok()
}
