//! Stdout kept for one writer: a copy of it handed over, and the process's own stdout
//! pointed at stderr, so whatever else prints never reaches that writer's reader.

use std::fs::File;
use std::io::{self, Write};
use std::os::windows::io::AsHandle;

/// The stdout the process was started with, for the caller alone; from now on anything
/// else written to stdout (by this process or a child it starts) goes to stderr: the
/// standard output handle is set to a copy of stderr's (`SetStdHandle`, which Rust's
/// stdout asks for at every write), never set back.
pub fn take() -> io::Result<File> {
    let _ = io::stdout().flush();
    let kept = io::stdout().as_handle().try_clone_to_owned()?;
    std::mem::forget(stdio_override::StdoutOverride::from_io_ref(&io::stderr())?);
    Ok(File::from(kept))
}
