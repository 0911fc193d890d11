//! The decision search: the decision records of a repository in an FTS5 index, each
//! record's parts in their own column — its title, question, options, rationale,
//! consequences, dissent and the rest — ranked with BM25 (the title and question weigh
//! most), each hit with the words of the query it holds. The index is brought up to the
//! records a repository holds each time it is searched: a record written, reviewed,
//! imported or edited since (by debate or by hand) is indexed again, one gone is dropped.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::params;

use super::{Result, Store};

/// A record as the index takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indexed {
    /// Relative to the repository root.
    pub path: String,
    /// Of the text the parts were read from: an unchanged record is not read again.
    pub digest: String,
    pub parts: Parts,
}

/// A record's text by part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parts {
    pub title: String,
    pub question: String,
    pub options: String,
    pub rationale: String,
    pub consequences: String,
    pub dissent: String,
    pub rest: String,
}

/// A record the query found: its path, how close (BM25: higher is closer) and the
/// words of the record that matched, as the record writes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub relevance: f64,
    pub matched: Vec<String>,
}

/// The columns' weights, in their order: a word of the title or the question counts
/// most; one only in the rest (perspectives, context notes) least.
const WEIGHTS: &str = "5.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.3";
const COLUMNS: usize = 7;
/// What marks a matched word in a column's text (`highlight()`); never in a record.
const OPEN: char = '\u{1}';
const CLOSE: char = '\u{2}';

impl Store {
    /// Bring the index of `repository` up to `records`, the records it holds now.
    pub fn index_records(&self, repository: &str, records: &[Indexed]) -> Result<()> {
        let tx = self.writing()?;
        let mut indexed: BTreeMap<String, (i64, String)> = BTreeMap::new();
        {
            let mut stmt = tx.prepare("SELECT path, search_rowid, digest FROM search_sources WHERE repository = ?1")?;
            let rows = stmt.query_map([repository], |row| Ok((row.get(0)?, (row.get(1)?, row.get(2)?))))?;
            for row in rows {
                let (path, source) = row?;
                indexed.insert(path, source);
            }
        }
        let current: BTreeSet<&str> = records.iter().map(|record| record.path.as_str()).collect();
        for (path, (rowid, _)) in indexed.iter().filter(|(path, _)| !current.contains(path.as_str())) {
            tx.execute("DELETE FROM decision_search WHERE rowid = ?1", [rowid])?;
            tx.execute("DELETE FROM search_sources WHERE repository = ?1 AND path = ?2", params![repository, path])?;
        }
        for record in records {
            let rowid = match indexed.get(&record.path) {
                Some((_, digest)) if *digest == record.digest => continue,
                Some((rowid, _)) => {
                    tx.execute("DELETE FROM decision_search WHERE rowid = ?1", [rowid])?;
                    tx.execute(
                        "UPDATE search_sources SET digest = ?2 WHERE search_rowid = ?1",
                        params![rowid, record.digest],
                    )?;
                    *rowid
                }
                None => {
                    tx.execute(
                        "INSERT INTO search_sources (repository, path, digest) VALUES (?1, ?2, ?3)",
                        params![repository, record.path, record.digest],
                    )?;
                    tx.last_insert_rowid()
                }
            };
            let p = &record.parts;
            tx.execute(
                "INSERT INTO decision_search (rowid, title, question, options, rationale, consequences, dissent, rest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![rowid, p.title, p.question, p.options, p.rationale, p.consequences, p.dissent, p.rest],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// The records of `repository` that hold any of `words`, closest first, at most
    /// `limit`.
    pub fn search_records(&self, repository: &str, words: &[String], limit: usize) -> Result<Vec<Hit>> {
        let Some(query) = fts_query(words) else { return Ok(Vec::new()) };
        let highlights: Vec<String> =
            (0..COLUMNS).map(|column| format!("highlight(decision_search, {column}, char(1), char(2))")).collect();
        let sql = format!(
            "SELECT s.path, bm25(decision_search, {WEIGHTS}) AS rank, {}
             FROM decision_search JOIN search_sources s ON s.search_rowid = decision_search.rowid
             WHERE decision_search MATCH ?1 AND s.repository = ?2
             ORDER BY rank, s.path LIMIT ?3",
            highlights.join(", ")
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params![query, repository, limit as i64], |row| {
            let mut matched = BTreeSet::new();
            for column in 0..COLUMNS {
                let text: String = row.get(2 + column)?;
                matched.extend(marked(&text));
            }
            // SQLite's bm25() is lower for a closer match.
            Ok(Hit { path: row.get(0)?, relevance: -row.get::<_, f64>(1)?, matched: matched.into_iter().collect() })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// The words as an FTS5 query that any of them satisfies, each quoted (nothing of the
/// user's text is read as FTS5's syntax); `None` without a word.
fn fts_query(words: &[String]) -> Option<String> {
    let quoted: Vec<String> = words
        .iter()
        .map(|word| word.trim())
        .filter(|word| !word.is_empty())
        .map(|word| format!("\"{}\"", word.replace('"', "\"\"")))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// The words `highlight()` marked in a column's text, lowercased.
fn marked(text: &str) -> Vec<String> {
    text.split(OPEN).skip(1).filter_map(|rest| rest.split_once(CLOSE)).map(|(word, _)| word.to_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, digest: &str, parts: Parts) -> Indexed {
        Indexed { path: path.into(), digest: digest.into(), parts }
    }

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_record_is_found_by_its_question_and_the_closest_comes_first() {
        let store = Store::open_in_memory().unwrap();
        let events = Parts {
            title: "Message broker".into(),
            question: "Which broker carries the order events between services?".into(),
            ..Parts::default()
        };
        let cache =
            Parts { title: "Cache".into(), rationale: "Orders are cached in Postgres.".into(), ..Parts::default() };
        let other = Parts { title: "Tabs".into(), dissent: "Spaces.".into(), ..Parts::default() };
        let records = [record("a.md", "1", events), record("b.md", "1", cache), record("c.md", "1", other)];
        store.index_records("/repo", &records).unwrap();
        let hits = store.search_records("/repo", &words("order events"), 10).unwrap();
        let paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["a.md", "b.md"], "{hits:?}");
        assert!(hits[0].relevance > hits[1].relevance && hits[1].relevance > 0.0, "{hits:?}");
        assert_eq!(hits[0].matched, ["events", "order"], "the record's words, stemmed to the query's");
        assert_eq!(hits[1].matched, ["orders"]);
        assert!(store.search_records("/elsewhere", &words("order"), 10).unwrap().is_empty(), "another repository");
        assert!(store.search_records("/repo", &words("\" OR * NEAR("), 10).unwrap().is_empty(), "no FTS syntax");
    }

    #[test]
    fn a_changed_record_is_indexed_again_and_a_removed_one_dropped() {
        let store = Store::open_in_memory().unwrap();
        let parts = |question: &str| Parts { question: question.into(), ..Parts::default() };
        store
            .index_records("/repo", &[record("a.md", "1", parts("kafka")), record("b.md", "1", parts("nats"))])
            .unwrap();
        store.index_records("/repo", &[record("a.md", "2", parts("rabbitmq"))]).unwrap();
        assert!(store.search_records("/repo", &words("kafka nats"), 10).unwrap().is_empty());
        assert_eq!(store.search_records("/repo", &words("rabbitmq"), 10).unwrap()[0].path, "a.md");
        let rows: i64 = store.conn.query_row("SELECT count(*) FROM search_sources", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 1);
    }
}
