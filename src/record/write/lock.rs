//! One of debate's commits at a time in a repository. Publishing a record, changing its
//! status and writing its scores each read the record, write the work tree and commit:
//! two at once would each build on what the other had not committed yet (the index
//! listing one record of two, a status that wins in HEAD and loses in the file). Each
//! holds this lock from its first read to its last write; the next one waits, then
//! reads what the first committed.

use std::os::unix::fs::OpenOptionsExt;
use std::time::{Duration, Instant};

use rustix::fs::FlockOperation;

use crate::record::{RecordError, Result};

/// How long a command waits for another's commit before it gives up: a commit takes
/// milliseconds, a signed one with a hardware key a few seconds.
const PATIENCE: Duration = Duration::from_secs(60);

/// Held until dropped; the system lets it go when the process ends, however it ends.
pub struct CommitLock {
    _file: std::fs::File,
}

impl CommitLock {
    /// The lock of the repository at `root`, if it is one.
    pub fn at(root: &std::path::Path) -> Result<Option<CommitLock>> {
        crate::repo::open(root)?.as_ref().map(CommitLock::acquire).transpose()
    }

    /// The lock of the repository `repo` belongs to (every work tree of it shares one).
    pub fn acquire(repo: &git2::Repository) -> Result<CommitLock> {
        let path = repo.commondir().join("debate.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .map_err(|source| RecordError::Write { path: path.clone(), source })?;
        let started = Instant::now();
        loop {
            match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(CommitLock { _file: file }),
                Err(rustix::io::Errno::WOULDBLOCK) if started.elapsed() < PATIENCE => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(rustix::io::Errno::WOULDBLOCK) => return Err(RecordError::Committing(path)),
                Err(errno) => return Err(RecordError::Write { path, source: errno.into() }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let first = CommitLock::acquire(&repo).unwrap();
        let path = repo.commondir().join("debate.lock");
        let other = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let taken = rustix::fs::flock(&other, FlockOperation::NonBlockingLockExclusive);
        assert_eq!(taken, Err(rustix::io::Errno::WOULDBLOCK), "held while the first holds it");
        drop(first);
        assert!(rustix::fs::flock(&other, FlockOperation::NonBlockingLockExclusive).is_ok());
    }
}
