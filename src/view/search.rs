//! The decision records of a repository ranked against a query: what `debate search
//! --json` prints, and what an agent reads before it proposes a change.

use serde::Serialize;

/// The records of one repository, the most relevant to the query first.
#[derive(Debug, Clone, Serialize)]
pub struct SearchView {
    pub query: String,
    pub repository: String,
    /// How many records the repository holds, of which `records` are the first.
    pub searched: usize,
    pub records: Vec<FoundView>,
}

/// One record: where it is, what it decided, and whether it still stands.
#[derive(Debug, Clone, Serialize)]
pub struct FoundView {
    /// Relative to the repository root.
    pub path: String,
    /// The debate that wrote it (`DEB-…`), for a record of debate's own.
    pub id: Option<String>,
    pub title: String,
    /// As the record states it: `proposed`, `accepted`, `superseded by …`, ….
    pub status: String,
    pub date: Option<String>,
    /// The decision in the record's own words, on one line.
    pub decision: String,
    /// The record that supersedes it, when its status names one.
    pub superseded_by: Option<String>,
    /// Okapi BM25 over its title, question, options, rationale, consequences and
    /// dissent (higher is closer); 0: it shares no word with the query and is listed as
    /// a standing (accepted) decision.
    pub relevance: f64,
    /// The words of the record that matched the query's, lowercase.
    pub matched: Vec<String>,
}
