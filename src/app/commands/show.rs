//! `debate show` (and `--show`): one debate in full, the decision first — as text, on a
//! terminal through the pager, or as the `--json` document that MCP's `show_debate` and
//! `export --format json` give too.

use std::path::Path;

use crate::app::shared::existing;
use crate::app::shared::report;
use crate::error::Result;
use crate::model::DebateState;
use crate::repo::Here;
use crate::store::Store;
use crate::terminal::{self, Terminal};
use crate::view::{Detail, ServerView};

/// `debate show`: the debate as JSON, or as text, on a terminal through the pager if `paged`.
pub fn run(db_path: &Path, id: &str, json: bool, paged: bool, terminal: &Terminal) -> Result<()> {
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
pub fn detail_of(db_path: &Path, state: &DebateState) -> Result<Detail> {
    let mut detail = Detail::of(state);
    detail.summary = report::on_disk(detail.summary);
    detail.servers = servers(db_path, state)?;
    Ok(detail)
}

/// The model servers the debate's providers use that this database learned about.
fn servers(db_path: &Path, state: &DebateState) -> Result<Vec<ServerView>> {
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
