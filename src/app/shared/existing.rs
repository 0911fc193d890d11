//! A debate already in the state database, found by its id (any case, a unique prefix),
//! or — in a clone that never ran it — read back from its committed record here and
//! imported on first use.

use std::path::{Path, PathBuf};

use crate::app::shared::project;
use crate::error::{Error, Result};
use crate::model::{DebateState, Status, is_debate_id};
use crate::record::{self, Templates};
use crate::repo::Here;
use crate::settings;
use crate::store::{Store, StoreError};
use crate::text::shell_quote;

pub fn load(db_path: &Path, id: &str) -> Result<(Store, DebateState)> {
    let store = Store::open_existing(db_path)?.ok_or_else(|| {
        Error::input(format!("no debate with id {id:?} (there is no state database at {} yet)", db_path.display()))
    })?;
    let full = store.resolve_id(id)?;
    let state = store.load(&full)?;
    Ok((store, state))
}

/// How a debate came from its record into this database, or was read from it.
pub enum Imported {
    /// This machine had never run it.
    First(String),
    /// A review elsewhere revised it since this machine ran it.
    Revised(String),
    /// Its guards or review date were changed elsewhere (`debate guard`) since.
    Amended(String),
    /// A record here carries a debate of the id this database ran in another repository:
    /// it was read from the record and left out of the database.
    Apart { record: String, repository: String },
    /// Its record is on a branch that is not checked out here: read from git, not stored.
    OnBranch { record: String, branch: String },
}

impl Imported {
    /// What the terminal says about it.
    pub fn said(&self, id: &str) -> String {
        match self {
            Imported::First(record) => {
                format!("Read {id} back from its record {record}: this machine had never run it.")
            }
            Imported::Revised(record) => {
                format!(
                    "Read {id}'s revision from its record {record}: it was reviewed elsewhere since this machine ran it."
                )
            }
            Imported::Amended(record) => {
                format!(
                    "Read {id}'s guards from its record {record}: they were changed elsewhere since this machine ran it."
                )
            }
            Imported::Apart { record, repository } => {
                format!("Read {id} from its record {record}; this database's {id} is the one debated in {repository}.")
            }
            Imported::OnBranch { record, branch } => {
                format!("Read {id} from its record {record} on the branch {branch}, which is not checked out here.")
            }
        }
    }
}

/// A debate named by its id or its record's path, as this database has it or, when the
/// committed record carries more (a clone that never ran it, a teammate's review), as the
/// record has it, imported. A record here that names a debate this database ran in
/// another repository is refused, with both places: a debate is its repository's.
pub fn find(
    db_path: &Path,
    target: &str,
    config: Option<&Path>,
    here: &Here,
) -> Result<(Store, DebateState, Option<Imported>)> {
    match locate(db_path, target, config, here)? {
        Located::Stored { store, state, record } => up_to_date(store, state, record),
        Located::Record(record) => import(db_path, record),
        Located::Apart { state, record } => Err(apart(&state, &record)),
        Located::OnBranch { branch, relative, .. } => Err(not_checked_out(target, &relative, &branch)),
    }
}

/// As `find`, to read only: a record here whose id this database ran in another
/// repository is read from the record itself, and nothing is stored.
pub fn read(
    db_path: &Path,
    target: &str,
    config: Option<&Path>,
    here: &Here,
) -> Result<(DebateState, Option<Imported>)> {
    match locate(db_path, target, config, here)? {
        Located::Stored { store, state, record } => up_to_date(store, state, record).map(|(_, s, i)| (s, i)),
        Located::Record(record) => import(db_path, record).map(|(_, s, i)| (s, i)),
        Located::Apart { state, record } => {
            let (read, _) = record.read_back()?;
            let repository = state.repo_root;
            Ok((read, Some(Imported::Apart { record: record.relative, repository })))
        }
        Located::OnBranch { branch, relative, state } => {
            Ok((*state, Some(Imported::OnBranch { record: relative, branch })))
        }
    }
}

/// A record that is on another branch: work on it there.
fn not_checked_out(target: &str, relative: &str, branch: &str) -> Error {
    let local = branch.strip_prefix("origin/").unwrap_or(branch);
    Error::input(format!(
        "the record of {target}, {relative}, is on the branch {branch}, which is not checked out here"
    ))
    .with_hint(format!("git switch {} and run it again", shell_quote(local)))
}

