//! What stops a running debate from outside, named the same on every system.

/// A stop the system delivers; each pauses the debate like a checkpoint's Pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Ctrl-C: SIGINT on Unix, `CTRL_C_EVENT` on Windows.
    Interrupt,
    /// Ctrl-Break (Windows).
    Break,
    /// SIGTERM (Unix): a service manager, `kill`, a closing container.
    Terminate,
    /// SIGHUP (Unix): the terminal went away.
    HangUp,
    /// The console window closing, or the user logging off or the system shutting down
    /// (Windows), which leaves a few seconds to pause.
    Closed,
}
