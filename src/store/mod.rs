//! SQLite state (SPEC §6). The engine talks to the store through named operations;
//! each one is a single transaction, so a debate killed at any instant leaves either
//! the whole result of a step or none of it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::engine::state::{
    Clarification, Contribution, ContributionKind, DebateState, EndReason, Outcome, Round, Seat, Snapshot, Status,
    Usage,
};
use crate::error::{Error, Result};
use crate::moderator::analysis::Analysis;
use crate::moderator::detection::RoundMeasures;
use crate::moderator::evaluation::Evaluation;
use crate::providers::{Completion, Purpose};

/// Numbered migrations; `PRAGMA user_version` says how many have run.
const MIGRATIONS: &[&str] =
    &[include_str!("migrations/0001_init.sql"), include_str!("migrations/0002_dropped_seats.sql")];

/// Where the database lives: `--db`, else `$DEBATE_HOME`, else the user data directory.
pub fn default_path() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("DEBATE_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home).join("debates.sqlite3"));
    }
    directories::BaseDirs::new().map(|dirs| dirs.data_dir().join("debate").join("debates.sqlite3")).ok_or_else(|| {
        Error::config("cannot find a home directory for the state database")
            .with_hint("pass --db PATH or set DEBATE_HOME")
    })
}

pub struct Store {
    conn: Connection,
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
    pub clarification: Option<&'a Clarification>,
}

/// One line of `--list`.
#[derive(Debug, Serialize)]
pub struct ListRow {
    pub id: String,
    pub status: String,
    pub rounds: u32,
    pub created_at: String,
    pub question: String,
    pub repository: String,
    pub record_path: Option<String>,
    pub end_reason: Option<String>,
    pub confidence: Option<String>,
    pub commit_id: Option<String>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("state types serialise")
}

fn from_json<T: DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|err| Error::general(format!("state database: unreadable {what}: {err}")))
}