/// A command that rewrites `state`'s record (`doing` it, in words) finds it in this work
/// tree, or says where it is.
pub fn record_in_work_tree(state: &DebateState, doing: &str) -> Result<()> {
    let path = state.record_path.as_deref().unwrap_or_default();
    if Path::new(path).is_file() {
        return Ok(());
    }
    let (place, hint) = match &state.snapshot.branch {
        Some(branch) => (
            format!("on the branch {branch}"),
            format!("git switch {}, then run it again", crate::text::shell_quote(branch)),
        ),
        None => ("not there".to_string(), "restore the record (git checkout -- PATH), then run it again".to_string()),
    };
    Err(Error::input(format!("{doing} {}'s record {path}, which is {place}", state.id)).with_hint(hint))
}

/// Refuse a review of a completed debate from outside the repository it was debated in:
/// its revision would be committed there, not here.
pub fn here(state: &DebateState, here: &Here) -> Result<()> {
    let here = here.root()?;
    match same_repository(state, &here) {
        true => Ok(()),
        false => Err(Error::input(format!(
            "{} was debated in {}, not in this repository ({})",
            state.id,
            state.repo_root,
            here.display()
        ))
        .with_hint(format!(
            "run it there: cd {} && debate review {} …",
            shell_quote(&state.repo_root),
            state.id
        ))),
    }
}

/// Where a debate named on the command line is.
enum Located {
    /// This database's debate, with its record in its repository when one is found there.
    Stored { store: Store, state: DebateState, record: Option<RecordHere> },
    /// A record here whose debate this database does not have.
    Record(RecordHere),
    /// A record here that names a debate this database ran in another repository.
    Apart { state: DebateState, record: RecordHere },
    /// No record here carries the id, but one on a `decisions/*` branch does.
    OnBranch { branch: String, relative: String, state: Box<DebateState> },
}

fn locate(db_path: &Path, target: &str, config: Option<&Path>, here: &Here) -> Result<Located> {
    let named = match target.contains('/') || target.ends_with(".md") {
        true => Some(record_here(target, config, here)?),
        false => None,
    };
    let id = match &named {
        Some(record) => record.id()?,
        None => Some(target.to_string()),
    };
    match (named, id.map(|id| load(db_path, &id))) {
        (Some(record), Some(Ok((store, state)))) => match same_repository(&state, &record.root) {
            true => {
                let state = moved(&store, state, &record)?;
                Ok(Located::Stored { store, state, record: Some(record) })
            }
            false => Ok(Located::Apart { state, record }),
        },
        (None, Some(Ok((store, state)))) => {
            let record = its_record(&state, config)?;
            let state = match &record {
                Some(record) => moved(&store, state, record)?,
                None => state,
            };
            Ok(Located::Stored { store, state, record })
        }
        (Some(record), _) => Ok(Located::Record(record)),
        (None, unknown) => {
            // A teammate's debate whose record, carrying its id, is in this clone.
            let root = here.root()?;
            match (record_with_id(&root, target, config)?, unknown) {
                (Some(record), _) => Ok(Located::Record(record)),
                (None, unknown) => match on_a_branch(&root, target, config)? {
                    Some(located) => Ok(located),
                    None => Err(match unknown {
                        Some(Err(unknown)) => unknown,
                        _ => Error::input(format!("no debate with id {target:?}")),
                    }),
                },
            }
        }
    }
}

/// The debate as stored, or as its record carries it when a review elsewhere revised it
/// since (a teammate's review pulled here).
fn up_to_date(
    store: Store,
    state: DebateState,
    record: Option<RecordHere>,
) -> Result<(Store, DebateState, Option<Imported>)> {
    match record.and_then(|record| revised(&state, record)) {
        Some((read, commit, record)) if read.revisions.len() > state.revisions.len() => {
            store.import(&read, read.record_path.as_deref().unwrap_or_default(), commit.as_deref(), true)?;
            store.keep_carried_scorecards(&read)?;
            let state = store.load(&read.id)?;
            Ok((store, state, Some(Imported::Revised(record.relative))))
        }
        // The same conclusion with other guards: only the outcome is the record's.
        Some((read, _, record)) => {
            store.save_amended_outcome(&read.id, read.outcome.as_ref().expect("a complete debate's outcome"))?;
            let state = store.load(&read.id)?;
            Ok((store, state, Some(Imported::Amended(record.relative))))
        }
        None => Ok((store, state, None)),
    }
}

