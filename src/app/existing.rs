//! A debate already in the state database, found by its id (any case, a unique prefix).

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::DebateState;
use crate::store::Store;

pub fn load(db_path: &Path, id: &str) -> Result<(Store, DebateState)> {
    let store = Store::open_existing(db_path)?.ok_or_else(|| {
        Error::input(format!("no debate with id {id:?} (there is no state database at {} yet)", db_path.display()))
    })?;
    let full = store.resolve_id(id)?;
    let state = store.load(&full)?;
    Ok((store, state))
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