impl Store {
    /// Open (creating if needed) the database and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|err| {
                Error::config(format!("cannot create {}: {err}", dir.display()))
                    .with_hint("pass a writable --db path or set DEBATE_HOME")
            })?;
        }
        let conn = Connection::open(path).map_err(|err| cannot_open(path, err))?;
        Self::prepare(conn, path)
    }

    /// Open an existing database; `None` when there is none yet (nothing is created).
    pub fn open_existing(path: &Path) -> Result<Option<Store>> {
        if !path.exists() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|err| cannot_open(path, err))?;
        Self::prepare(conn, path).map(Some)
    }

    fn prepare(mut conn: Connection, path: &Path) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(10))?;
        // WAL with synchronous=NORMAL: each step's commit survives any death of the
        // process (SIGKILL included) and the file never corrupts; only an OS crash can
        // drop the last commits, which --resume then redoes. fsync per commit would put
        // a disk flush on the critical path of every step.
        let setup = conn
            .pragma_update(None, "journal_mode", "WAL")
            .and_then(|_| conn.pragma_update(None, "synchronous", "NORMAL"))
            .and_then(|_| conn.pragma_update(None, "foreign_keys", true));
        setup.map_err(|err| cannot_open(path, err))?;
        let version: usize = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
        if version > MIGRATIONS.len() {
            return Err(Error::config(format!(
                "{} was written by a newer version of debate (schema {version}, this one knows {})",
                path.display(),
                MIGRATIONS.len()
            ))
            .with_hint("upgrade debate, or use another --db"));
        }
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            let tx = conn.transaction()?;
            tx.execute_batch(migration)?;
            tx.pragma_update(None, "user_version", index + 1)?;
            tx.commit()?;
        }
        Ok(Store { conn })
    }

    pub fn create_debate(&self, new: &NewDebate) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        let time = now();
        tx.execute(
            "INSERT INTO debates (id, question, title, repo_root, status, snapshot, analysis, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
            params![
                new.id,
                new.question,
                new.title,
                new.repo_root,
                Status::Analyzing.as_str(),
                to_json(new.snapshot),
                to_json(new.analysis),
                time
            ],
        )?;
        write_panel(&tx, new.id, new.panel)?;
        if let Some(c) = new.clarification {
            tx.execute(
                "INSERT INTO clarifications (debate_id, question, answer, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![new.id, c.question, c.answer, time],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The analysis step's result: the final panel and the moderator call behind it.
    pub fn save_panel(&self, id: &str, panel: &[Seat], call: &Completion) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute("DELETE FROM panel WHERE debate_id = ?1", [id])?;
        write_panel(&tx, id, panel)?;
        insert_call(&tx, id, Purpose::Analysis, 0, call)?;
        set_status_in(&tx, id, Status::InRound)?;
        tx.commit()?;
        Ok(())
    }

    /// A debater leaves the panel for good.
    pub fn drop_seat(&self, id: &str, seat: usize, reason: &str) -> Result<()> {
        self.conn
            .execute("UPDATE panel SET dropped = ?3 WHERE debate_id = ?1 AND seat = ?2", params![id, seat, reason])?;
        Ok(())
    }

    pub fn start_round(&self, id: &str, number: u32, framing: &str, guidance: Option<&str>) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO rounds (debate_id, number, framing, guidance) VALUES (?1, ?2, ?3, ?4)",
            params![id, number, framing, guidance],
        )?;
        set_status_in(&tx, id, Status::InRound)?;
        tx.commit()?;
        Ok(())
    }

    pub fn save_contribution(
        &self,
        id: &str,
        round: u32,
        perspective: &str,
        contribution: &Contribution,
    ) -> Result<()> {
        let u = &contribution.usage;
        self.conn.execute(
            "INSERT INTO contributions (debate_id, round, seat, kind, perspective, text, model, prompt_tokens, completion_tokens, latency_ms, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                id, round, contribution.seat, contribution.kind.as_str(), perspective, contribution.text, contribution.model,
                u.prompt_tokens, u.completion_tokens, u.latency_ms, now()
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
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "UPDATE rounds SET repetition = ?3, novelty = ?4, evaluation = ?5 WHERE debate_id = ?1 AND number = ?2",
            params![id, round, to_json(&measures.repetition), measures.novelty, to_json(evaluation)],
        )?;
        insert_call(&tx, id, Purpose::Evaluation, round, call)?;
        touch(&tx, id)?;
        tx.commit()?;
        Ok(())
    }

    pub fn save_end(&self, id: &str, reason: EndReason) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET end_reason = ?2, status = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, reason.as_str(), Status::Synthesizing.as_str(), now()],
        )?;
        Ok(())
    }

    pub fn save_outcome(&self, id: &str, outcome: &Outcome, call: &Completion) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        insert_call(&tx, id, Purpose::Synthesis, 0, call)?;
        tx.execute(
            "UPDATE debates SET outcome = ?2, confidence = ?3, status = ?4, updated_at = ?5 WHERE id = ?1",
            params![id, to_json(outcome), outcome.confidence.as_str(), Status::Recording.as_str(), now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Remember where the record goes before writing it, so a crash in between is repaired.
    pub fn save_record_path(&self, id: &str, path: &str) -> Result<()> {
        self.conn
            .execute("UPDATE debates SET record_path = ?2, updated_at = ?3 WHERE id = ?1", params![id, path, now()])?;
        Ok(())
    }

    /// The record is written (and committed, when `commit` is given): the debate is done.
    pub fn complete(&self, id: &str, commit: Option<&str>) -> Result<()> {
        self.conn.execute(
            "UPDATE debates SET status = ?2, commit_id = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, Status::Complete.as_str(), commit, now()],
        )?;
        Ok(())
    }

    pub fn set_status(&self, id: &str, status: Status) -> Result<()> {
        set_status_in(&self.conn, id, status)
    }

    /// The full id for any-case, unique-prefix input.
    pub fn resolve_id(&self, input: &str) -> Result<String> {
        let wanted = input.trim().to_lowercase();
        let wanted =
            if wanted.starts_with("deb-") || "deb-".starts_with(&wanted) { wanted } else { format!("deb-{wanted}") };
        let pattern = format!("{}%", wanted.replace(['%', '_'], ""));
        let mut stmt = self.conn.prepare("SELECT id FROM debates WHERE lower(id) LIKE ?1 ORDER BY id LIMIT 6")?;
        let ids: Vec<String> = stmt.query_map([&pattern], |row| row.get(0))?.collect::<Result<_, _>>()?;
        match ids.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(unknown_id(input)),
            many => Err(Error::input(format!("{input:?} matches several debates: {}", many.join(", ")))
                .with_hint("give more characters of the id")),
        }
    }

    pub fn list(&self, repo_root: Option<&str>, limit: u32) -> Result<Vec<ListRow>> {
        let sql = "SELECT d.id, d.status, (SELECT COUNT(*) FROM rounds r WHERE r.debate_id = d.id), d.created_at, d.question, d.repo_root,
                          d.record_path, d.end_reason, d.confidence, d.commit_id,
                          (SELECT COALESCE(SUM(prompt_tokens), 0) FROM contributions c WHERE c.debate_id = d.id)
                            + (SELECT COALESCE(SUM(prompt_tokens), 0) FROM moderator_calls m WHERE m.debate_id = d.id),
                          (SELECT COALESCE(SUM(completion_tokens), 0) FROM contributions c WHERE c.debate_id = d.id)
                            + (SELECT COALESCE(SUM(completion_tokens), 0) FROM moderator_calls m WHERE m.debate_id = d.id)
                   FROM debates d WHERE (?1 IS NULL OR d.repo_root = ?1) ORDER BY d.created_at DESC, d.id LIMIT ?2";
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map(params![repo_root, limit], |row| {
            Ok(ListRow {
                id: row.get(0)?,
                status: row.get(1)?,
                rounds: row.get(2)?,
                created_at: row.get(3)?,
                question: row.get(4)?,
                repository: row.get(5)?,
                record_path: row.get(6)?,
                end_reason: row.get(7)?,
                confidence: row.get(8)?,
                commit_id: row.get(9)?,
                prompt_tokens: row.get(10)?,
                completion_tokens: row.get(11)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn load(&self, id: &str) -> Result<DebateState> {
        let head = self
            .conn
            .query_row(
                "SELECT id, question, title, repo_root, status, created_at, snapshot, analysis, end_reason, outcome, record_path, commit_id
                 FROM debates WHERE id = ?1",
                [id],
                |row| Ok(Head::read(row)),
            )
            .optional()?
            .ok_or_else(|| unknown_id(id))??;
        let panel = self.load_panel(id)?;
        let rounds = self.load_rounds(id)?;
        let totals = self.conn.query_row(
            "SELECT COALESCE(SUM(p), 0), COALESCE(SUM(c), 0), COALESCE(SUM(l), 0) FROM (
                 SELECT prompt_tokens p, completion_tokens c, latency_ms l FROM contributions WHERE debate_id = ?1
                 UNION ALL SELECT prompt_tokens, completion_tokens, latency_ms FROM moderator_calls WHERE debate_id = ?1)",
            [id],
            |row| Ok(Usage { prompt_tokens: row.get(0)?, completion_tokens: row.get(1)?, latency_ms: row.get(2)? }),
        )?;
        let clarification = self
            .conn
            .query_row("SELECT question, answer FROM clarifications WHERE debate_id = ?1 LIMIT 1", [id], |row| {
                Ok(Clarification {
                    question: row.get(0)?,
                    answer: row.get::<_, Option<String>>(1)?.unwrap_or_default(),
                })
            })
            .optional()?;
        let analyzed = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM moderator_calls WHERE debate_id = ?1 AND purpose = 'analysis')",
            [id],
            |row| row.get(0),
        )?;
        Ok(DebateState {
            id: head.id,
            question: head.question,
            title: head.title,
            repo_root: head.repo_root,
            status: Status::parse(&head.status).unwrap_or(Status::Failed),
            created_at: head.created_at,
            snapshot: from_json(&head.snapshot, "settings snapshot")?,
            analysis: from_json(&head.analysis, "analysis")?,
            panel,
            rounds,
            end_reason: head.end_reason.as_deref().and_then(EndReason::parse),
            outcome: head.outcome.as_deref().map(|o| from_json(o, "synthesis")).transpose()?,
            record_path: head.record_path,
            commit_id: head.commit_id,
            totals,
            analyzed,
            clarification,
        })
    }

    fn load_panel(&self, id: &str) -> Result<Vec<Seat>> {
        let mut stmt =
            self.conn.prepare("SELECT perspective, reason, dropped FROM panel WHERE debate_id = ?1 ORDER BY seat")?;
        let rows: Vec<(String, String, Option<String>)> =
            stmt.query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?.collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(perspective, reason, dropped)| {
                Ok(Seat { perspective: from_json(&perspective, "perspective")?, reason, dropped })
            })
            .collect()
    }

    fn load_rounds(&self, id: &str) -> Result<Vec<Round>> {
        let mut stmt = self.conn.prepare(
            "SELECT number, framing, guidance, repetition, novelty, evaluation FROM rounds WHERE debate_id = ?1 ORDER BY number",
        )?;
        type RoundRow = (u32, String, Option<String>, Option<String>, Option<f64>, Option<String>);
        let rows: Vec<RoundRow> = stmt
            .query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?)))?
            .collect::<Result<_, _>>()?;
        let mut contributions = self.load_contributions(id)?;
        rows.into_iter()
            .map(|(number, framing, guidance, repetition, novelty, evaluation)| {
                let measures = match (repetition, novelty) {
                    (Some(r), Some(novelty)) => {
                        Some(RoundMeasures { repetition: from_json(&r, "repetition")?, novelty })
                    }
                    _ => None,
                };
                let (mine, rest): (Vec<_>, Vec<_>) = contributions.drain(..).partition(|(r, _)| *r == number);
                contributions = rest;
                let (arguments, rebuttals): (Vec<_>, Vec<_>) =
                    mine.into_iter().map(|(_, c)| c).partition(|c| c.kind == ContributionKind::Argument);
                Ok(Round {
                    number,
                    framing,
                    guidance,
                    arguments,
                    rebuttals,
                    measures,
                    evaluation: evaluation.map(|e| from_json(&e, "evaluation")).transpose()?,
                })
            })
            .collect()
    }

    /// Contributions in round, then seat order: panel order, not completion order.
    fn load_contributions(&self, id: &str) -> Result<Vec<(u32, Contribution)>> {
        let mut stmt = self.conn.prepare(
            "SELECT round, seat, kind, text, model, prompt_tokens, completion_tokens, latency_ms
             FROM contributions WHERE debate_id = ?1 ORDER BY round, seat, kind",
        )?;
        let rows = stmt.query_map([id], |row| {
            let kind: String = row.get(2)?;
            Ok((
                row.get(0)?,
                Contribution {
                    seat: row.get(1)?,
                    kind: ContributionKind::parse(&kind).unwrap_or(ContributionKind::Argument),
                    text: row.get(3)?,
                    model: row.get(4)?,
                    usage: Usage {
                        prompt_tokens: row.get(5)?,
                        completion_tokens: row.get(6)?,
                        latency_ms: row.get(7)?,
                    },
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

struct Head {
    id: String,
    question: String,
    title: String,
    repo_root: String,
    status: String,
    created_at: String,
    snapshot: String,
    analysis: String,
    end_reason: Option<String>,
    outcome: Option<String>,
    record_path: Option<String>,
    commit_id: Option<String>,
}

impl Head {
    fn read(row: &Row) -> Result<Head> {
        Ok(Head {
            id: row.get(0)?,
            question: row.get(1)?,
            title: row.get(2)?,
            repo_root: row.get(3)?,
            status: row.get(4)?,
            created_at: row.get(5)?,
            snapshot: row.get(6)?,
            analysis: row.get(7)?,
            end_reason: row.get(8)?,
            outcome: row.get(9)?,
            record_path: row.get(10)?,
            commit_id: row.get(11)?,
        })
    }
}

fn write_panel(conn: &Connection, id: &str, panel: &[Seat]) -> Result<()> {
    for (seat, s) in panel.iter().enumerate() {
        conn.execute(
            "INSERT INTO panel (debate_id, seat, name, perspective, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, seat, s.name(), to_json(&s.perspective), s.reason],
        )?;
    }
    Ok(())
}

fn insert_call(conn: &Connection, id: &str, purpose: Purpose, round: u32, call: &Completion) -> Result<()> {
    let purpose = match purpose {
        Purpose::Analysis => "analysis",
        Purpose::Evaluation => "evaluation",
        _ => "synthesis",
    };
    let u = &call.usage;
    conn.execute(
        "INSERT INTO moderator_calls (debate_id, purpose, round, text, model, prompt_tokens, completion_tokens, latency_ms, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![id, purpose, round, call.text, call.model, u.prompt_tokens, u.completion_tokens, u.latency_ms, now()],
    )?;
    Ok(())
}

fn set_status_in(conn: &Connection, id: &str, status: Status) -> Result<()> {
    conn.execute("UPDATE debates SET status = ?2, updated_at = ?3 WHERE id = ?1", params![id, status.as_str(), now()])?;
    Ok(())
}

fn touch(conn: &Connection, id: &str) -> Result<()> {
    conn.execute("UPDATE debates SET updated_at = ?2 WHERE id = ?1", params![id, now()])?;
    Ok(())
}

fn unknown_id(input: &str) -> Error {
    Error::input(format!("no debate with id {input:?}")).with_hint("`debate --list --all` shows every debate")
}

fn cannot_open(path: &Path, err: rusqlite::Error) -> Error {
    Error::config(format!("cannot open the state database {}: {err}", path.display()))
        .with_hint("pass a writable --db path or set DEBATE_HOME")
}
