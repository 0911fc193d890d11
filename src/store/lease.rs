//! Leases: which process drives a debate. Two processes resuming the same debate would
//! run the same step and pay for its calls twice; the second one is told who drives it
//! instead.
//!
//! A lease held by a live process on this host is never taken over, however long it has
//! been silent (a process stopped with Ctrl-Z, a signing prompt). On another host
//! liveness cannot be seen, so a lease silent for `EXPIRY` is taken over there. A
//! process that lost its lease learns it at its next step (`check_lease`) and stops.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{OptionalExtension, params};

use super::{Result, Store, StoreError};

/// How often a driving process says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// How long a silent owner on another host keeps its lease.
pub const EXPIRY: Duration = Duration::from_secs(30);

/// A process, as a lease names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    pub host: String,
    /// When it started (clock ticks since boot), so a reused pid is not taken for it.
    pub started: Option<u64>,
}

/// What this host can tell about a lease's owner.
#[derive(Debug, PartialEq, Eq)]
enum Liveness {
    Alive,
    Dead,
    /// On another host, or where /proc does not tell.
    Unknown,
}

impl Owner {
    pub fn this_process() -> Owner {
        let pid = std::process::id();
        Owner { pid, host: hostname(), started: started(pid) }
    }

    fn liveness(&self) -> Liveness {
        if self.host != hostname() || started(std::process::id()).is_none() {
            return Liveness::Unknown;
        }
        match started(self.pid) {
            Some(at) if self.started.is_none_or(|owner| owner == at) => Liveness::Alive,
            _ => Liveness::Dead,
        }
    }
}

fn hostname() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// When process `pid` started, from /proc (Linux); `None` when it does not exist or
/// /proc does not tell.
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses; the fields after it
    // start after the last `)`. `starttime` is field 22.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// The lease on one debate, held until it is dropped.
pub struct Lease<'a> {
    store: &'a Store,
    id: String,
    owner: Owner,
}

impl Lease<'_> {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn owner(&self) -> &Owner {
        &self.owner
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        // Only the owner's own lease goes; if that fails, the lease expires by itself.
        let _ = self.store.conn.execute(
            "DELETE FROM leases WHERE debate_id = ?1 AND pid = ?2 AND host = ?3",
            params![self.id, self.owner.pid, self.owner.host],
        );
        self.store.held.borrow_mut().retain(|(id, _)| *id != self.id);
    }
}

impl Store {
    /// Take the lease on `id` for this process, unless another live process holds it.
    pub fn acquire(&self, id: &str) -> Result<Lease<'_>> {
        let owner = Owner::this_process();
        let tx = self.writing()?;
        if let Some((holder, heartbeat)) = holder(&tx, id)? {
            let silent = now() - heartbeat;
            let taken = match holder.liveness() {
                _ if holder == owner => false,
                Liveness::Alive => true,
                Liveness::Dead => false,
                Liveness::Unknown => silent <= EXPIRY.as_secs() as i64,
            };
            if taken {
                return Err(StoreError::Running { id: id.to_string(), pid: holder.pid, host: holder.host, silent });
            }
        }
        tx.execute(
            "INSERT INTO leases (debate_id, pid, host, started, heartbeat) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (debate_id) DO UPDATE SET pid = ?2, host = ?3, started = ?4, heartbeat = ?5",
            params![id, owner.pid, owner.host, owner.started, now()],
        )?;
        tx.commit()?;
        self.held.borrow_mut().push((id.to_string(), owner.clone()));
        Ok(Lease { store: self, id: id.to_string(), owner })
    }

    /// The owner is still alive; `false` when the lease is no longer its own.
    pub fn heartbeat(&self, id: &str, owner: &Owner) -> Result<bool> {
        let updated = self.conn.execute(
            "UPDATE leases SET heartbeat = ?4 WHERE debate_id = ?1 AND pid = ?2 AND host = ?3",
            params![id, owner.pid, owner.host, now()],
        )?;
        Ok(updated == 1)
    }

    /// Before each step: the lease this store took on `id` is still this process's.
    /// A store that took none (tests of the engine) checks nothing.
    pub fn check_lease(&self, id: &str) -> Result<()> {
        let Some(owner) = self.held.borrow().iter().find(|(held, _)| held == id).map(|(_, o)| o.clone()) else {
            return Ok(());
        };
        match holder(&self.conn, id)? {
            Some((holder, _)) if holder == owner => Ok(()),
            Some((holder, heartbeat)) => Err(StoreError::Running {
                id: id.to_string(),
                pid: holder.pid,
                host: holder.host,
                silent: now() - heartbeat,
            }),
            None => Err(StoreError::LeaseLost(id.to_string())),
        }
    }
}

