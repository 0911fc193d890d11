//! `debate search QUERY`: the decision records of this repository ranked against a
//! query by the decision index (SQLite FTS5, BM25 over each record's title, question,
//! options, rationale, consequences and dissent), each with its one-line decision, its
//! status and the words it matched — what to read before proposing a change the team may
//! already have decided.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::app::shared::input;
use crate::context;
use crate::error::{Error, Result};
use crate::model::{EarlierDecision, is_debate_id};
use crate::moderator::briefing;
use crate::record::WorkTree;
use crate::repo::Here;
use crate::settings;
use crate::store::{Indexed, Parts, Store};
use crate::terminal;
use crate::text::secrets;
use crate::text::untrusted::one_line;
use crate::view::{FoundView, SearchView};

pub fn run(query: &str, limit: u32, config: Option<&Path>, db: &Path, json: bool) -> Result<()> {
    let found = search(query, limit, config, &Here::WorkingDirectory, db)?;
    match json {
        true => terminal::print_json(&found)?,
        false => terminal::print_out(&terminal::list::found(&found))?,
    }
    Ok(())
}

/// The records of the repository `here` (its decision directories and the one its
/// settings name), the `limit` most relevant to `query` first: those the decision index
/// (the state database at `db`, or one in memory while there is none) finds by the
/// query's words in their title, question, options, rationale, consequences or dissent,
/// closest first, each with the words it matched; then the standing (accepted) ones,
/// newest first. What `debate search --json` prints.
pub fn search(query: &str, limit: u32, config: Option<&Path>, here: &Here, db: &Path) -> Result<SearchView> {
    let query = input::read_query(query)?;
    let root = here.root()?;
    let directory = settings::load(&root, config)?.settings.record.directory.0;
    let texts = context::record_texts(&root, &directory, &secrets::keys());
    let mut records = Vec::new();
    let mut indexed = Vec::new();
    for (path, text) in &texts {
        let Some((decision, id)) = context::record(path, text) else { continue };
        let digest: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        indexed.push(Indexed { path: path.clone(), digest, parts: parts(&decision.title, text) });
        records.push((decision, id));
    }
    let store = match Store::open_existing(db)? {
        Some(store) => store,
        None => Store::open_in_memory()?,
    };
    let repository = root.display().to_string();
    store.index_records(&repository, &indexed)?;
    let hits = store.search_records(&repository, &query_words(&query), limit as usize)?;
    let searched = records.len();
    let found = |path: &str| records.iter().find(|(decision, _)| decision.path == path);
    let view = |(decision, id): &(EarlierDecision, Option<String>), relevance, matched| FoundView {
        id: id.clone(),
        relevance,
        matched,
        decision: one_line(&decision.decision),
        title: one_line(&decision.title),
        status: one_line(&decision.status),
        path: decision.path.clone(),
        date: decision.date.clone(),
        superseded_by: decision.superseded_by.clone(),
    };
    let mut listed: Vec<FoundView> = Vec::new();
    for hit in &hits {
        if let Some(record) = found(&hit.path) {
            listed.push(view(record, hit.relevance, hit.matched.clone()));
        }
    }
    // A superseded record after those that stand, however close.
    listed.sort_by_key(|found| found.superseded_by.is_some() || found.status.to_lowercase().starts_with("superseded"));
    let rest: Vec<EarlierDecision> = records
        .iter()
        .filter(|(decision, _)| !hits.iter().any(|hit| hit.path == decision.path))
        .map(|(decision, _)| decision.clone())
        .collect();
    for decision in briefing::rank(&query, rest, (limit as usize).saturating_sub(listed.len())) {
        if let Some(record) = found(&decision.path) {
            listed.push(view(record, 0.0, Vec::new()));
        }
    }
    Ok(SearchView { query, repository, searched, records: listed })
}

/// The query's words as the index is asked them: lowercase, without the words that say
/// nothing about a decision (`should`, `we`, `use` …); each its own term, any of them a
/// match.
fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|word| word.chars().count() > 1 && !briefing::is_stop_word(word))
        .collect();
    words.dedup();
    words
}

/// A record's text by the parts the index ranks: its title; its question (the question,
/// context and problem statement, decision drivers); the options considered; the
/// rationale (the decision, the recommendation, agreement); its consequences (and
/// confirmation, action items); the dissent (dissenting view, key tensions); and the
/// rest. A section named by none of these is of the section it is under; the debate's
/// log, provenance and transcript are left out (they repeat the rest).
fn parts(title: &str, text: &str) -> Parts {
    let mut parts = Parts { title: title.to_string(), ..Parts::default() };
    let (mut section, mut under, mut fenced) = (Some(Part::Rest), Some(Part::Rest), false);
    let body = text.strip_prefix("---\n").and_then(|rest| rest.split_once("\n---\n")).map_or(text, |(_, body)| body);
    for line in body.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let level = line.chars().take_while(|c| *c == '#').count();
        if !fenced && (1..=6).contains(&level) && line[level..].starts_with(' ') {
            let heading = line[level..].trim().to_lowercase();
            let part = Part::of(&heading);
            match level {
                1 => continue,
                2 => (section, under) = (part.unwrap_or(Some(Part::Rest)), part.unwrap_or(Some(Part::Rest))),
                _ => section = part.unwrap_or(under),
            }
            continue;
        }
        let Some(part) = section else { continue };
        let into = match part {
            Part::Question => &mut parts.question,
            Part::Options => &mut parts.options,
            Part::Rationale => &mut parts.rationale,
            Part::Consequences => &mut parts.consequences,
            Part::Dissent => &mut parts.dissent,
            Part::Rest => &mut parts.rest,
        };
        into.push_str(line);
        into.push('\n');
    }
    parts
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Question,
    Options,
    Rationale,
    Consequences,
    Dissent,
    Rest,
}

