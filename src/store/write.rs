//! Writing a debate: each operation persists one step's result in one transaction.

use std::path::Path;

use rusqlite::{Connection, params};

use super::{Result, Store, StoreError, now, to_json};
use crate::model::{
    Analysis, AtOnce, Completion, Contribution, ContributionKind, EndReason, Evaluation, Outcome, Purpose, Revision,
    RoundMeasures, Seat, Snapshot, Stance, Status, Usage,
};
use crate::text::secrets::gate;

/// A model server, as the formats it takes are remembered.
pub struct Server<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub base_url: &'a str,
}

/// What a round opens with.
pub struct Opening<'a> {
    pub framing: &'a str,
    pub guidance: Option<&'a str>,
    /// The seats that speak in it.
    pub seats: &'a [usize],
}

/// Round 1's early arguments settled as it opens: those kept join it (read as the
/// debate now asks them), the others stay discarded; the analysis says which.
pub struct Settled<'a> {
    /// Each kept one's row and the contribution it becomes.
    pub kept: Vec<(i64, Contribution)>,
    pub analysis: &'a Analysis,
}

/// The last round as a synthesis judged it, and the end that follows.
pub struct LastRound<'a> {
    pub round: u32,
    pub measures: &'a RoundMeasures,
    pub evaluation: &'a Evaluation,
    pub reason: EndReason,
}

/// Everything a new debate starts with.
pub struct NewDebate<'a> {
    pub id: &'a str,
    pub question: &'a str,
    pub title: &'a str,
    pub repo_root: &'a str,
    pub snapshot: &'a Snapshot,
    pub analysis: &'a Analysis,
    pub panel: &'a [Seat],
}

#[cfg(test)]
impl<'a> NewDebate<'a> {
    /// A stored debate's beginning, for tests that store one.
    pub fn of(state: &'a crate::model::DebateState) -> NewDebate<'a> {
        NewDebate {
            id: &state.id,
            question: &state.question,
            title: &state.title,
            repo_root: &state.repo_root,
            snapshot: &state.snapshot,
            analysis: &state.analysis,
            panel: &state.panel,
        }
    }
}

impl Store {
    pub fn create_debate(&self, new: &NewDebate) -> Result<()> {
        let tx = self.writing()?;
        let time = now();
        tx.execute(
            "INSERT INTO debates (id, question, title, repo_root, status, snapshot, analysis, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            params![
                new.id,
                gate(new.question),
                gate(new.title),
                gate(new.repo_root),
                Status::Analyzing,
                to_json(new.snapshot),
                to_json(new.analysis),
                time
            ],
        )?;
        write_panel(&tx, new.id, new.panel)?;
        tx.commit()?;
        Ok(())
    }

    /// The moderator's clarifying questions (one a line), the analysis they leave (no
    /// longer vague when there are none: the moderator found the question clear) and the
    /// call that wrote them, before anyone is asked; without questions, settled at once.
    pub fn save_clarifying_questions(
        &self,
        id: &str,
        questions: &[String],
        analysis: &Analysis,
        call: &Completion,
    ) -> Result<()> {
        let tx = self.writing()?;
        tx.execute(
            "INSERT INTO clarifications (debate_id, question, answer, settled, created_at) VALUES (?1, ?2, NULL, ?3, ?4)",
            params![id, gate(&questions.join("\n")), questions.is_empty(), now()],
        )?;
        tx.execute("UPDATE debates SET analysis = ?2 WHERE id = ?1", params![id, to_json(analysis)])?;
        insert_call(&tx, id, Purpose::Clarification, 0, call)?;
        tx.commit()?;
        Ok(())
    }

