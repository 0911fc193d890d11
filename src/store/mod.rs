//! SQLite state (docs/guide.md, "State, interruptions, resume"). The engine talks to the
//! store through named operations; each one is a single transaction, so a debate
//! killed at any instant leaves either the whole result of a step or none of it.

mod columns;
mod evaluations;
mod import;
mod lease;
mod ledger;
mod read;
mod search;
mod usage;
mod write;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

pub use lease::{HEARTBEAT, Lease, Owner};
pub use ledger::Spent;
pub use search::{Hit, Indexed, Parts};
pub use write::{LastRound, NewDebate, Opening, Server, Settled};

/// Numbered migrations; `PRAGMA user_version` says how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_dropped_seats.sql"),
    include_str!("migrations/0003_role_kinds.sql"),
    include_str!("migrations/0004_leases.sql"),
    include_str!("migrations/0005_cached_tokens.sql"),
    include_str!("migrations/0006_lease_start.sql"),
    include_str!("migrations/0007_truncated.sql"),
    include_str!("migrations/0008_stances.sql"),
    include_str!("migrations/0009_revisions.sql"),
    include_str!("migrations/0010_failed_contributions.sql"),
    include_str!("migrations/0011_structured_formats.sql"),
    include_str!("migrations/0012_rosters_and_discards.sql"),
    include_str!("migrations/0013_calls_by_model.sql"),
    include_str!("migrations/0014_imported_debates.sql"),
    include_str!("migrations/0015_servers_at_once.sql"),
    include_str!("migrations/0016_looped.sql"),
    include_str!("migrations/0017_clarifying_questions.sql"),
    include_str!("migrations/0018_evaluations.sql"),
    include_str!("migrations/0019_bounded_usage.sql"),
    include_str!("migrations/0020_retries.sql"),
    include_str!("migrations/0021_ledger.sql"),
    include_str!("migrations/0022_requests.sql"),
    include_str!("migrations/0023_search.sql"),
    include_str!("migrations/0024_early_arguments.sql"),
];

/// Why the state database could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open the state database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{} was written by a newer version of debate (schema {found}, this one knows {known})", path.display())]
    Newer { path: PathBuf, found: usize, known: usize },
    #[error("cannot find a home directory for the state database")]
    NoHome,
    #[error("state database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("state database: unreadable {what}: {source}")]
    Json {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error("no debate with id {0:?}")]
    UnknownId(String),
    #[error("{0:?} is too short to name a debate")]
    TooShort(String),
    #[error("{input:?} matches several debates: {}", ids.join(", "))]
    Ambiguous { input: String, ids: Vec<String> },
    #[error("{id} is running in process {pid} on {host} (last seen {silent} s ago)")]
    Running { id: String, pid: u32, host: String, silent: i64 },
    #[error("{0} was taken from this process: its lease is gone")]
    LeaseLost(String),
    #[error("{0}: another process has already saved this step")]
    SavedElsewhere(String),
}

impl StoreError {
    pub fn exit_code(&self) -> u8 {
        match self {
            StoreError::UnknownId(_) | StoreError::TooShort(_) | StoreError::Ambiguous { .. } => 2,
            StoreError::CreateDir { .. } | StoreError::Open { .. } | StoreError::Newer { .. } | StoreError::NoHome => 4,
            // EX_TEMPFAIL: try again once the other process is done.
            StoreError::Running { .. } | StoreError::LeaseLost(_) | StoreError::SavedElsewhere(_) => 75,
            _ => 1,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            StoreError::CreateDir { .. } | StoreError::Open { .. } | StoreError::NoHome => {
                "pass a writable --db path or set DEBATE_HOME"
            }
            StoreError::Newer { .. } => "upgrade debate, or use another --db",
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(failure, _))
                if failure.code == rusqlite::ErrorCode::DiskFull =>
            {
                "the disk is full: free some space, then `debate resume ID` goes on where the debate stopped (every finished step is kept)"
            }
            StoreError::Sqlite(_) | StoreError::Json { .. } => {
                "check that the --db path (or $DEBATE_HOME) is writable and not used by an older debate version"
            }
            StoreError::UnknownId(_) => "`debate list --all` shows every debate",
            StoreError::Ambiguous { .. } => "give more characters of the id",
            StoreError::TooShort(_) => "give at least two characters of the id after DEB- (`debate list` shows them)",
            StoreError::LeaseLost(_) | StoreError::SavedElsewhere(_) => {
                "another process drives this debate now; `debate show ID` shows how far it is"
            }
            StoreError::Running { .. } => {
                "let it finish or pause it there; if that process is gone, its lease is taken over at once"
            }
        }
        .to_string())
    }
}

