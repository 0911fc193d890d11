//! One of debate's commits at a time in a repository. Publishing a record, changing its
//! status and writing its scores each read the record, write the work tree and commit:
//! two at once would each build on what the other had not committed yet (the index
//! listing one record of two, a status that wins in HEAD and loses in the file). Each
//! holds this lock from its first read to its last write; the next one waits, then
//! reads what the first committed.

use std::fs::TryLockError;
use std::time::{Duration, Instant};

use crate::record::{RecordError, Result};

/// How long a command waits for another's commit before it gives up: a commit takes
/// milliseconds, a signed one with a hardware key a few seconds.
const PATIENCE: Duration = Duration::from_secs(60);

/// Held until dropped; the system lets it go when the process ends, however it ends.
/// The standard library's file lock: `flock` on Unix, `LockFileEx` on Windows.
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
        let mut options = std::fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        let file = crate::platform::files::open_no_follow(&path, options)
            .map_err(|source| RecordError::Write { path: path.clone(), source })?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(CommitLock { _file: file }),
                Err(TryLockError::WouldBlock) if started.elapsed() < PATIENCE => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(TryLockError::WouldBlock) => return Err(RecordError::Committing(path)),
                Err(TryLockError::Error(source)) => return Err(RecordError::Write { path, source }),
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
        assert!(matches!(other.try_lock(), Err(TryLockError::WouldBlock)), "held while the first holds it");
        drop(first);
        assert!(other.try_lock().is_ok());
    }
}
