//! Reading debates back: one in full, a page of the list, an id from a prefix.

use rusqlite::{OptionalExtension, Row, params};

use super::{Result, Store, StoreError, from_json, usage};
use crate::model::{
    AtOnce, Clarification, Contribution, ContributionKind, DebateState, Early, EndReason, Listing, Round,
    RoundMeasures, Seat, Status, Usage,
};

impl Store {
    /// The full id for any-case, unique-prefix input of at least two characters after
    /// `DEB-`: an empty or one-letter prefix names nothing, not every debate.
    pub fn resolve_id(&self, input: &str) -> Result<String> {
        let wanted = input.trim().to_lowercase();
        let wanted = if wanted.starts_with("deb-") { wanted } else { format!("deb-{wanted}") };
        if wanted.len() < "deb-".len() + 2 {
            return Err(StoreError::TooShort(input.to_string()));
        }
        let pattern = format!("{}%", wanted.replace(['%', '_'], ""));
        let mut stmt = self.conn.prepare("SELECT id FROM debates WHERE lower(id) LIKE ?1 ORDER BY id LIMIT 6")?;
        let ids: Vec<String> = stmt.query_map([&pattern], |row| row.get(0))?.collect::<Result<_, _>>()?;
        match ids.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(StoreError::UnknownId(input.to_string())),
            _ => Err(StoreError::Ambiguous { input: input.to_string(), ids }),
        }
    }

    /// Newest first; only `repo_root`'s debates when it is given. Each row's token sums
    /// are primary-key lookups, so a page costs the same however many debates there are.
    pub fn list(&self, repo_root: Option<&str>, limit: u32) -> Result<Vec<Listing>> {
        let sum = |column: &str| {
            format!(
                "(SELECT COALESCE(SUM({column}), 0) FROM contributions c WHERE c.debate_id = d.id)
                 + (SELECT COALESCE(SUM({column}), 0) FROM moderator_calls m WHERE m.debate_id = d.id)
                 + (SELECT COALESCE(SUM({column}), 0) FROM discarded x WHERE x.debate_id = d.id)
                 + (SELECT COALESCE(SUM({column}), 0) FROM carried_usage u WHERE u.debate_id = d.id)"
            )
        };
        let sql = format!(
            "SELECT d.id, d.status, (SELECT COUNT(*) FROM rounds r WHERE r.debate_id = d.id), d.created_at, d.question,
                    COALESCE(NULLIF(json_extract(d.outcome, '$.synthesis.title'), ''), d.title), d.repo_root, d.record_path, json_extract(d.snapshot, '$.branch'), d.end_reason,
                    d.confidence, d.commit_id, {}
             FROM debates d WHERE (?1 IS NULL OR d.repo_root = ?1) ORDER BY d.created_at DESC, d.id LIMIT ?2",
            usage::select(3, sum)
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![repo_root, limit], |row| {
            Ok(Listing {
                id: row.get(0)?,
                status: row.get(1)?,
                rounds: row.get(2)?,
                created_at: row.get(3)?,
                question: row.get(4)?,
                title: row.get(5)?,
                repository: row.get(6)?,
                record_path: row.get(7)?,
                branch: row.get(8)?,
                end_reason: row.get(9)?,
                confidence: row.get(10)?,
                commit_id: row.get(11)?,
                totals: usage::read(row, 12)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Every repository a debate was started in, by path.
    pub fn repositories(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT repo_root FROM debates ORDER BY repo_root")?;
        let roots = stmt.query_map([], |row| row.get(0))?;
        Ok(roots.collect::<Result<_, _>>()?)
    }

    /// How `server` last took structured answers, if it was asked before.
    pub fn learnt_format(&self, server: &super::Server) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT format FROM structured_formats WHERE provider = ?1 AND model = ?2 AND base_url = ?3",
                params![server.provider, server.model, server.base_url],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// How many requests the server at `base_url` serves at once, if it was learned.
    pub fn learnt_at_once(&self, base_url: &str) -> Result<Option<AtOnce>> {
        Ok(self
            .conn
            .query_row("SELECT requests, learned_from FROM servers_at_once WHERE base_url = ?1", [base_url], |row| {
                Ok(AtOnce { requests: row.get(0)?, learned_from: row.get(1)? })
            })
            .optional()?)
    }

    pub fn load(&self, id: &str) -> Result<DebateState> {
        let head = self
            .conn
            .query_row(
                "SELECT id, question, title, repo_root, status, created_at, snapshot, analysis, end_reason, outcome, record_path, commit_id,
                    revisions
                 FROM debates WHERE id = ?1",
                [id],
                Head::read,
            )
            .optional()?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        let sums = usage::select(5, |column| format!("SUM({column})"));
        let usage_by_model = self
            .conn
            .prepare(&format!("SELECT model, {sums} FROM calls WHERE debate_id = ?1 GROUP BY model ORDER BY model"))?
            .query_map([id], |row| Ok((row.get::<_, String>(0)?, usage::read(row, 1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let totals = usage_by_model.iter().fold(Usage::default(), |sum, (_, usage)| sum + *usage);
        let clarification = self
            .conn
            .query_row(
                "SELECT question, answer, settled FROM clarifications WHERE debate_id = ?1 LIMIT 1",
                [id],
                |row| Ok(Clarification { question: row.get(0)?, answer: row.get(1)?, settled: row.get(2)? }),
            )
            .optional()?;
        let structured_format = self
            .conn
            .query_row(
                "SELECT format FROM moderator_calls WHERE debate_id = ?1 AND format IS NOT NULL ORDER BY rowid DESC LIMIT 1",
                [id],
                |row| row.get(0),
            )
            .optional()?;
        let analyzed = self.conn.query_row(
            // A debate read back from its record was analysed where it ran.
            "SELECT EXISTS (SELECT 1 FROM moderator_calls WHERE debate_id = ?1 AND purpose = 'analysis')
                 OR EXISTS (SELECT 1 FROM debates WHERE id = ?1 AND imported_from IS NOT NULL)",
            [id],
            |row| row.get(0),
        )?;
        let mut state = DebateState {
            usage_by_model,
            id: head.id,
            question: head.question,
            title: head.title,
            repo_root: head.repo_root,
            status: head.status,
            created_at: head.created_at,
            snapshot: from_json(&head.snapshot, "settings snapshot")?,
            analysis: from_json(&head.analysis, "analysis")?,
            panel: self.load_panel(id)?,
            rounds: self.load_rounds(id)?,
            early: self.load_early(id)?,
            discarded: self.load_discarded(id)?,
            end_reason: head.end_reason,
            outcome: head.outcome.as_deref().map(|o| from_json(o, "synthesis")).transpose()?,
            record_path: head.record_path,
            commit_id: head.commit_id,
            totals,
            analyzed,
            structured_format,
            clarification,
            revisions: from_json(&head.revisions, "revisions")?,
            scorecards: self.load_scorecards(id)?,
        };
        state.fill_missing_rosters();
        Ok(state)
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
            "SELECT number, framing, guidance, repetition, novelty, evaluation, seats FROM rounds WHERE debate_id = ?1
             ORDER BY number",
        )?;
        type RoundRow = (u32, String, Option<String>, Option<String>, Option<f64>, Option<String>, Option<String>);
        let rows: Vec<RoundRow> = stmt
            .query_map([id], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?, row.get(6)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut contributions = self.load_contributions(id)?;
        rows.into_iter()
            .map(|(number, framing, guidance, repetition, novelty, evaluation, seats)| {
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
                    // Rounds opened before rosters were stored get theirs once loaded.
                    seats: seats.map(|s| from_json(&s, "roster")).transpose()?.unwrap_or_default(),
                    arguments,
                    rebuttals,
                    measures,
                    evaluation: evaluation.map(|e| from_json(&e, "evaluation")).transpose()?,
                })
            })
            .collect()
    }

    /// Arguments of rounds the debate ended before, in round and seat order.
    fn load_discarded(&self, id: &str) -> Result<Vec<(u32, Contribution)>> {
        self.contributions_in(id, "NULL, 0", "discarded WHERE debate_id = ?1 AND awaiting IS NULL")
    }

    /// Round 1's arguments written while the moderator reads the question, in seat order.
    fn load_early(&self, id: &str) -> Result<Vec<Early>> {
        let mut stmt = self.conn.prepare(
            "SELECT rowid, perspective, awaiting FROM discarded WHERE debate_id = ?1 AND awaiting IS NOT NULL
             ORDER BY round, seat, kind",
        )?;
        let rows: Vec<(i64, String, String)> =
            stmt.query_map([id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?.collect::<Result<_, _>>()?;
        let answers =
            self.contributions_in(id, "NULL, 0", "discarded WHERE debate_id = ?1 AND awaiting IS NOT NULL")?;
        Ok(rows
            .into_iter()
            .zip(answers)
            .map(|((row, perspective, request), (_, contribution))| Early { row, perspective, request, contribution })
            .collect())
    }

    /// Contributions in round, then seat order: panel order, not completion order.
    fn load_contributions(&self, id: &str) -> Result<Vec<(u32, Contribution)>> {
        self.contributions_in(id, "stance, failed", "contributions WHERE debate_id = ?1")
    }

    /// Contributions from `from` (a table and its condition), in round, then seat order:
    /// round, seat, kind, text, model, truncated, looped, `stance_failed` (a table without
    /// them selects `NULL, 0`) and the usage.
    fn contributions_in(&self, id: &str, stance_failed: &str, from: &str) -> Result<Vec<(u32, Contribution)>> {
        let usage = usage::select(5, str::to_string);
        let sql = format!(
            "SELECT round, seat, kind, text, model, truncated, looped, {stance_failed}, {usage}
             FROM {from} ORDER BY round, seat, kind"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map([id], |row| {
            let contribution = Contribution {
                seat: row.get(1)?,
                kind: row.get(2)?,
                text: row.get(3)?,
                model: row.get(4)?,
                truncated: row.get(5)?,
                looped: row.get(6)?,
                failed: row.get(8)?,
                usage: usage::read(row, 9)?,
                stance: None,
            };
            Ok((row.get(0)?, contribution, row.get::<_, Option<String>>(7)?))
        })?;
        rows.map(|row| {
            let (round, contribution, stance) = row?;
            let stance = stance.map(|json| from_json(&json, "stance")).transpose()?;
            Ok((round, Contribution { stance, ..contribution }))
        })
        .collect()
    }
}

/// The `debates` row of one debate.
struct Head {
    id: String,
    question: String,
    title: String,
    repo_root: String,
    status: Status,
    created_at: String,
    snapshot: String,
    analysis: String,
    end_reason: Option<EndReason>,
    outcome: Option<String>,
    record_path: Option<String>,
    commit_id: Option<String>,
    revisions: String,
}

impl Head {
    fn read(row: &Row) -> rusqlite::Result<Head> {
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
            revisions: row.get(12)?,
        })
    }
}