    /// What became of the clarifying questions: the answer, with the analysis and panel
    /// the question and its answer give; or `None`, left open.
    pub fn settle_clarification(&self, id: &str, answered: Option<(&str, &Analysis, &[Seat])>) -> Result<()> {
        let tx = self.writing()?;
        tx.execute(
            "UPDATE clarifications SET answer = ?2, settled = 1 WHERE debate_id = ?1",
            params![id, answered.map(|(answer, _, _)| gate(answer))],
        )?;
        if let Some((_, analysis, panel)) = answered {
            tx.execute("UPDATE debates SET analysis = ?2 WHERE id = ?1", params![id, to_json(analysis)])?;
            tx.execute("DELETE FROM panel WHERE debate_id = ?1", [id])?;
            write_panel(&tx, id, panel)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The analysis step's result: the final panel and the moderator call behind it.
    /// The analysis step's result: the panel and the considered options, as the
    /// moderator refined them.
    pub fn save_panel(&self, id: &str, panel: &[Seat], analysis: &Analysis, call: &Completion) -> Result<()> {
        let tx = self.writing()?;
        tx.execute("UPDATE debates SET analysis = ?2 WHERE id = ?1", params![id, to_json(analysis)])?;
        tx.execute("DELETE FROM panel WHERE debate_id = ?1", [id])?;
        write_panel(&tx, id, panel)?;
        insert_call(&tx, id, Purpose::Analysis, 0, call)?;
        set_status_in(&tx, id, Status::InRound)?;
        tx.commit()?;
        Ok(())
    }

    /// A debater leaves the panel for good.
    pub fn drop_seat(&self, id: &str, seat: usize, reason: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE panel SET dropped = ?3 WHERE debate_id = ?1 AND seat = ?2",
            params![id, seat, gate(reason)],
        )?;
        Ok(())
    }

    /// Open round `number` with its framing, guidance and roster (the seats that speak);
    /// round 1 with its early arguments `settled`, when it had any.
    pub fn start_round(&self, id: &str, number: u32, opening: &Opening, settled: Option<&Settled>) -> Result<()> {
        let tx = self.writing()?;
        once(
            id,
            tx.execute(
                "INSERT INTO rounds (debate_id, number, framing, guidance, seats) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, number, gate(opening.framing), opening.guidance.map(gate), to_json(&opening.seats)],
            ),
        )?;
        if let Some(settled) = settled {
            for (row, contribution) in &settled.kept {
                let (perspective, landed): (String, String) = tx.query_row(
                    "SELECT perspective, created_at FROM discarded WHERE rowid = ?1 AND debate_id = ?2",
                    params![row, id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )?;
                write_contribution(&tx, id, number, &perspective, contribution)?;
                // When it was answered, as the ledger dates every call.
                tx.execute(
                    "UPDATE contributions SET created_at = ?5 WHERE debate_id = ?1 AND round = ?2 AND seat = ?3 AND kind = ?4",
                    params![id, number, contribution.seat, contribution.kind, landed],
                )?;
                tx.execute("DELETE FROM discarded WHERE rowid = ?1", [row])?;
            }
            // What was not kept stays, discarded: paid for, never part of the debate.
            tx.execute("UPDATE discarded SET awaiting = NULL WHERE debate_id = ?1 AND awaiting IS NOT NULL", [id])?;
            tx.execute("UPDATE debates SET analysis = ?2 WHERE id = ?1", params![id, to_json(settled.analysis)])?;
        }
        set_status_in(&tx, id, Status::InRound)?;
        tx.commit()?;
        Ok(())
    }

    /// A round-1 argument written while the moderator reads the question, waiting for
    /// its reading: `request` is the digest of what it was asked, `completion` its
    /// answer as it came.
    pub fn save_early(
        &self,
        id: &str,
        seat: usize,
        perspective: &str,
        request: &str,
        completion: &Completion,
    ) -> Result<()> {
        let u = completion.usage.bounded();
        self.conn.execute(
            "INSERT INTO discarded (debate_id, round, seat, kind, perspective, text, model, prompt_tokens, cached_tokens,
                                    completion_tokens, latency_ms, created_at, retries, awaiting, truncated, looped)
             VALUES (?1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                id, seat, ContributionKind::Argument, gate(perspective), gate(&completion.text), gate(&completion.model),
                u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.latency_ms, now(), u.retries, request,
                completion.truncated, completion.looped
            ],
        )?;
        Ok(())
    }

    pub fn save_contribution(&self, id: &str, round: u32, perspective: &str, c: &Contribution) -> Result<()> {
        write_contribution(&self.conn, id, round, perspective, c)
    }

    /// The stance of a contribution that did not state one, read with one more call
    /// (whose tokens count towards the contribution).
    pub fn save_stance(
        &self,
        id: &str,
        round: u32,
        seat: usize,
        kind: ContributionKind,
        stance: &Stance,
        usage: Usage,
    ) -> Result<()> {
        let usage = usage.bounded();
        self.conn.execute(
            "UPDATE contributions SET stance = ?5, prompt_tokens = MIN(prompt_tokens + ?6, ?10),
                                      cached_tokens = MIN(cached_tokens + ?7, ?10),
                                      completion_tokens = MIN(completion_tokens + ?8, ?10),
                                      latency_ms = MIN(latency_ms + ?9, ?10),
                                      retries = MIN(retries + ?11, ?10)
             WHERE debate_id = ?1 AND round = ?2 AND seat = ?3 AND kind = ?4",
            params![
                id,
                round,
                seat,
                kind,
                to_json(stance),
                usage.prompt_tokens,
                usage.cached_tokens,
                usage.completion_tokens,
                usage.latency_ms,
                Usage::LIMIT,
                usage.retries
            ],
        )?;
        Ok(())
    }

    pub fn save_evaluation(
        &self,
        id: &str,
        round: u32,
        measures: &RoundMeasures,
        evaluation: &Evaluation,
        call: &Completion,
    ) -> Result<()> {
        let tx = self.writing()?;
        write_evaluation(&tx, id, round, measures, evaluation)?;
        insert_call(&tx, id, Purpose::Evaluation, round, call)?;
        touch(&tx, id)?;
        tx.commit()?;
        Ok(())
    }

    /// The debate ended after round `judged`: the rounds opened after it (their
    /// arguments ran alongside its evaluation) leave the debate, their arguments kept as
    /// discarded.
    pub fn discard_after(&self, id: &str, judged: u32) -> Result<()> {
        let tx = self.writing()?;
        tx.execute(
            "INSERT INTO discarded (debate_id, round, seat, kind, perspective, text, model, prompt_tokens, cached_tokens,
                                    completion_tokens, latency_ms, created_at, retries)
             SELECT debate_id, round, seat, kind, perspective, text, model, prompt_tokens, cached_tokens,
                    completion_tokens, latency_ms, created_at, retries
             FROM contributions WHERE debate_id = ?1 AND round > ?2",
            params![id, judged],
        )?;
        tx.execute("DELETE FROM contributions WHERE debate_id = ?1 AND round > ?2", params![id, judged])?;
        tx.execute("DELETE FROM rounds WHERE debate_id = ?1 AND number > ?2", params![id, judged])?;
        touch(&tx, id)?;
        tx.commit()?;
        Ok(())
    }

