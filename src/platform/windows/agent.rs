//! Where an ssh-agent listens and the connection to it: Windows OpenSSH's named pipe
//! (`\\.\pipe\openssh-ssh-agent`), or the pipe `SSH_AUTH_SOCK` names. A pipe opened as a
//! file has no timeout of its own, so each read and write runs on a thread of its own
//! and is given up at the deadline (the thread stays blocked until the agent answers or
//! goes away; the command has failed by then).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The pipe of the agent that ships with Windows (the OpenSSH Authentication Agent
/// service).
const OPENSSH_PIPE: &str = r"\\.\pipe\openssh-ssh-agent";

/// The pipe error for "all instances are busy": the agent serves another client.
const PIPE_BUSY: i32 = 231;

/// The agent's pipe: `SSH_AUTH_SOCK` when it is set, else Windows OpenSSH's.
pub fn address() -> Option<PathBuf> {
    let named = std::env::var_os("SSH_AUTH_SOCK").filter(|s| !s.is_empty()).map(PathBuf::from);
    Some(named.unwrap_or_else(|| PathBuf::from(OPENSSH_PIPE)))
}

/// A connection to the agent at `address`, each read and write given up after `timeout`.
pub fn connect(address: &Path, timeout: Duration) -> io::Result<Pipe> {
    let started = Instant::now();
    loop {
        match OpenOptions::new().read(true).write(true).open(address) {
            Ok(file) => return Ok(Pipe { file: Arc::new(file), timeout }),
            Err(err) if err.raw_os_error() == Some(PIPE_BUSY) && started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(err) => return Err(err),
        }
    }
}

/// A connection to the agent's pipe.
pub struct Pipe {
    file: Arc<File>,
    timeout: Duration,
}

impl Pipe {
    /// `work` done on the pipe on a thread of its own, or `TimedOut` at the deadline.
    fn within<T: Send + 'static>(&self, work: impl FnOnce(&File) -> io::Result<T> + Send + 'static) -> io::Result<T> {
        let (file, (sender, receiver)) = (self.file.clone(), mpsc::channel());
        std::thread::Builder::new().spawn(move || sender.send(work(&file)))?;
        receiver.recv_timeout(self.timeout).unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()))
    }
}

impl Read for Pipe {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let wanted = buffer.len();
        let read = self.within(move |mut file| {
            let mut read = vec![0; wanted];
            let count = file.read(&mut read)?;
            read.truncate(count);
            Ok(read)
        })?;
        buffer[..read.len()].copy_from_slice(&read);
        Ok(read.len())
    }
}

impl Write for Pipe {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let bytes = bytes.to_vec();
        self.within(move |mut file| file.write(&bytes))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