/// How long a statement waits for another process's lock before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Where the database lives: `--db`, else `$DEBATE_HOME`, else the user data directory.
pub fn default_path() -> Result<PathBuf> {
    crate::settings::data_dir().map(|dir| dir.join("debates.sqlite3")).ok_or(StoreError::NoHome)
}

pub struct Store {
    conn: Connection,
    /// The file it is (`:memory:` for a private one).
    path: PathBuf,
    /// The leases this store took, by debate, so each step can check it still holds it.
    held: std::cell::RefCell<Vec<(String, Owner)>>,
}

impl Store {
    /// Open (creating if needed) the database and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir { dir: dir.to_path_buf(), source })?;
        }
        let conn = Connection::open(path).map_err(|source| StoreError::Open { path: path.to_path_buf(), source })?;
        Self::prepare(conn, path)
    }

    /// Open an existing database; `None` when there is none yet (nothing is created).
    pub fn open_existing(path: &Path) -> Result<Option<Store>> {
        if !path.exists() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|source| StoreError::Open { path: path.to_path_buf(), source })?;
        Self::prepare(conn, path).map(Some)
    }

    /// The file it is, for a second connection (`:memory:` for a private one).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A private database in memory, for tests of the engine and the store.
    pub fn open_in_memory() -> Result<Store> {
        Self::prepare(Connection::open_in_memory()?, Path::new(":memory:"))
    }

    fn prepare(mut conn: Connection, path: &Path) -> Result<Store> {
        let opening = |source| StoreError::Open { path: path.to_path_buf(), source };
        conn.busy_timeout(BUSY_TIMEOUT).map_err(opening)?;
        // WAL with synchronous=NORMAL: each step's commit survives any death of the
        // process (SIGKILL included) and the file never corrupts; only an OS crash can
        // drop the last commits, which --resume then redoes. fsync per commit would put
        // a disk flush on the critical path of every step.
        use_wal(&conn)
            .and_then(|_| conn.pragma_update(None, "synchronous", "NORMAL"))
            .and_then(|_| conn.pragma_update(None, "foreign_keys", true))
            .map_err(opening)?;
        let version = |conn: &Connection| conn.pragma_query_value(None, "user_version", |row| row.get::<_, usize>(0));
        if version(&conn)? < MIGRATIONS.len() {
            // Another process may be migrating the same file: take the write lock first,
            // then look again at what is left to do.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            for (index, migration) in MIGRATIONS.iter().enumerate().skip(version(&tx)?) {
                tx.execute_batch(migration)?;
                tx.pragma_update(None, "user_version", index + 1)?;
            }
            tx.commit()?;
        }
        let found = version(&conn)?;
        if found > MIGRATIONS.len() {
            return Err(StoreError::Newer { path: path.to_path_buf(), found, known: MIGRATIONS.len() });
        }
        Ok(Store { conn, path: path.to_path_buf(), held: Default::default() })
    }
}

impl Store {
    /// A transaction that writes: it takes the write lock when it begins, so a second
    /// process waits for it (up to the busy timeout). A deferred one that reads first
    /// fails at once with "database is locked" when another wrote in between.
    fn writing(&self) -> rusqlite::Result<rusqlite::Transaction<'_>> {
        rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
    }
}

/// Switch the database to WAL. That takes an exclusive lock, and SQLite reports BUSY at
/// once, without its busy handler, while another process opens the same new file: wait
/// and try again, up to the busy timeout. Once one process has set it, it stays set.
fn use_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if matches!(failure.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            result => return result,
        }
    }
}

/// JSON for a column, every string in it through the secret gate.
fn to_json<T: serde::Serialize>(value: &T) -> String {
    crate::text::secrets::gated_json(value, false).expect("state types serialise")
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &'static str) -> Result<T> {
    serde_json::from_str(text).map_err(|source| StoreError::Json { what, source })
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests;
