//! Leases: which process drives a debate. Two processes resuming the same debate would
//! run the same step and pay for its calls twice; the second one is told who drives it
//! instead. A lease is taken over only when its owner is known to be dead (same host,
//! no such process) or has not been seen for `EXPIRY`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::{Result, Store, StoreError};

/// How often a driving process says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// How long a silent owner keeps its lease.
pub const EXPIRY: Duration = Duration::from_secs(30);

/// A process, as a lease names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    pub host: String,
}

impl Owner {
    pub fn this_process() -> Owner {
        Owner { pid: std::process::id(), host: gethostname::gethostname().to_string_lossy().into_owned() }
    }

    /// Whether the process is known to be gone: on this host, where /proc tells.
    fn gone(&self) -> bool {
        let here = Owner::this_process();
        let proc = std::path::Path::new("/proc");
        self.host == here.host && proc.is_dir() && !proc.join(self.pid.to_string()).exists()
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Take the lease on `id` for `owner`, unless another live process holds it.
    pub fn acquire(&self, id: &str, owner: &Owner) -> Result<()> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let held = tx
            .query_row("SELECT pid, host, heartbeat FROM leases WHERE debate_id = ?1", [id], |row| {
                Ok((Owner { pid: row.get(0)?, host: row.get(1)? }, row.get::<_, i64>(2)?))
            })
            .optional()?;
        if let Some((holder, heartbeat)) = held {
            let silent = now() - heartbeat;
            if holder != *owner && !holder.gone() && silent <= EXPIRY.as_secs() as i64 {
                return Err(StoreError::Running { id: id.to_string(), pid: holder.pid, host: holder.host, silent });
            }
        }
        tx.execute(
            "INSERT INTO leases (debate_id, pid, host, heartbeat) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (debate_id) DO UPDATE SET pid = ?2, host = ?3, heartbeat = ?4",
            params![id, owner.pid, owner.host, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The owner is still alive.
    pub fn heartbeat(&self, id: &str, owner: &Owner) -> Result<()> {
        self.conn.execute(
            "UPDATE leases SET heartbeat = ?4 WHERE debate_id = ?1 AND pid = ?2 AND host = ?3",
            params![id, owner.pid, owner.host, now()],
        )?;
        Ok(())
    }

    /// Give the lease up (only the owner's own).
    pub fn release(&self, id: &str, owner: &Owner) -> Result<()> {
        self.conn.execute(
            "DELETE FROM leases WHERE debate_id = ?1 AND pid = ?2 AND host = ?3",
            params![id, owner.pid, owner.host],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;
    use crate::store::NewDebate;

    fn store_with_debate() -> (Store, String) {
        let store = Store::open_in_memory().unwrap();
        let s = fixture::state();
        store
            .create_debate(&NewDebate {
                id: &s.id,
                question: &s.question,
                title: &s.title,
                repo_root: &s.repo_root,
                snapshot: &s.snapshot,
                analysis: &s.analysis,
                panel: &s.panel,
                clarification: None,
            })
            .unwrap();
        (store, s.id)
    }

    #[test]
    fn a_live_owner_keeps_its_lease_and_a_dead_one_loses_it() {
        let (store, id) = store_with_debate();
        let me = Owner::this_process();
        store.acquire(&id, &me).unwrap();
        store.acquire(&id, &me).unwrap();
        // Another live process on another host, seen just now.
        let other = Owner { pid: 1, host: "elsewhere".into() };
        let Err(StoreError::Running { pid, host, .. }) = store.acquire(&id, &other) else {
            panic!("the lease is held")
        };
        assert_eq!((pid, host.as_str()), (me.pid, me.host.as_str()));
        // A process on this host that no longer exists.
        store.release(&id, &me).unwrap();
        let dead = Owner { pid: u32::MAX - 1, host: me.host.clone() };
        store.acquire(&id, &dead).unwrap();
        store.acquire(&id, &me).unwrap();
    }

    #[test]
    fn a_silent_owner_loses_its_lease_after_the_expiry() {
        let (store, id) = store_with_debate();
        let other = Owner { pid: 1, host: "elsewhere".into() };
        store.acquire(&id, &other).unwrap();
        let me = Owner::this_process();
        assert!(store.acquire(&id, &me).is_err());
        let long_ago = now() - EXPIRY.as_secs() as i64 - 1;
        store.conn.execute("UPDATE leases SET heartbeat = ?1", [long_ago]).unwrap();
        store.acquire(&id, &me).unwrap();
        store.heartbeat(&id, &me).unwrap();
        store.release(&id, &other).unwrap();
        assert!(store.acquire(&id, &other).is_err(), "releasing another's lease does nothing");
    }
}
