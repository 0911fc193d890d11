//! `debate search QUERY`: the decision records of this repository ranked against a
//! query, each with its one-line decision and its status — what to read before proposing
//! a change the team may already have decided.

use std::path::Path;

use crate::app::shared::input;
use crate::context;
use crate::error::{Error, Result};
use crate::model::{EarlierDecision, is_debate_id};
use crate::moderator::briefing;
use crate::record::WorkTree;
use crate::repo::Here;
use crate::settings;
use crate::terminal;
use crate::text::secrets;
use crate::text::untrusted::one_line;
use crate::view::{FoundView, SearchView};

pub fn run(query: &str, limit: u32, config: Option<&Path>, json: bool) -> Result<()> {
    let found = search(query, limit, config, &Here::WorkingDirectory)?;
    match json {
        true => terminal::print_json(&found)?,
        false => terminal::print_out(&terminal::list::found(&found))?,
    }
    Ok(())
}

/// The records of the repository `here` (its decision directories and the one its
/// settings name), the `limit` most relevant to `query` first, as the debaters' briefing
/// ranks earlier decisions: those that share its words, then the accepted ones, newest
/// first. What `debate search --json` prints.
pub fn search(query: &str, limit: u32, config: Option<&Path>, here: &Here) -> Result<SearchView> {
    let query = input::read_query(query)?;
    let root = here.root()?;
    let records = records(&root, config)?;
    let searched = records.len();
    let (decisions, ids): (Vec<_>, Vec<_>) = records.into_iter().unzip();
    let relevance = briefing::relevance(&query, &decisions);
    let of_path = |path: &str| {
        let at = decisions.iter().position(|d| d.path == path);
        at.map_or((None, 0.0), |at| (ids[at].clone(), relevance[at]))
    };
    let ranked = briefing::rank(&query, decisions.clone(), limit as usize);
    let records = ranked
        .into_iter()
        .map(|decision| {
            let (id, relevance) = of_path(&decision.path);
            FoundView {
                id,
                relevance,
                decision: one_line(&decision.decision),
                title: one_line(&decision.title),
                status: one_line(&decision.status),
                path: decision.path,
                date: decision.date,
                superseded_by: decision.superseded_by,
            }
        })
        .collect();
    Ok(SearchView { query, repository: root.display().to_string(), searched, records })
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
        let found = search("Redis for caching?", 10, None, &Here::Repository(root.clone())).unwrap();
        assert_eq!(found.searched, 3);
        let paths: Vec<&str> = found.records.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["docs/decisions/0001-cache.md", "docs/decisions/0002-queue.md"], "{found:?}");
        let first = &found.records[0];
        assert_eq!((first.id.as_deref(), first.status.as_str()), (Some("DEB-abc123"), "proposed"));
        assert!(first.relevance > 0.0 && found.records[1].relevance == 0.0, "{found:?}");
        assert!(search(" \u{200b} ", 10, None, &Here::Repository(root)).is_err(), "an invisible query");
    }
}
