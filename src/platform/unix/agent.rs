//! Where an ssh-agent listens and the connection to it: a Unix socket, named by
//! `SSH_AUTH_SOCK`.

use std::io;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The agent's socket: `SSH_AUTH_SOCK`, when it is set.
pub fn address() -> Option<PathBuf> {
    std::env::var_os("SSH_AUTH_SOCK").filter(|s| !s.is_empty()).map(PathBuf::from)
}

/// A connection to the agent at `address`, each read and write given up after `timeout`.
pub fn connect(address: &Path, timeout: Duration) -> io::Result<UnixStream> {
    let stream = UnixStream::connect(address)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    Ok(stream)
}