/// The debate `record` carries, stored in this database for the first time.
fn import(db_path: &Path, record: RecordHere) -> Result<(Store, DebateState, Option<Imported>)> {
    let (read, commit) = record.read_back()?;
    let store = Store::open(db_path)?;
    match store.import(&read, read.record_path.as_deref().unwrap_or_default(), commit.as_deref(), false) {
        // Another process read the same record back at the same moment.
        Err(StoreError::SavedElsewhere(_)) => {}
        other => other?,
    }
    // The scores its record shows, which the debate's import leaves to this.
    store.keep_carried_scorecards(&read)?;
    let state = store.load(&read.id)?;
    Ok((store, state, Some(Imported::First(record.relative))))
}

/// Whether the debate was debated in the repository at `root` (or in the repository
/// that moved there: its old place is gone and `root` holds the commit it started on).
fn same_repository(state: &DebateState, root: &Path) -> bool {
    let stored = Path::new(&state.repo_root);
    if crate::repo::canonical(stored) == crate::repo::canonical(root) {
        return true;
    }
    !stored.exists()
        && state.snapshot.started_on.as_deref().is_some_and(|commit| crate::repo::holds_commit(root, commit))
}

/// A record here that names a debate this database ran elsewhere.
fn apart(state: &DebateState, record: &RecordHere) -> Error {
    let recorded = state.record_path.as_deref().map(|path| format!(" (its record: {path})")).unwrap_or_default();
    Error::input(format!(
        "{} carries {}, but this database's {} was debated in {}{recorded}; a debate belongs to the repository it was debated in",
        record.relative, state.id, state.id, state.repo_root
    ))
    .with_hint(format!(
        "work on it in {}; for this repository's copy, use a state database of its own (--db PATH)",
        state.repo_root
    ))
}

/// The debate with its record's path as the record is found now: a record moved in its
/// repository (`git mv`) is found by its id, and the stored path follows it. Two records
/// that both carry the id are refused, naming them.
fn moved(store: &Store, state: DebateState, record: &RecordHere) -> Result<DebateState> {
    let stored = state.record_path.as_deref().and_then(|path| relative_to(&record.root, path));
    if state.status != Status::Complete || stored.as_deref() == Some(record.relative.as_str()) {
        return Ok(state);
    }
    if let Some(stored) = stored.filter(|stored| holds(&record.root, stored, &state.id)) {
        return Err(Error::input(format!("several records carry {}: {stored}, {}", state.id, record.relative))
            .with_hint("keep one record per debate: remove or rename the copy, then run it again"));
    }
    store.save_record_path(&state.id, &record.root.join(&record.relative).display().to_string())?;
    Ok(store.load(&state.id)?)
}

/// The record of a completed debate in its own repository: where it was written, or,
/// moved since, the one record in its records directory that carries its id.
fn its_record(state: &DebateState, config: Option<&Path>) -> Result<Option<RecordHere>> {
    let root = PathBuf::from(&state.repo_root);
    if state.status != Status::Complete || !root.is_dir() {
        return Ok(None);
    }
    let root = crate::repo::canonical(&root);
    let stored = state.record_path.as_deref().and_then(|path| relative_to(&root, path));
    if let Some(relative) = stored.filter(|relative| holds(&root, relative, &state.id)) {
        return Ok(Some(RecordHere { root, relative }));
    }
    // Two records carrying it leave it unfound here; the commands that write say why.
    record_with_id(&root, &state.id, config).or(Ok(None))
}

/// The one record in `root`'s records directory whose front matter carries `id` (a
/// whole id), checked as a path on the command line is; none when no record does.
fn record_with_id(root: &Path, id: &str, config: Option<&Path>) -> Result<Option<RecordHere>> {
    let bare = id.trim().to_ascii_lowercase();
    let whole = format!("DEB-{}", bare.strip_prefix("deb-").unwrap_or(&bare));
    if !is_debate_id(&whole) {
        return Ok(None);
    }
    let settings = settings::load(root, config)?.settings;
    if crate::context::records_with_id(root, &whole, &settings.record.directory.0).is_empty() {
        return Ok(None);
    }
    let relative = project::locate(root, &whole, &settings.record, "the record")?;
    Ok(Some(RecordHere { root: root.to_path_buf(), relative }))
}

/// Why a command that changes the record of the whole id `target` cannot here: it is on
/// a `decisions/*` branch that is not checked out (`None` when no such branch holds it).
pub fn on_another_branch(root: &Path, target: &str, config: Option<&Path>) -> Result<Option<Error>> {
    Ok(on_other_branches(root, target, config)?.map(|(found, _)| not_checked_out(target, &found.path, &found.branch)))
}

