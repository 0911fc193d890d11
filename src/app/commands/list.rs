//! `debate list` (and `--list`): the debates of this repository (or all), newest first,
//! as text or JSON.

use std::path::Path;

use crate::app::shared::report;
use crate::error::Result;
use crate::model::Listing;
use crate::repo::Here;
use crate::store::Store;
use crate::terminal;
use crate::view::Summary;

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
