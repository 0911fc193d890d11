//! What this machine paid for, and when: every request sent to a model server — each
//! attempt of a call, each probe, each answer cut short — written before it is sent with
//! its worst case, and settled with what it took (`debate usage`, a debate's spending
//! cap, and the month a `budget.per_month_usd` allows). The month's room is taken under
//! the database's write lock, so two runs at once cannot both spend it.

use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{Result, Store, from_json, now, usage};
use crate::model::{PriceList, Reckoning, Sending, Snapshot, Usage};

/// Requests to one model, of one debate, through one provider, since a moment.
#[derive(Debug, Clone)]
pub struct Spent {
    /// `None`: no debate's (`debate doctor`'s checks).
    pub debate_id: Option<String>,
    pub repository: String,
    /// The provider the request went through; `None` for calls stored before the ledger
    /// named it (the debate's settings say which).
    pub provider: Option<String>,
    pub model: String,
    pub requests: u64,
    pub usage: Usage,
    /// What they cost; `None` when the model has no price.
    pub usd: Option<f64>,
    /// Requests whose figures the ledger could not take as the server gave them: still
    /// held (their process died: counted at their worst case), stopped early (counted at
    /// their limit), or reported past what was asked for (bounded).
    pub not_as_reported: u64,
    /// The debate's rules, providers and prices, when it is a debate's.
    pub snapshot: Option<Snapshot>,
}

impl Store {
    /// Write `sending` down, holding its worst case, unless it could take the month's
    /// requests since `month.0` past `month.1` dollars: then `Err` with what the month
    /// has spent, and nothing written. Under the write lock: another run's hold waits.
    pub fn hold_request(&mut self, sending: &Sending, month: Option<(&str, f64)>) -> Result<Result<i64, f64>> {
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some((since, cap)) = month {
            let spent: f64 = spent_in(&tx, since, None)?.iter().filter_map(|s| s.usd).sum();
            if spent + sending.worst_usd.unwrap_or(0.0) > cap {
                return Ok(Err(spent));
            }
        }
        tx.execute(
            "INSERT INTO requests (debate_id, provider, model, purpose, prompt_tokens, cached_tokens,
                                   completion_tokens, usd, counted, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, 'held', ?8)",
            params![
                sending.debate_id,
                sending.provider,
                sending.model,
                sending.purpose,
                sending.worst.prompt_tokens,
                sending.worst.completion_tokens,
                sending.worst_usd,
                now()
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(Ok(id))
    }

    /// What the held request `id` took.
    pub fn settle_request(&self, id: i64, took: &Usage, usd: Option<f64>, counted: Reckoning) -> Result<()> {
        self.conn.execute(
            "UPDATE requests SET prompt_tokens = ?2, cached_tokens = ?3, completion_tokens = ?4, usd = ?5, counted = ?6
             WHERE id = ?1",
            params![id, took.prompt_tokens, took.cached_tokens, took.completion_tokens, usd, counted.as_ref()],
        )?;
        Ok(())
    }

    /// Every request since `since` (an RFC 3339 time), by debate, provider and model.
    pub fn spent_since(&self, since: &str) -> Result<Vec<Spent>> {
        spent_in(&self.conn, since, None)
    }

    /// What debate `id`'s requests from this machine took, by model.
    pub fn spent_by_debate(&self, id: &str) -> Result<Vec<Spent>> {
        spent_in(&self.conn, "", Some(id))
    }

    /// Whether any request of debate `id` is on the ledger (a debate from before it, or
    /// imported, may have none).
    pub fn has_requests(&self, id: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row("SELECT 1 FROM requests WHERE debate_id = ?1 LIMIT 1", params![id], |_| Ok(()))
            .optional()?
            .is_some())
    }
}

/// The requests since `since`, grouped, each group priced: by what was written when it
/// was settled, else (a call from before the ledger) by its debate's prices.
fn spent_in(conn: &rusqlite::Connection, since: &str, debate: Option<&str>) -> Result<Vec<Spent>> {
    let tokens = usage::select(3, |column| format!("SUM(r.{column})"));
    let mut stmt = conn.prepare(&format!(
        "SELECT r.debate_id, d.repo_root, d.snapshot, NULLIF(r.provider, ''), r.model, COUNT(*), SUM(r.usd),
                r.usd IS NULL, SUM(r.counted IN ('held', 'limit', 'bounded')), {tokens}
         FROM requests r LEFT JOIN debates d ON d.id = r.debate_id
         WHERE r.created_at >= ?1 AND (?2 IS NULL OR r.debate_id = ?2)
         GROUP BY r.debate_id, r.provider, r.model, r.usd IS NULL
         ORDER BY r.debate_id, r.provider, r.model"
    ))?;
    let rows = stmt.query_map(params![since, debate], |row| {
        let usage = usage::read(row, 9)?;
        let snapshot: Option<String> = row.get(2)?;
        let spent = Spent {
            debate_id: row.get(0)?,
            repository: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
            provider: row.get(3)?,
            model: row.get(4)?,
            requests: row.get(5)?,
            usage,
            usd: row.get(6)?,
            not_as_reported: row.get(8)?,
            snapshot: None,
        };
        Ok((spent, snapshot, row.get::<_, bool>(7)?))
    })?;
    let mut spent = Vec::new();
    for row in rows {
        let (mut group, snapshot, unpriced) = row?;
        group.snapshot = snapshot.map(|text| from_json::<Snapshot>(&text, "snapshot")).transpose()?;
        if unpriced {
            let prices = group.snapshot.as_ref().map(PriceList::of);
            group.usd = prices.and_then(|prices| prices.price(&group.model)).map(|price| price.of(&group.usage));
        }
        spent.push(group);
    }
    Ok(spent)
}