impl Store {
    /// Who drives `id` now, if anyone, and how many seconds ago it was last seen.
    pub fn driver(&self, id: &str) -> Result<Option<(Owner, i64)>> {
        Ok(holder(&self.conn, id)?.map(|(owner, heartbeat)| (owner, now() - heartbeat)))
    }
}

/// Who holds the lease on `id`, and when it was last seen.
fn holder(conn: &rusqlite::Connection, id: &str) -> Result<Option<(Owner, i64)>> {
    Ok(conn
        .query_row("SELECT pid, host, started, heartbeat FROM leases WHERE debate_id = ?1", [id], |row| {
            Ok((Owner { pid: row.get(0)?, host: row.get(1)?, started: row.get(2)? }, row.get::<_, i64>(3)?))
        })
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;
    use crate::store::NewDebate;

    fn store_with_debate() -> (Store, String) {
        let store = Store::open_in_memory().unwrap();
        let s = fixture::state();
        store.create_debate(&NewDebate::of(&s)).unwrap();
        (store, s.id)
    }

    /// Put `owner` in the lease, last seen `silent` seconds ago.
    fn held_by(store: &Store, id: &str, owner: &Owner, silent: i64) {
        store
            .conn
            .execute(
                "INSERT OR REPLACE INTO leases (debate_id, pid, host, started, heartbeat) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, owner.pid, owner.host, owner.started, now() - silent],
            )
            .unwrap();
    }

    #[test]
    fn a_live_process_here_keeps_its_lease_however_long_it_is_silent() {
        let (store, id) = store_with_debate();
        // PID 1 lives as long as the machine; seen last an hour ago.
        let init = Owner { pid: 1, host: hostname(), started: started(1) };
        held_by(&store, &id, &init, 3600);
        let Err(StoreError::Running { pid: 1, .. }) = store.acquire(&id) else { panic!("the lease is held") };
    }

    #[test]
    fn a_dead_or_reborn_process_here_loses_its_lease_at_once() {
        let (store, id) = store_with_debate();
        let dead = Owner { pid: u32::MAX - 1, host: hostname(), started: Some(1) };
        held_by(&store, &id, &dead, 0);
        drop(store.acquire(&id).unwrap());
        // Same pid as a live process, but another start time: the pid was reused.
        let reborn = Owner { pid: 1, host: hostname(), started: started(1).map(|t| t + 1) };
        held_by(&store, &id, &reborn, 0);
        drop(store.acquire(&id).unwrap());
    }

    #[test]
    fn a_silent_owner_elsewhere_loses_its_lease_after_the_expiry() {
        let (store, id) = store_with_debate();
        let other = Owner { pid: 1, host: "elsewhere".into(), started: None };
        held_by(&store, &id, &other, 0);
        assert!(store.acquire(&id).is_err());
        held_by(&store, &id, &other, EXPIRY.as_secs() as i64 + 1);
        let lease = store.acquire(&id).unwrap();
        assert!(store.heartbeat(&id, lease.owner()).unwrap());
        assert!(!store.heartbeat(&id, &other).unwrap(), "the old owner learns it lost the lease");
    }

    #[test]
    fn a_lease_taken_over_is_noticed_at_the_next_step_and_a_dropped_lease_is_given_up() {
        let (store, id) = store_with_debate();
        let lease = store.acquire(&id).unwrap();
        store.check_lease(&id).unwrap();
        let other = Owner { pid: 1, host: "elsewhere".into(), started: None };
        held_by(&store, &id, &other, 0);
        assert!(matches!(store.check_lease(&id), Err(StoreError::Running { pid: 1, .. })));
        held_by(&store, &id, lease.owner(), 0);
        drop(lease);
        let left: i64 = store.conn.query_row("SELECT COUNT(*) FROM leases", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0);
        store.check_lease(&id).unwrap();
    }
}
