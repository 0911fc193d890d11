//! The terminal: its width, raw mode while a question is asked, and the bytes typed,
//! waited for in slices so a question ends at its deadline. Keys are read from stdin
//! (`poll` and `read`, through rustix), not by an event reader such as crossterm's,
//! which spins on a terminal that went away (a closed tab, a dropped SSH session): a
//! hang-up, end of file or read error ends the wait at once.

use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::termios::{OptionalActions, Termios};

/// What a stream needs for its terminal to be asked its width.
pub use std::os::fd::AsFd as Terminal;

/// The columns of the terminal `stream` is, if it is one that knows.
pub fn columns(stream: &impl Terminal) -> Option<u16> {
    Some(rustix::termios::tcgetwinsize(stream).ok()?.ws_col)
}

/// Raw mode on stdin while it lives; the terminal's settings come back when it is dropped.
pub struct RawMode(Termios);

impl RawMode {
    pub fn on() -> Option<RawMode> {
        let stdin = std::io::stdin();
        let before = rustix::termios::tcgetattr(&stdin).ok()?;
        let mut raw = before.clone();
        raw.make_raw();
        rustix::termios::tcsetattr(&stdin, OptionalActions::Now, &raw).ok()?;
        Some(RawMode(before))
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = rustix::termios::tcsetattr(std::io::stdin(), OptionalActions::Now, &self.0);
    }
}

/// Wait up to `wait` for typing at stdin and add the bytes that came to `pending`, as a
/// terminal in raw mode sends them; `false` when the terminal is gone.
pub fn typed(wait: Duration, pending: &mut Vec<u8>) -> bool {
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    let timeout = Timespec { tv_sec: 0, tv_nsec: wait.as_nanos().min(999_999_999) as _ };
    match rustix::event::poll(&mut fds, Some(&timeout)) {
        Ok(0) | Err(Errno::INTR) => return true,
        Ok(_) => {}
        Err(_) => return false,
    }
    let revents = fds[0].revents();
    if !revents.contains(PollFlags::IN) {
        // Hung up, an error, or no longer a descriptor.
        return revents.is_empty();
    }
    let mut buffer = [0u8; 256];
    match rustix::io::read(&stdin, &mut buffer) {
        Ok(0) => false,
        Ok(read) => {
            pending.extend_from_slice(&buffer[..read]);
            true
        }
        Err(Errno::INTR | Errno::AGAIN) => true,
        Err(_) => false,
    }
}
