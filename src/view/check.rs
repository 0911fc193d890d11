//! What `debate check` found: each place the work tree goes against a guard of a
//! decision record, the record and the guard named — the document `--json` prints and
//! MCP's `check_decisions` answers.

use serde::Serialize;

/// The work tree (or what changed since a base) checked against the records' guards.
#[derive(Debug, Clone, Serialize)]
pub struct GuardCheck {
    /// `--base`: only what changed since this revision's merge base was checked.
    pub base: Option<String>,
    /// Records read, and guards checked (accepted and proposed records').
    pub records: usize,
    pub guards: usize,
    /// Against accepted records: each fails the check.
    pub violations: Vec<Violation>,
    /// Against proposed records: warned, not enforced until the record is accepted.
    pub warnings: Vec<Violation>,
    /// Guards that could not be read, and files that could not be.
    pub notes: Vec<String>,
    /// 1 with a violation, else 0.
    pub exit_code: u8,
}

/// One place the work tree goes against one guard.
#[derive(Debug, Clone, Serialize)]
pub struct Violation {
    pub record: GuardingRecord,
    /// The guard as the record writes it (`forbid dependency redis`).
    pub guard: String,
    /// What was found (a forbidden dependency or file), or what is missing.
    pub found: Found,
}

/// A record that guards: where it is, its number and title, and its status.
#[derive(Debug, Clone, Serialize)]
pub struct GuardingRecord {
    pub path: String,
    /// The number its file name starts with (`0003-…`), where it has one.
    pub number: Option<u32>,
    pub title: String,
    pub status: String,
}

/// What goes against a guard.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Found {
    /// A forbidden dependency, where a manifest declares it.
    Dependency { name: String, brings: Option<String>, manifest: String, line: Option<usize> },
    /// A forbidden file.
    Path { path: String },
    /// A required dependency or file that nothing in the work tree is.
    Missing { target: String },
}
