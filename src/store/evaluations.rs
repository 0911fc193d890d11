//! A debate's record scored (`debate eval`): each evaluation stored whole in one
//! transaction — its checks, its evaluators and every mark — and read back with the
//! debate (`DebateState::scorecards`).

use rusqlite::{Connection, OptionalExtension, params};

use super::columns::UnknownValue;
use super::{Result, Store, from_json, to_json, usage};
use crate::model::{Criterion, DebateState, Evaluator, Mark, Scorecard};
use crate::text::secrets::gate;

impl Store {
    /// Store `card` as the debate's next evaluation, whatever number it carries; the
    /// number it is stored under.
    pub fn save_scorecard(&self, id: &str, card: &Scorecard) -> Result<u32> {
        let tx = self.writing()?;
        let number: u32 =
            tx.query_row("SELECT COALESCE(MAX(number), 0) + 1 FROM evaluations WHERE debate_id = ?1", [id], |row| {
                row.get(0)
            })?;
        insert(&tx, id, &Scorecard { number, ..card.clone() })?;
        tx.commit()?;
        Ok(number)
    }

    /// Evaluation `number` is in the record's provenance now, committed in `commit` (when
    /// it was committed): that commit holds the debate's record as it is from now on.
    pub fn save_written(&self, id: &str, number: u32, commit: Option<&str>) -> Result<()> {
        let tx = self.writing()?;
        tx.execute("UPDATE evaluations SET written = 1 WHERE debate_id = ?1 AND number = ?2", params![id, number])?;
        if let Some(commit) = commit {
            tx.execute("UPDATE debates SET commit_id = ?2 WHERE id = ?1", params![id, commit])?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The evaluations a debate read back from its record carries, that this database
    /// does not have yet (each under its own number).
    pub fn keep_carried_scorecards(&self, state: &DebateState) -> Result<()> {
        let tx = self.writing()?;
        for card in &state.scorecards {
            let known: Option<u32> = tx
                .query_row(
                    "SELECT number FROM evaluations WHERE debate_id = ?1 AND number = ?2",
                    params![state.id, card.number],
                    |row| row.get(0),
                )
                .optional()?;
            if known.is_none() {
                insert(&tx, &state.id, card)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every evaluation of the debate, oldest first.
    pub(super) fn load_scorecards(&self, id: &str) -> Result<Vec<Scorecard>> {
        let mut cards: Vec<Scorecard> = self
            .conn
            .prepare(
                "SELECT number, revision, checks, written, created_at FROM evaluations
                 WHERE debate_id = ?1 ORDER BY number",
            )?
            .query_map([id], |row| {
                Ok((row.get::<_, u32>(0)?, row.get(1)?, row.get::<_, String>(2)?, row.get(3)?, row.get(4)?))
            })?
            .map(|row| {
                let (number, revision, checks, written, created_at) = row?;
                Ok(Scorecard {
                    number,
                    created_at,
                    revision,
                    evaluators: Vec::new(),
                    checks: from_json(&checks, "evaluation checks")?,
                    written,
                })
            })
            .collect::<Result<_>>()?;
        for card in &mut cards {
            card.evaluators = self.load_evaluators(id, card.number)?;
        }
        Ok(cards)
    }

    fn load_evaluators(&self, id: &str, number: u32) -> Result<Vec<Evaluator>> {
        let mut evaluators: Vec<(u32, Evaluator)> = self
            .conn
            .prepare(&format!(
                "SELECT position, provider, model, reasoned, {}
                 FROM evaluators WHERE debate_id = ?1 AND number = ?2 ORDER BY position",
                usage::select(4, str::to_string)
            ))?
            .query_map(params![id, number], |row| {
                let evaluator = Evaluator {
                    provider: row.get(1)?,
                    model: row.get(2)?,
                    reasoned: row.get(3)?,
                    marks: Vec::new(),
                    usage: usage::read(row, 4)?,
                };
                Ok((row.get(0)?, evaluator))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let mut marks = self.conn.prepare(
            // The rubric's order, whatever order the names sort in.
            "SELECT criterion, score, reason FROM scores WHERE debate_id = ?1 AND number = ?2 AND position = ?3
             ORDER BY rowid",
        )?;
        for (position, evaluator) in &mut evaluators {
            evaluator.marks = marks
                .query_map(params![id, number, *position], |row| {
                    Ok(Mark { criterion: criterion(row.get(0)?)?, score: row.get(1)?, reason: row.get(2)? })
                })?
                .collect::<rusqlite::Result<_>>()?;
        }
        Ok(evaluators.into_iter().map(|(_, evaluator)| evaluator).collect())
    }
}

/// A stored criterion's name, read strictly.
fn criterion(name: String) -> rusqlite::Result<Criterion> {
    name.parse().map_err(|_| {
        let unknown = UnknownValue { column: "scores.criterion", value: name };
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(unknown))
    })
}

fn insert(conn: &Connection, id: &str, card: &Scorecard) -> Result<()> {
    conn.execute(
        "INSERT INTO evaluations (debate_id, number, revision, checks, written, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, card.number, card.revision, to_json(&card.checks), card.written, card.created_at],
    )?;
    for (position, evaluator) in card.evaluators.iter().enumerate() {
        let usage = evaluator.usage.bounded();
        conn.execute(
            "INSERT INTO evaluators (debate_id, number, position, provider, model, reasoned, prompt_tokens,
                                     cached_tokens, completion_tokens, latency_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                card.number,
                position,
                gate(&evaluator.provider),
                gate(&evaluator.model),
                evaluator.reasoned,
                usage.prompt_tokens,
                usage.cached_tokens,
                usage.completion_tokens,
                usage.latency_ms,
            ],
        )?;
        for mark in &evaluator.marks {
            conn.execute(
                "INSERT INTO scores (debate_id, number, position, criterion, score, reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, card.number, position, mark.criterion.as_str(), mark.score, gate(&mark.reason)],
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fixture;
    use crate::store::NewDebate;

    fn stored(store: &Store) -> DebateState {
        let state = fixture::complete(1);
        store.create_debate(&NewDebate::of(&state)).unwrap();
        state
    }

    #[test]
    fn evaluations_read_back_whole_numbered_in_turn() {
        let store = Store::open_in_memory().unwrap();
        let state = stored(&store);
        let mut second = fixture::scorecard(false);
        second.evaluators[1].marks.clear();
        assert_eq!(store.save_scorecard(&state.id, &fixture::scorecard(false)).unwrap(), 1);
        assert_eq!(store.save_scorecard(&state.id, &second).unwrap(), 2, "the number the card carries is not used");
        let cards = store.load(&state.id).unwrap().scorecards;
        assert_eq!(cards, [fixture::scorecard(false), Scorecard { number: 2, ..second }]);
    }

    #[test]
    fn written_scores_move_the_record_to_their_commit() {
        let store = Store::open_in_memory().unwrap();
        let state = stored(&store);
        let number = store.save_scorecard(&state.id, &fixture::scorecard(false)).unwrap();
        store.save_written(&state.id, number, Some("feedc0de")).unwrap();
        let loaded = store.load(&state.id).unwrap();
        assert!(loaded.scorecards[0].written);
        assert_eq!(loaded.commit_id.as_deref(), Some("feedc0de"));
    }

    #[test]
    fn carried_scores_are_kept_once_and_go_with_their_debate() {
        let store = Store::open_in_memory().unwrap();
        let mut state = stored(&store);
        state.scorecards = vec![fixture::scorecard(true)];
        store.keep_carried_scorecards(&state).unwrap();
        store.keep_carried_scorecards(&state).unwrap();
        assert_eq!(store.load(&state.id).unwrap().scorecards, state.scorecards);
        store.delete(&state.id).unwrap();
        let left: u32 = store.conn.query_row("SELECT COUNT(*) FROM scores", [], |row| row.get(0)).unwrap();
        assert_eq!(left, 0);
    }
}
