//! A debate already in the state database, found by its id (any case, a unique prefix),
//! or — in a clone that never ran it — read back from its committed record here and
//! imported on first use.

use std::path::{Path, PathBuf};

use super::project;
use crate::error::{Error, Result};
use crate::model::{DebateState, is_debate_id};
use crate::record::{self, Templates};
use crate::settings::{self, FlagOverrides};
use crate::store::Store;

pub fn load(db_path: &Path, id: &str) -> Result<(Store, DebateState)> {
    let store = Store::open_existing(db_path)?.ok_or_else(|| {
        Error::input(format!("no debate with id {id:?} (there is no state database at {} yet)", db_path.display()))
    })?;
    let full = store.resolve_id(id)?;
    let state = store.load(&full)?;
    Ok((store, state))
}

/// How a debate came from its record into this database.
pub enum Imported {
    /// This machine had never run it.
    First(String),
    /// A review elsewhere revised it since this machine ran it.
    Revised(String),
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
        }
    }
}

/// A debate named by its id or its record's path, as this database has it or, when the
/// committed record carries more (a clone that never ran it, a teammate's review), as the
/// record has it, imported.
pub fn find(db_path: &Path, target: &str, config: Option<&Path>) -> Result<(Store, DebateState, Option<Imported>)> {
    let named = match target.contains('/') || target.ends_with(".md") {
        true => Some(record_here(target, config)?),
        false => None,
    };
    let id = match &named {
        Some(record) => record.id()?,
        None => Some(target.to_string()),
    };
    match id.map(|id| load(db_path, &id)) {
        Some(Ok((store, state))) => {
            let record = named.or_else(|| record_here(&state.id, config).ok());
            match record.and_then(|record| revised(&state, record)) {
                Some((read, commit, record)) => {
                    store.import(&read, read.record_path.as_deref().unwrap_or_default(), commit.as_deref(), true)?;
                    let state = store.load(&read.id)?;
                    Ok((store, state, Some(Imported::Revised(record.relative))))
                }
                None => Ok((store, state, None)),
            }
        }
        not_here => {
            // A teammate's debate whose record, carrying its id, is in this clone.
            let record = match (named, not_here) {
                (Some(record), _) => record,
                (None, Some(Err(unknown))) => record_here(target, config).map_err(|_| unknown)?,
                (None, _) => record_here(target, config)?,
            };
            let (read, commit) = record.read_back()?;
            let store = Store::open(db_path)?;
            store.import(&read, read.record_path.as_deref().unwrap_or_default(), commit.as_deref(), false)?;
            let state = store.load(&read.id)?;
            Ok((store, state, Some(Imported::First(record.relative))))
        }
    }
}

/// The debate `record` carries when a review elsewhere revised it after `state`.
fn revised(state: &DebateState, record: RecordHere) -> Option<(DebateState, Option<String>, RecordHere)> {
    if state.status != crate::model::Status::Complete {
        return None;
    }
    let (read, commit) = record.read_back().ok()?;
    (read.id == state.id && read.revisions.len() > state.revisions.len()).then_some((read, commit, record))
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
fn record_here(target: &str, config: Option<&Path>) -> Result<RecordHere> {
    let root = crate::repo::around_working_directory()?;
    let settings = settings::load(&root, config, &FlagOverrides::default())?.settings;
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