/// The record a `decisions/*` branch (local, or only `origin`'s) other than the one
/// checked out holds for the whole id `target`, and its text.
fn on_other_branches(
    root: &Path,
    target: &str,
    config: Option<&Path>,
) -> Result<Option<(record::read::listing::RepositoryRecord, String)>> {
    let bare = target.trim().to_ascii_lowercase();
    let whole = format!("DEB-{}", bare.strip_prefix("deb-").unwrap_or(&bare));
    if !is_debate_id(&whole) {
        return Ok(None);
    }
    let settings = settings::load(root, config)?.settings;
    Ok(record::read::listing::on_other_branches(root, &settings.record.directory.0, &whole).into_iter().next())
}

/// The record a `decisions/*` branch not checked out holds for the whole id `target`,
/// read from git.
fn on_a_branch(root: &Path, target: &str, config: Option<&Path>) -> Result<Option<Located>> {
    let Some((found, text)) = on_other_branches(root, target, config)? else { return Ok(None) };
    let relative = Path::new(&found.path);
    let sidecar =
        record::sidecar_path(relative).and_then(|side| record::read::listing::file_on(root, &found.branch, &side));
    let templates = Templates::load(root)?;
    let state = record::read_back_committed(root, relative, text.as_bytes(), sidecar.as_deref(), &templates)?;
    Ok(Some(Located::OnBranch { branch: found.branch, relative: found.path, state: Box::new(state) }))
}

/// `path` (absolute, as stored) relative to `root`.
fn relative_to(root: &Path, path: &str) -> Option<String> {
    let path = Path::new(path);
    let inside = path.strip_prefix(root).ok().map(Path::to_path_buf).or_else(|| {
        let parent = crate::repo::canonical(path.parent()?);
        Some(parent.strip_prefix(root).ok()?.join(path.file_name()?))
    })?;
    Some(inside.to_string_lossy().replace('\\', "/"))
}

/// Whether the file at `relative` under `root` names `id` in its front matter.
fn holds(root: &Path, relative: &str, id: &str) -> bool {
    RecordHere { root: root.to_path_buf(), relative: relative.to_string() }
        .id()
        .is_ok_and(|found| found.is_some_and(|found| found.eq_ignore_ascii_case(id)))
}

/// The debate `record` carries when a review elsewhere revised it after `state`, or
/// changed its guards there (`debate guard` in another clone).
fn revised(state: &DebateState, record: RecordHere) -> Option<(DebateState, Option<String>, RecordHere)> {
    if state.status != Status::Complete {
        return None;
    }
    let (read, commit) = record.read_back().ok()?;
    let synthesis = |s: &DebateState| s.outcome.as_ref().map(|o| serde_json::to_value(&o.synthesis).ok());
    let newer = read.revisions.len() > state.revisions.len();
    let amended = read.revisions.len() == state.revisions.len() && synthesis(&read) != synthesis(state);
    (read.id == state.id && (newer || amended)).then_some((read, commit, record))
}

/// A record in this repository and the settings it is read with.
struct RecordHere {
    root: PathBuf,
    relative: String,
}

impl RecordHere {
    /// The debate id its front matter names.
    fn id(&self) -> Result<Option<String>> {
        let text = record::WorkTree::open(&self.root)?.read_existing(Path::new(&self.relative))?;
        let id = crate::adr::read(&self.relative, &String::from_utf8_lossy(&text)).and_then(|fields| fields.id);
        // Only an id in debate's own form names a debate (never a prefix of another's).
        Ok(id.filter(|id| is_debate_id(id)))
    }

    fn read_back(&self) -> Result<(DebateState, Option<String>)> {
        let templates = Templates::load(&self.root)?;
        Ok(record::read_back(&self.root, Path::new(&self.relative), &templates)?)
    }
}

/// The record `target` names here: a path, or a whole id its front matter carries.
fn record_here(target: &str, config: Option<&Path>, here: &Here) -> Result<RecordHere> {
    let root = here.root()?;
    let settings = settings::load(&root, config)?.settings;
    let relative = project::locate(&root, target, &settings.record, "the record")?;
    Ok(RecordHere { root, relative })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_database_yet_is_an_input_error_that_says_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("debates.sqlite3");
        let err = load(&db, "DEB-abc123").map(drop).unwrap_err();
        assert!(err.to_string().contains("there is no state database at"), "{err}");
        assert_eq!(err.exit_code(), 2);
        assert!(!db.exists(), "looking never creates the database");
    }
}
