//! Stdout kept for one writer: a copy of it handed over, and the process's own stdout
//! pointed at stderr, so whatever else prints never reaches that writer's reader.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// The stdout the process was started with, for the caller alone; from now on anything
/// else written to stdout (by this process or a child it starts) goes to stderr.
pub fn take() -> io::Result<File> {
    let _ = io::stdout().flush();
    let kept = io::stdout().as_fd().try_clone_to_owned()?;
    rustix::stdio::dup2_stdout(io::stderr())?;
    Ok(File::from(kept))
}
