//! `--list` and `--show`: the debates of this repository (or all), and one debate in
//! full, as text or JSON.

use std::path::Path;

use crate::app::shared::existing;
use crate::app::shared::report;
use crate::error::Result;
use crate::model::Listing;
use crate::store::Store;
use crate::terminal::{self, Terminal};
use crate::view::{Detail, ServerView, Summary};

pub fn list(db_path: &Path, all: bool, limit: u32, json: bool) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let scope = if all { "in any repository".to_string() } else { format!("in {}", root.display()) };
    let rows: Vec<Listing> = match Store::open_existing(db_path)? {
        Some(store) => store.list((!all).then(|| root.to_string_lossy()).as_deref(), limit)?,
        None => Vec::new(),
    };
    let summaries: Vec<Summary> = rows.iter().map(|row| report::on_disk(Summary::from(row))).collect();
    if json {
        terminal::print_json(&summaries)?;
    } else {
        terminal::list::print(&summaries, &scope, all)?;
    }
    Ok(())
}

/// `debate show`: the debate as JSON, or as text, on a terminal through the pager if `paged`.
pub fn show(db_path: &Path, id: &str, json: bool, paged: bool, terminal: &Terminal) -> Result<()> {
    let (state, imported) = existing::read(db_path, id, None)?;
    if let Some(imported) = imported {
        terminal.say(&imported.said(&state.id));
    }
    let detail = detail(db_path, &state)?;
    if json {
        terminal::print_json(&detail)?;
    } else {
        terminal::pager::print(&terminal::show::text(&detail), paged)?;
    }
    Ok(())
}

/// The debate in full as `show --json` gives it: with what its files say (the record's
/// status and signature, the issue draft) and the servers this database knows.
pub fn detail(db_path: &Path, state: &crate::model::DebateState) -> Result<Detail> {
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
