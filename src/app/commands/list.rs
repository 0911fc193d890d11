//! `debate list` (and `--list`): the debates of this repository (or all), newest first,
//! as text or JSON; with `--due`, the accepted records whose review date has passed.

use std::path::Path;

use crate::app::shared::{project, report};
use crate::error::Result;
use crate::github::{GithubError, api};
use crate::model::Listing;
use crate::repo::Here;
use crate::store::Store;
use crate::terminal::{self, Terminal};
use crate::text::markdown;
use crate::text::untrusted::one_line;
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

/// A record due for review: accepted, and its Review By day passed.
#[derive(Debug, serde::Serialize)]
pub struct Due {
    pub path: String,
    pub title: String,
    pub status: String,
    pub review_by: String,
}

/// `debate list --due`: the accepted records of this repository whose review date is
/// before today, the longest overdue first.
pub async fn due(config: Option<&Path>, github_issue: bool, json: bool, terminal: &Terminal) -> Result<()> {
    let root = crate::repo::around_working_directory()?;
    let directory = project::record_settings(&root, config, terminal)?.directory.0;
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let mut found: Vec<Due> = crate::context::record_texts(&root, &directory, &crate::text::secrets::keys())
        .into_iter()
        .filter_map(|(path, text)| {
            let fields = crate::adr::read(&path, &text)?;
            let review_by = fields.review_by.filter(|day| crate::model::is_day(day) && *day < today)?;
            fields.status.to_lowercase().starts_with("accepted").then(|| Due {
                path,
                title: one_line(&fields.title),
                status: one_line(&fields.status),
                review_by,
            })
        })
        .collect();
    found.sort_by(|a, b| a.review_by.cmp(&b.review_by).then(a.path.cmp(&b.path)));
    if github_issue {
        let repository = std::env::var("GITHUB_REPOSITORY").map_err(|_| GithubError::Missing("GITHUB_REPOSITORY"))?;
        let client = api::Client::from_env()?;
        let kept = client.keep_issue(&repository, DUE_MARKER, DUE_TITLE, issue(&found).as_deref()).await?;
        terminal.say(&format!("The issue of decisions due for review: {}.", kept.said()));
    }
    if json {
        terminal::print_json(&found)?;
        return Ok(());
    }
    let mut out = String::new();
    for due in &found {
        out.push_str(&format!("{}  due {}  {}\n", one_line(&due.path), due.review_by, due.title));
    }
    if found.is_empty() {
        out.push_str(&format!("No accepted record in {} is past its review date.\n", root.display()));
    }
    terminal::print_out(&out)?;
    Ok(())
}

/// Marks the one issue `list --due --github-issue` keeps.
const DUE_MARKER: &str = "<!-- debate:due -->";
const DUE_TITLE: &str = "Decisions due for review";

/// The issue's markdown: a task per record due, the longest overdue first; `None` when
/// none is. What the records wrote is escaped as text.
fn issue(due: &[Due]) -> Option<String> {
    if due.is_empty() {
        return None;
    }
    let mut out = String::from(
        "These accepted decisions have passed the date they set to be looked at again. For each, \
         read its caveats: confirm it with `debate guard review-by RECORD YYYY-MM-DD`, or reopen it \
         with a new debate that supersedes it.\n\n",
    );
    // An issue's body holds at most 65,536 characters.
    for d in due.iter().take(100) {
        let path = markdown::quiet_line(&d.path);
        out.push_str(&format!("- [ ] **{}** ({path}), due {}\n", markdown::quiet_line(&d.title), d.review_by));
    }
    if due.len() > 100 {
        out.push_str(&format!("- and {} more: `debate list --due` lists them all\n", due.len() - 100));
    }
    Some(out)
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