    pub fn save_end(&self, id: &str, reason: EndReason) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET end_reason = ?2, status = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, reason, Status::Synthesizing, now()],
        )?;
        Ok(())
    }

    /// The synthesis of the debate's `revision`-th conclusion (0 the first; a review
    /// reopening the debate makes the next).
    pub fn save_outcome(&self, id: &str, outcome: &Outcome, call: &Completion, revision: u32) -> Result<()> {
        let tx = self.writing()?;
        write_outcome(&tx, id, outcome, call, revision)?;
        tx.commit()?;
        Ok(())
    }

    /// As [`Store::save_outcome`], for a synthesis that also judged the last round:
    /// the round's evaluation, the end it found and the outcome land together.
    pub fn save_judged_outcome(
        &self,
        id: &str,
        last: &LastRound,
        outcome: &Outcome,
        call: &Completion,
        revision: u32,
    ) -> Result<()> {
        let tx = self.writing()?;
        write_evaluation(&tx, id, last.round, last.measures, last.evaluation)?;
        tx.execute("UPDATE debates SET end_reason = ?2 WHERE id = ?1", params![id, last.reason])?;
        write_outcome(&tx, id, outcome, call, revision)?;
        tx.commit()?;
        Ok(())
    }

    /// The outcome changed by a person after the debate ended (`debate guard`): no model
    /// call, no change of status.
    pub fn save_amended_outcome(&self, id: &str, outcome: &Outcome) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET outcome = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, to_json(outcome), now()],
        )?;
        Ok(())
    }

    /// Remember where the record goes before writing it, so a crash in between is repaired.
    pub fn save_record_path(&self, id: &str, path: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET record_path = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, gate(path), now()],
        )?;
        Ok(())
    }

    /// The record is written (and committed, when `commit` is given): the debate is done.
    pub fn complete(&self, id: &str, commit: Option<&str>) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET status = ?2, commit_id = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, Status::Complete, commit, now()],
        )?;
        Ok(())
    }

    /// A review reopened the completed debate: its conclusion joins the revisions, and
    /// the debate goes on under `snapshot` (more rounds) until it is concluded again.
    /// The record path stays: the next conclusion rewrites the same file.
    pub fn reopen(&self, id: &str, revision: &Revision, snapshot: &Snapshot) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET revisions = json_insert(revisions, '$[#]', json(?2)), snapshot = ?3, end_reason = NULL,
                    outcome = NULL, confidence = NULL, commit_id = NULL, status = ?4, updated_at = ?5
             WHERE id = ?1",
            params![id, to_json(revision), to_json(snapshot), Status::InRound, now()],
        )?;
        Ok(())
    }

    /// The rules and providers a resumed debate goes on with, when they changed.
    pub fn save_snapshot(&self, id: &str, snapshot: &Snapshot) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET snapshot = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, to_json(snapshot), now()],
        )?;
        Ok(())
    }

    /// Remove a debate and everything stored with it.
    pub fn delete(&self, id: &str) -> Result<()> {
        self.conn.execute("DELETE FROM debates WHERE id = ?1", [id])?;
        Ok(())
    }

    /// The repository moved: the debate, and its record's path, go with it.
    pub fn move_repository(&self, id: &str, from: &Path, to: &Path) -> Result<()> {
        let tx = self.writing()?;
        let record: Option<String> =
            tx.query_row("SELECT record_path FROM debates WHERE id = ?1", [id], |row| row.get(0))?;
        let record = record.map(|path| match Path::new(&path).strip_prefix(from) {
            Ok(relative) => to.join(relative).display().to_string(),
            Err(_) => path,
        });
        tx.execute(
            "UPDATE debates SET repo_root = ?2, record_path = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, to.display().to_string(), record, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The way `server` (provider, model, base URL) took structured answers.
    pub fn save_format(&self, server: &Server, format: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO structured_formats (provider, model, base_url, format) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (provider, model, base_url) DO UPDATE SET format = excluded.format",
            params![server.provider, server.model, server.base_url, format],
        )?;
        Ok(())
    }

    /// How many requests the server at `base_url` serves at once, learned now.
    pub fn save_at_once(&self, base_url: &str, at_once: &AtOnce) -> Result<()> {
        self.conn.execute(
            "INSERT INTO servers_at_once (base_url, requests, learned_from, learned_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (base_url) DO UPDATE SET requests = excluded.requests,
                 learned_from = excluded.learned_from, learned_at = excluded.learned_at",
            params![gate(base_url), at_once.requests, gate(&at_once.learned_from), now()],
        )?;
        Ok(())
    }

    pub fn set_status(&self, id: &str, status: Status) -> Result<()> {
        set_status_in(&self.conn, id, status)
    }
}

