//! `debate accept|reject|deprecate <ID|PATH>`: find the record — a path inside the
//! repository, or a debate id looked up in the state database and then in the records'
//! front matter — and give it its new status (`record::lifecycle`).

use std::path::{Path, PathBuf};

use crate::app::invocation::request::LifecycleRequest;
use crate::app::shared::existing;
use crate::app::shared::project;
use crate::error::{Error, Result};
use crate::model::Status;
use crate::record::lifecycle::{self, Request};
use crate::record::seal::Sealer;
use crate::settings;
use crate::store::{Store, StoreError};
use crate::terminal::{self, Terminal};
use crate::view::StatusChange;

pub fn run(args: &LifecycleRequest, db_path: &Path, json: bool, terminal: &Terminal) -> Result<()> {
    let (change, said) = change(args, db_path, terminal)?;
    terminal.say(&said);
    match json {
        true => terminal::print_json(&change)?,
        false => terminal::print_out(&format!("{}\n", change.path))?,
    }
    Ok(())
}

/// The record given its new status (warnings said on the way): the change as `--json`
/// prints it, and what happened in a sentence.
pub fn change(args: &LifecycleRequest, db_path: &Path, terminal: &Terminal) -> Result<(StatusChange, String)> {
    let verdict = args.verdict;
    let what = verdict.verb();
    let here = args.here.root()?;
    let (root, relative) = locate(args, &here, db_path, what)?;
    let mut loaded = settings::load(&root, args.config.as_deref())?;
    loaded.settings.record.commit &= !args.no_commit;
    let date = today();
    let sealer = Sealer::new(&root, loaded.settings.signing.key.clone());
    let request = Request {
        root: &root,
        relative: Path::new(&relative),
        verdict,
        date: &date,
        settings: &loaded.settings.record,
        sealer: &sealer,
    };
    let changed = lifecycle::change(&request)?;
    for warning in &changed.warnings {
        terminal.warn(warning);
    }
    let change = StatusChange {
        path: changed.path.display().to_string(),
        status: changed.status,
        previous_status: changed.previous,
        changed: changed.changed,
        signed_again: changed.signed_again,
        commit: changed.commit,
        not_committed: changed.not_committed,
    };
    let said = said(&change, &relative);
    Ok((change, said))
}

/// What happened, in a sentence.
fn said(change: &StatusChange, relative: &str) -> String {
    if !change.changed {
        return format!("{relative} already is {}; nothing changed.", change.status);
    }
    let what = match change.signed_again {
        true => format!("{relative} is {}, as it was set since it was signed; signed again as it is", change.status),
        false => format!("{relative} is now {} (was {})", change.status, change.previous_status),
    };
    match (&change.commit, &change.not_committed) {
        (Some(commit), _) => format!("{what}; committed as {}.", &commit[..commit.len().min(10)]),
        (None, why) => format!("{what}; written, not committed ({}).", why.as_deref().unwrap_or("committing is off")),
    }
}

/// The repository root and the record's path inside it. A debate id is looked up in
/// the state database first (its record, where the debate wrote it), then in the front
/// matter of the records in the decision directories here; anything else is a path.
fn locate(args: &LifecycleRequest, here: &Path, db_path: &Path, what: &str) -> Result<(PathBuf, String)> {
    let mut target = args.target.trim().to_string();
    // Every form `show` takes: `DEB-0ym064`, `deb-0ym064`, `0ym064`, a unique prefix.
    let looks_like_id = !target.contains(['/', '.'])
        && target.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !here.join(&target).exists();
    let mut elsewhere = None;
    if looks_like_id {
        if !target.to_ascii_lowercase().starts_with("deb-") {
            target = format!("DEB-{target}");
        }
        match from_database(&target, db_path, here, what)? {
            Lookup::Here(root, relative) => {
                // The stored path gets the checks a path on the command line gets: a
                // link, `.git` or a nested repository is no record to rewrite.
                let record = settings::load(&root, args.config.as_deref())?.settings.record;
                let relative = project::locate(&root, &relative, &record, what)?;
                return Ok((root, relative));
            }
            Lookup::Elsewhere { id, why } => (target, elsewhere) = (id, Some(why)),
            Lookup::Unknown if target.len() != "DEB-k3x9q2".len() => {
                return Err(Error::input(format!("{what} {target}: no debate in the state database has that id"))
                    .with_hint("give the whole id (DEB- and 6 characters) or the record's path"));
            }
            Lookup::Unknown => {}
        }
    }
    let record = settings::load(here, args.config.as_deref())?.settings.record;
    let located = project::locate(here, &target, &record, what);
    // A pull request's record a reviewer on the default branch names by its id.
    if located.is_err()
        && looks_like_id
        && let Some(on_branch) = existing::on_another_branch(here, &target, args.config.as_deref())?
    {
        return Err(on_branch);
    }
    match (located, elsewhere) {
        (Ok(relative), _) => Ok((here.to_path_buf(), relative)),
        (Err(_), Some(why)) => Err(Error::input(format!("{what} {target}: {why}"))
            .with_hint("check out the branch that holds the record (or merge its pull request), or give its path")),
        (Err(err), None) => Err(err),
    }
}

