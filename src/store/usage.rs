//! A call's usage as the tables keep it: its columns in one order, and one reading of
//! them, so every query reads a row's tokens, latency and retries the same way.

use rusqlite::Row;

use crate::model::Usage;

/// The usage columns, in the order every query selects them.
const COLUMNS: [&str; 5] = ["prompt_tokens", "cached_tokens", "completion_tokens", "latency_ms", "retries"];

/// The usage columns for the end of a `SELECT` list (last, so that what comes before
/// keeps its place), each as `each` writes it (`SUM(r.{column})`); a query that keeps
/// only the first `kept` (the tokens alone: 3) selects 0 for the rest.
pub fn select(kept: usize, each: impl Fn(&str) -> String) -> String {
    let columns = COLUMNS.iter().enumerate().map(|(i, column)| if i < kept { each(column) } else { "0".into() });
    columns.collect::<Vec<_>>().join(", ")
}

/// The usage a row holds in the columns [`select`] listed, from position `at` on.
pub fn read(row: &Row, at: usize) -> rusqlite::Result<Usage> {
    Ok(Usage {
        prompt_tokens: row.get(at)?,
        cached_tokens: row.get(at + 1)?,
        completion_tokens: row.get(at + 2)?,
        latency_ms: row.get(at + 3)?,
        retries: row.get(at + 4)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_select_list_reads_back_in_its_own_order() {
        assert_eq!(
            select(3, |c| format!("SUM({c})")),
            "SUM(prompt_tokens), SUM(cached_tokens), SUM(completion_tokens), 0, 0"
        );
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE calls (name TEXT, prompt_tokens INT, cached_tokens INT, completion_tokens INT, latency_ms INT,
                                 retries INT);
             INSERT INTO calls VALUES ('a', 1, 2, 3, 4, 5);",
        )
        .unwrap();
        let sql = format!("SELECT name, {} FROM calls", select(5, str::to_string));
        let usage = conn.query_row(&sql, [], |row| read(row, 1)).unwrap();
        let all = Usage { prompt_tokens: 1, cached_tokens: 2, completion_tokens: 3, latency_ms: 4, retries: 5 };
        assert_eq!(usage, all);
        let sql = format!("SELECT name, {} FROM calls", select(4, str::to_string));
        assert_eq!(conn.query_row(&sql, [], |row| read(row, 1)).unwrap(), Usage { retries: 0, ..all });
    }
}