pub(super) fn write_contribution(
    conn: &Connection,
    id: &str,
    round: u32,
    perspective: &str,
    c: &Contribution,
) -> Result<()> {
    let u = c.usage.bounded();
    let inserted = conn.execute(
        "INSERT INTO contributions (debate_id, round, seat, kind, perspective, text, model, prompt_tokens, cached_tokens,
                                    completion_tokens, latency_ms, truncated, stance, created_at, failed, looped, retries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        params![
            id, round, c.seat, c.kind, gate(perspective), gate(&c.text), gate(&c.model),
            u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.latency_ms, c.truncated,
            c.stance.as_ref().map(to_json), now(), c.failed, c.looped, u.retries
        ],
    );
    once(id, inserted)?;
    Ok(())
}

pub(super) fn write_panel(conn: &Connection, id: &str, panel: &[Seat]) -> Result<()> {
    for (seat, s) in panel.iter().enumerate() {
        conn.execute(
            "INSERT INTO panel (debate_id, seat, name, perspective, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, seat, gate(s.name()), to_json(&s.perspective), gate(&s.reason)],
        )?;
    }
    Ok(())
}

fn insert_call(conn: &Connection, id: &str, purpose: Purpose, round: u32, call: &Completion) -> Result<()> {
    let u = call.usage.bounded();
    let inserted = conn.execute(
        "INSERT INTO moderator_calls (debate_id, purpose, round, text, model, prompt_tokens, cached_tokens, completion_tokens,
                                      latency_ms, truncated, created_at, format, retries)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            id, purpose, round, gate(&call.text), gate(&call.model), u.prompt_tokens, u.cached_tokens, u.completion_tokens,
            u.latency_ms, call.truncated, now(), call.format, u.retries
        ],
    );
    once(id, inserted)?;
    Ok(())
}