/// What the state database knows of a debate id.
enum Lookup {
    /// The debate's record, in the work tree it was written to.
    Here(PathBuf, String),
    /// The debate (its whole id) is known, but its record is not in a work tree.
    Elsewhere {
        id: String,
        why: String,
    },
    Unknown,
}

fn from_database(id: &str, db_path: &Path, here: &Path, what: &str) -> Result<Lookup> {
    let Some(store) = Store::open_existing(db_path)? else { return Ok(Lookup::Unknown) };
    let id = match store.resolve_id(id) {
        Ok(id) => id,
        Err(StoreError::UnknownId(_)) => return Ok(Lookup::Unknown),
        Err(err) => return Err(err.into()),
    };
    let state = store.load(&id)?;
    if state.status != Status::Complete {
        return Err(Error::input(format!(
            "{what} {id}: the debate is {}, so it has no finished record yet",
            state.status.as_str()
        ))
        .with_hint(format!("finish it with `debate resume {id}` first")));
    }
    let root = crate::repo::canonical(Path::new(&state.repo_root));
    // A debate of another repository: only a record here that carries its id is this
    // command's to change.
    if root != here {
        return Ok(Lookup::Elsewhere {
            id,
            why: format!("it was debated in {}, and no record here carries it", root.display()),
        });
    }
    let recorded = state.record_path.as_deref().map(Path::new).filter(|p| p.is_file()).map(crate::repo::canonical);
    if let Some(relative) = recorded.as_deref().and_then(|path| path.strip_prefix(&root).ok()) {
        return Ok(Lookup::Here(root.clone(), relative.to_string_lossy().replace('\\', "/")));
    }
    let written = state.record_path.as_deref().unwrap_or("(none)");
    let why = match &state.snapshot.branch {
        Some(branch) => format!("its record {written} is on the branch {branch}, not in this work tree"),
        None => format!("its record {written} is not there, and no record here carries that id"),
    };
    Ok(Lookup::Elsewhere { id, why })
}

/// Today as `YYYY-MM-DD` (UTC, as records are dated). Test builds may fix it with
/// `DEBATE_TEST_TODAY`.
fn today() -> String {
    #[cfg(feature = "failpoints")]
    if let Ok(date) = std::env::var("DEBATE_TEST_TODAY") {
        return date;
    }
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(changed: bool, commit: Option<&str>, not_committed: Option<&str>) -> StatusChange {
        StatusChange {
            path: "/repo/docs/decisions/0001-a.md".into(),
            status: "accepted".into(),
            previous_status: "proposed".into(),
            changed,
            signed_again: false,
            commit: commit.map(str::to_string),
            not_committed: not_committed.map(str::to_string),
        }
    }

    #[test]
    fn the_sentence_says_what_happened_and_why_not_committed() {
        let relative = "docs/decisions/0001-a.md";
        assert_eq!(
            said(&changed(false, None, None), relative),
            format!("{relative} already is accepted; nothing changed.")
        );
        assert_eq!(
            said(&changed(true, Some("3f9c2a1e0b77aa"), None), relative),
            format!("{relative} is now accepted (was proposed); committed as 3f9c2a1e0b.")
        );
        assert_eq!(
            said(&changed(true, None, Some("HEAD is detached")), relative),
            format!("{relative} is now accepted (was proposed); written, not committed (HEAD is detached).")
        );
    }
}
