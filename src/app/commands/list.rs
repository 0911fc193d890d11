//! `--list` and `--show`: the debates of this repository (or all), and one debate in
//! full, as text or JSON.

use std::path::Path;

use crate::app::shared::existing;
use crate::app::shared::report;
use crate::error::Result;
use crate::model::Listing;
use crate::repo::Here;
use crate::store::Store;
use crate::terminal::{self, Terminal};
use crate::view::{Detail, ServerView, Summary};

pub fn list(db_path: &Path, all: bool, limit: u32, json: bool) -> Result<()> {
    let (summaries, scope) = summaries(db_path, &Here::WorkingDirectory, all, limit)?;
    if json {
        terminal::print_json(&summaries)?;
    } else {
        terminal::list::print(&summaries, &scope, all)?;
    }
    Ok(())
}

/// The debates of the repository `here` (with `all`, of every repository), newest
/// first, as `debate list --json` prints them; and which debates they are, in words.
pub fn summaries(db_path: &Path, here: &Here, all: bool, limit: u32) -> Result<(Vec<Summary>, String)> {
    summaries_of(db_path, here, all, limit, None)
}

/// `summaries`, of only the debates whose repository `keep` keeps (a door's confinement).
pub fn summaries_of(
    db_path: &Path,
    here: &Here,
    all: bool,
    limit: u32,
    keep: Option<&dyn Fn(&Path) -> bool>,
) -> Result<(Vec<Summary>, String)> {
    let root = here.root()?;
    let scope = if all { "in any repository".to_string() } else { format!("in {}", root.display()) };
    // Kept rows are counted once kept: the database is read to its end then.
    let read = if keep.is_some() { u32::MAX } else { limit };
    let rows: Vec<Listing> = match Store::open_existing(db_path)? {
        Some(store) => store.list((!all).then(|| root.to_string_lossy()).as_deref(), read)?,
        None => Vec::new(),
    };
    let keep = keep.unwrap_or(&|_| true);
    let kept = rows.iter().map(Summary::from).filter(|summary| keep(Path::new(&summary.repository)));
    Ok((kept.take(limit as usize).map(report::on_disk).collect(), scope))
}

/// `debate show`: the debate as JSON, or as text, on a terminal through the pager if `paged`.
pub fn show(db_path: &Path, id: &str, json: bool, paged: bool, terminal: &Terminal) -> Result<()> {
    let detail = detail(db_path, id, &Here::WorkingDirectory, terminal)?;
    if json {
        terminal::print_json(&detail)?;
    } else {
        terminal::pager::print(&terminal::show::text(&detail), paged)?;
    }
    Ok(())
}

/// The debate `id` (or the one whose record that path is, in the repository `here`) in
/// full, as `debate show --json` prints it.
pub fn detail(db_path: &Path, id: &str, here: &Here, terminal: &Terminal) -> Result<Detail> {
    let (state, imported) = existing::read(db_path, id, None, here)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    detail_of(db_path, &state)
}

/// The debate in full as `show --json` gives it: with what its files say (the record's
/// status and signature, the issue draft) and the servers this database knows.
pub fn detail_of(db_path: &Path, state: &crate::model::DebateState) -> Result<Detail> {
    let mut detail = Detail::of(state);
    detail.summary = report::on_disk(detail.summary);
    detail.servers = servers(db_path, state)?;
    Ok(detail)
}

/// The model servers the debate's providers use that this database learned about.
fn servers(db_path: &Path, state: &crate::model::DebateState) -> Result<Vec<ServerView>> {
    let Some(store) = Store::open_existing(db_path)? else { return Ok(Vec::new()) };
    let mut urls: Vec<&str> = state.snapshot.providers.values().filter_map(|p| p.base_url.as_deref()).collect();
    urls.dedup();
    let mut servers = Vec::new();
    for base_url in urls {
        if let Some(at_once) = store.learnt_at_once(base_url)? {
            servers.push(ServerView {
                base_url: base_url.to_string(),
                serves_at_once: at_once.requests,
                learned_from: at_once.learned_from,
            });
        }
    }
    Ok(servers)
}