/// A step's row that is already there was saved by another process driving the same
/// debate (each step is saved once).
pub(super) fn once(id: &str, result: rusqlite::Result<usize>) -> Result<usize> {
    match result {
        Err(rusqlite::Error::SqliteFailure(failure, _)) if failure.code == rusqlite::ErrorCode::ConstraintViolation => {
            Err(StoreError::SavedElsewhere(id.to_string()))
        }
        other => Ok(other?),
    }
}

fn set_status_in(conn: &Connection, id: &str, status: Status) -> Result<()> {
    conn.execute("UPDATE debates SET status = ?2, updated_at = ?3 WHERE id = ?1", params![id, status, now()])?;
    Ok(())
}

fn touch(conn: &Connection, id: &str) -> Result<()> {
    conn.execute("UPDATE debates SET updated_at = ?2 WHERE id = ?1", params![id, now()])?;
    Ok(())
}

fn write_evaluation(
    conn: &Connection,
    id: &str,
    round: u32,
    measures: &RoundMeasures,
    evaluation: &Evaluation,
) -> Result<()> {
    conn.execute(
        "UPDATE rounds SET repetition = ?3, novelty = ?4, evaluation = ?5 WHERE debate_id = ?1 AND number = ?2",
        params![id, round, to_json(&measures.repetition), measures.novelty, to_json(evaluation)],
    )?;
    Ok(())
}

fn write_outcome(conn: &Connection, id: &str, outcome: &Outcome, call: &Completion, revision: u32) -> Result<()> {
    insert_call(conn, id, Purpose::Synthesis, revision, call)?;
    conn.execute(
        "UPDATE debates SET outcome = ?2, confidence = ?3, status = ?4, updated_at = ?5 WHERE id = ?1",
        params![id, to_json(outcome), outcome.confidence, Status::Recording, now()],
    )?;
    Ok(())
}
