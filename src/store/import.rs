//! A completed debate read back from its committed record (`record::read::carried`), stored
//! whole in one transaction: a clone that never ran it can then show and review it as
//! its own. The tokens of the calls this database never saw are kept by model, so its
//! totals and cost read as the record's.

use rusqlite::params;

use super::write::{once, write_contribution, write_panel};
use super::{Result, Store, now, to_json};
use crate::model::{Contribution, DebateState, Status, Usage};
use crate::text::secrets::gate;

impl Store {
    /// Store `state`, read back from the record at `record_path` (committed in `commit`);
    /// `replacing` the debate this database has under its id, which a review elsewhere
    /// revised since.
    pub fn import(&self, state: &DebateState, record_path: &str, commit: Option<&str>, replacing: bool) -> Result<()> {
        let id = state.id.as_str();
        let tx = self.writing()?;
        if replacing {
            tx.execute("DELETE FROM debates WHERE id = ?1", [id])?;
        }
        let outcome = state.outcome.as_ref();
        once(
            id,
            tx.execute(
                "INSERT INTO debates (id, question, title, repo_root, status, snapshot, analysis, end_reason, outcome,
                                      confidence, record_path, commit_id, created_at, updated_at, revisions, imported_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?11)",
                params![
                    id,
                    gate(&state.question),
                    gate(&state.title),
                    gate(&state.repo_root),
                    Status::Complete,
                    to_json(&state.snapshot),
                    to_json(&state.analysis),
                    state.end_reason,
                    outcome.map(to_json),
                    outcome.map(|o| o.confidence),
                    gate(record_path),
                    commit,
                    state.created_at,
                    now(),
                    to_json(&state.revisions),
                ],
            ),
        )?;
        write_panel(&tx, id, &state.panel)?;
        for (seat, dropped) in state.panel.iter().enumerate().filter_map(|(i, s)| Some((i, s.dropped.as_ref()?))) {
            tx.execute(
                "UPDATE panel SET dropped = ?3 WHERE debate_id = ?1 AND seat = ?2",
                params![id, seat, gate(dropped)],
            )?;
        }
        if let Some(c) = &state.clarification {
            tx.execute(
                "INSERT INTO clarifications (debate_id, question, answer, settled, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, gate(&c.question), c.answer.as_deref().map(gate), c.settled, state.created_at],
            )?;
        }
        for round in &state.rounds {
            let measures = round.measures.as_ref();
            tx.execute(
                "INSERT INTO rounds (debate_id, number, framing, guidance, seats, repetition, novelty, evaluation)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    id,
                    round.number,
                    gate(&round.framing),
                    round.guidance.as_deref().map(gate),
                    to_json(&round.seats),
                    measures.map(|m| to_json(&m.repetition)),
                    measures.map(|m| m.novelty),
                    round.evaluation.as_ref().map(to_json),
                ],
            )?;
            for c in round.contributions() {
                write_contribution(&tx, id, round.number, state.name(c.seat), c)?;
            }
        }
        for (round, c) in &state.discarded {
            insert_discarded(&tx, id, *round, state.name(c.seat), c)?;
        }
        for (model, usage) in carried(state) {
            let usage = usage.bounded();
            tx.execute(
                "INSERT INTO carried_usage (debate_id, model, prompt_tokens, cached_tokens, completion_tokens, latency_ms,
                                            retries)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    gate(&model),
                    usage.prompt_tokens,
                    usage.cached_tokens,
                    usage.completion_tokens,
                    usage.latency_ms,
                    usage.retries
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

/// An argument written for a round the debate ended before: counted, never argued.
fn insert_discarded(
    tx: &rusqlite::Connection,
    id: &str,
    round: u32,
    perspective: &str,
    c: &Contribution,
) -> Result<()> {
    let u = c.usage.bounded();
    tx.execute(
        "INSERT INTO discarded (debate_id, round, seat, kind, perspective, text, model, prompt_tokens, cached_tokens,
                                completion_tokens, latency_ms, created_at, retries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id,
            round,
            c.seat,
            c.kind,
            gate(perspective),
            gate(&c.text),
            gate(&c.model),
            u.prompt_tokens,
            u.cached_tokens,
            u.completion_tokens,
            u.latency_ms,
            now(),
            u.retries
        ],
    )?;
    Ok(())
}

/// Each model's tokens that no contribution or discarded argument accounts for: the
/// moderator's calls, which the record keeps only as totals.
fn carried(state: &DebateState) -> Vec<(String, Usage)> {
    let argued = state.rounds.iter().flat_map(|r| r.contributions()).chain(state.discarded.iter().map(|(_, c)| c));
    let argued: Vec<&Contribution> = argued.collect();
    state
        .usage_by_model
        .iter()
        .map(|(model, total)| {
            let mut left = *total;
            for c in argued.iter().filter(|c| &c.model == model) {
                left.prompt_tokens = left.prompt_tokens.saturating_sub(c.usage.prompt_tokens);
                left.cached_tokens = left.cached_tokens.saturating_sub(c.usage.cached_tokens);
                left.completion_tokens = left.completion_tokens.saturating_sub(c.usage.completion_tokens);
                left.latency_ms = left.latency_ms.saturating_sub(c.usage.latency_ms);
                left.retries = left.retries.saturating_sub(c.usage.retries);
            }
            (model.clone(), left)
        })
        .filter(|(_, left)| *left != Usage::default())
        .collect()
}
