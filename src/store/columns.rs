//! Enum columns: written as their names, read back strictly. A stored value this
//! version does not know is an error that names the column, never a guess.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::model::{Confidence, ContributionKind, EndReason, Purpose, Status};

/// A value in an enum column that this version of debate does not know.
#[derive(Debug, thiserror::Error)]
#[error("{column} holds an unknown value {value:?}")]
pub struct UnknownValue {
    pub column: &'static str,
    pub value: String,
}

macro_rules! enum_column {
    ($type:ty, $column:literal) => {
        impl ToSql for $type {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                let name: &'static str = self.into();
                Ok(ToSqlOutput::from(name))
            }
        }

        impl FromSql for $type {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let text = value.as_str()?;
                text.parse().map_err(|_| {
                    FromSqlError::Other(Box::new(UnknownValue { column: $column, value: text.to_string() }))
                })
            }
        }
    };
}

enum_column!(Status, "debates.status");
enum_column!(EndReason, "debates.end_reason");
enum_column!(Confidence, "debates.confidence");
enum_column!(ContributionKind, "contributions.kind");
enum_column!(Purpose, "moderator_calls.purpose");

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn every_value_round_trips_and_unknown_values_name_their_column() {
        let conn = Connection::open_in_memory().unwrap();
        let read = |text: &str| conn.query_row("SELECT ?1", [text], |row| row.get::<_, Status>(0));
        for status in [Status::InRound, Status::Complete, Status::Failed] {
            let stored: String = conn.query_row("SELECT ?1", [status], |row| row.get(0)).unwrap();
            assert_eq!(stored, status.as_str());
            assert_eq!(read(&stored).unwrap(), status);
        }
        let err = read("Complete").unwrap_err().to_string();
        assert!(err.contains("debates.status") && err.contains("\"Complete\""), "{err}");
        let reason = conn.query_row("SELECT 'clear-winner'", [], |row| row.get::<_, EndReason>(0)).unwrap();
        assert_eq!(reason, EndReason::ClearWinner);
    }
}
