//! `debate --list`: a table of recent debates.

use super::{OutputError, print_out};
use crate::model::Listing;
use crate::text::untrusted::one_line;

/// `3m`, `5h`, `2d` since an RFC 3339 time.
pub fn age(created_at: &str, now: chrono::DateTime<chrono::Utc>) -> String {
    let Ok(then) = chrono::DateTime::parse_from_rfc3339(created_at) else { return "?".into() };
    let secs = (now - then.with_timezone(&chrono::Utc)).num_seconds().max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

fn shorten(text: &str, width: usize) -> String {
    let line = one_line(text);
    match line.char_indices().nth(width) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

pub fn table(rows: &[Listing]) -> String {
    let now = chrono::Utc::now();
    let line = |cells: [&str; 7]| {
        let [id, status, rounds, age, question, commit, record] = cells;
        format!("{id:<10}  {status:<12}  {rounds:>6}  {age:>4}  {question:<50}  {commit:<7}  {record}\n")
    };
    let mut out = line(["ID", "STATUS", "ROUNDS", "AGE", "QUESTION", "COMMIT", "RECORD"]);
    for row in rows {
        let record = row.record_path.as_deref().map_or("-".into(), |p| relative(p, &row.repository));
        out.push_str(&line([
            &row.id,
            row.status.as_str(),
            &row.rounds.to_string(),
            &age(&row.created_at, now),
            &shorten(&row.question, 48),
            row.commit_id.as_deref().map_or("-", |c| c.get(..7).unwrap_or(c)),
            &record,
        ]));
    }
    out
}

fn relative(path: &str, root: &str) -> String {
    one_line(
        &std::path::Path::new(path).strip_prefix(root).map_or_else(|_| path.to_string(), |p| p.display().to_string()),
    )
}

/// The table on stdout; no debates is said on stderr.
pub fn print(rows: &[Listing], scope: &str) -> Result<(), OutputError> {
    if rows.is_empty() {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("No debates yet {scope}.\n").as_bytes());
        return Ok(());
    }
    print_out(&table(rows))
}
