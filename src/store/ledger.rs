//! What this machine paid for, and when: every call of every debate, and of its
//! evaluations, since a moment, by debate and model (`debate usage`, and the month a
//! `budget.per_month_usd` allows).

use rusqlite::params;

use super::{Result, Store, from_json};
use crate::model::{Snapshot, Usage};

/// One debate's calls to one model since a moment, with what prices them.
#[derive(Debug, Clone)]
pub struct Spent {
    pub debate_id: String,
    pub repository: String,
    pub model: String,
    pub calls: u64,
    pub usage: Usage,
    /// The debate's rules, providers and prices.
    pub snapshot: Snapshot,
}

impl Store {
    /// Every call made since `since` (an RFC 3339 time), by debate and model.
    pub fn spent_since(&self, since: &str) -> Result<Vec<Spent>> {
        let mut stmt = self.conn.prepare(
            "SELECT l.debate_id, d.repo_root, d.snapshot, l.model, SUM(l.prompt_tokens), SUM(l.cached_tokens),
                    SUM(l.completion_tokens), SUM(l.retries), COUNT(*)
             FROM ledger l JOIN debates d ON d.id = l.debate_id
             WHERE l.created_at >= ?1
             GROUP BY l.debate_id, l.model ORDER BY l.debate_id, l.model",
        )?;
        let rows = stmt.query_map(params![since], |row| {
            let usage = Usage {
                prompt_tokens: row.get(4)?,
                cached_tokens: row.get(5)?,
                completion_tokens: row.get(6)?,
                retries: row.get(7)?,
                latency_ms: 0,
            };
            let ids = (row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?, row.get(3)?);
            Ok((ids, row.get::<_, u64>(8)?, usage))
        })?;
        let mut spent = Vec::new();
        for row in rows {
            let ((debate_id, repository, snapshot, model), calls, usage) = row?;
            let snapshot = from_json(&snapshot, "snapshot")?;
            spent.push(Spent { debate_id, repository, model, calls, usage, snapshot });
        }
        Ok(spent)
    }
}