impl Part {
    /// The part a heading names: `Some(None)` for a section left out, `None` for one no
    /// part names (it is of the section it is under).
    fn of(heading: &str) -> Option<Option<Part>> {
        let is = |names: &[&str]| names.iter().any(|name| heading == *name || heading.starts_with(&format!("{name} ")));
        Some(Some(match () {
            _ if is(&["debate log", "provenance", "transcript", "status"]) => return Some(None),
            _ if is(&["question", "context and problem statement", "context", "problem statement", "problem"]) => {
                Part::Question
            }
            _ if is(&["decision drivers"]) => Part::Question,
            _ if is(&["considered options", "options", "pros and cons of the options"]) => Part::Options,
            _ if is(&["decision outcome", "decision", "recommendation", "rationale", "chosen option"]) => {
                Part::Rationale
            }
            _ if is(&["points of agreement", "justification"]) => Part::Rationale,
            _ if is(&["consequences", "positive consequences", "negative consequences", "confirmation"]) => {
                Part::Consequences
            }
            _ if is(&["action items", "more information"]) => Part::Consequences,
            _ if is(&["dissenting view", "dissent", "key tensions"]) => Part::Dissent,
            _ => return None,
        }))
    }
}

/// Every decision record of the repository at `root` — in the decision directories and
/// the one its settings name — with secrets masked, and the debate id of those debates
/// wrote.
pub fn records(root: &Path, config: Option<&Path>) -> Result<Vec<(EarlierDecision, Option<String>)>> {
    let directory = settings::load(root, config)?.settings.record.directory.0;
    Ok(context::records(root, &directory, &secrets::keys()))
}

/// The text of the one record in the repository at `root` that the debate `id` (its
/// whole id, any case) wrote, read from the work tree without following a link.
pub fn record_text(root: &Path, id: &str, config: Option<&Path>) -> Result<String> {
    let bare = id.trim().to_ascii_lowercase();
    let whole = format!("DEB-{}", bare.strip_prefix("deb-").unwrap_or(&bare));
    if !is_debate_id(&whole) {
        return Err(Error::input(format!("{id:?} is no debate id (DEB- and 6 characters)")));
    }
    let directory = settings::load(root, config)?.settings.record.directory.0;
    match context::records_with_id(root, &whole, &directory).as_slice() {
        [relative] => {
            let bytes = WorkTree::open(root)?.read_existing(Path::new(relative))?;
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        [] => Err(Error::input(format!("no decision record in {} carries {whole}", root.display()))),
        several => Err(Error::input(format!("several records carry {whole}: {}", several.join(", ")))
            .with_hint("keep one record per debate")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(root: &Path, name: &str, text: &str) {
        std::fs::create_dir_all(root.join("docs/decisions")).unwrap();
        std::fs::write(root.join("docs/decisions").join(name), text).unwrap();
    }

    #[test]
    fn the_records_sharing_the_querys_words_come_first_then_the_standing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::repo::canonical(dir.path());
        record(
            &root,
            "0001-cache.md",
            "---\nid: DEB-abc123\nstatus: proposed\n---\n# Decision: Cache in Postgres\n\n## Recommendation\nCache in Postgres, not Redis.\n",
        );
        record(&root, "0002-queue.md", "# Use Kafka for events\n\nStatus: accepted\n\n## Decision\nWe use Kafka.\n");
        record(&root, "0003-style.md", "# Tabs\n\nStatus: rejected\n\n## Decision\nSpaces.\n");
        let db = dir.path().join("no-database-yet.sqlite3");
        let found = search("Redis for caching?", 10, None, &Here::Repository(root.clone()), &db).unwrap();
        assert!(!db.exists(), "searching creates no state database");
        assert_eq!(found.searched, 3);
        let paths: Vec<&str> = found.records.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["docs/decisions/0001-cache.md", "docs/decisions/0002-queue.md"], "{found:?}");
        let first = &found.records[0];
        assert_eq!((first.id.as_deref(), first.status.as_str()), (Some("DEB-abc123"), "proposed"));
        assert!(first.relevance > 0.0 && found.records[1].relevance == 0.0, "{found:?}");
        assert_eq!(first.matched, ["cache", "redis"], "{found:?}");
        assert!(search(" \u{200b} ", 10, None, &Here::Repository(root), &db).is_err(), "an invisible query");
    }

    #[test]
    fn a_record_splits_into_the_parts_the_index_ranks() {
        let text = "---\nid: DEB-abc123\nquestion: front\n---\n# Title\n\n## Question\n\nWhich broker for the order events?\n\n## Decision Outcome\n\nKafka.\n\n### Consequences\n\nOne more service.\n\n## Considered Options\n\n### NATS\n\nSmall.\n\n## Dissenting View\n\nRabbitMQ.\n\n## Debate Log\n\n| noise |\n\n## Perspectives Considered\n\n### Security\n\n```\n## not a heading\n```\n";
        let parts = parts("Title", text);
        assert_eq!(parts.question.trim(), "Which broker for the order events?");
        assert_eq!(parts.rationale.trim(), "Kafka.");
        assert_eq!(parts.consequences.trim(), "One more service.");
        assert!(parts.options.contains("Small."), "{parts:?}");
        assert_eq!(parts.dissent.trim(), "RabbitMQ.");
        assert!(!parts.rest.contains("noise") && !parts.rest.contains("front"), "{parts:?}");
        assert_eq!(query_words("Should we use Kafka for the order events?"), ["kafka", "order", "events"]);
    }
}
