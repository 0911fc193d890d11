//! `debate list`: a table of recent debates.

use super::{OutputError, print_out};
use crate::text::untrusted::one_line;
use crate::view::{SearchView, Summary};

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

/// The table; with `every_repository` (`--all`), a column for each debate's repository.
/// STATUS is the debate's (running, paused, complete); DECISION its record's
/// lifecycle (proposed, accepted, superseded…).
pub fn table(rows: &[Summary], every_repository: bool) -> String {
    let now = chrono::Utc::now();
    let repositories: Vec<String> = rows.iter().map(|row| one_line(&row.repository)).collect();
    let wide = repositories.iter().map(|r| r.chars().count()).max().unwrap_or(0).max("REPOSITORY".len());
    let line = |cells: [&str; 9]| {
        let [id, status, decision, rounds, age, question, commit, repository, record] = cells;
        let repository = match every_repository {
            true => format!("{repository:<wide$}  "),
            false => String::new(),
        };
        format!(
            "{id:<10}  {status:<12}  {decision:<10}  {rounds:>6}  {age:>4}  {question:<50}  {commit:<7}  {repository}{record}\n"
        )
    };
    let mut out = line(["ID", "STATUS", "DECISION", "ROUNDS", "AGE", "QUESTION", "COMMIT", "REPOSITORY", "RECORD"]);
    for (row, repository) in rows.iter().zip(&repositories) {
        let record = row.record_path.as_deref().map_or("-".into(), |p| relative(p, &row.repository));
        out.push_str(&line([
            &row.id,
            row.status.as_str(),
            &row.record_status.as_deref().map_or("-".into(), one_line),
            &row.rounds.to_string(),
            &age(&row.created_at, now),
            &shorten(&row.question, 48),
            row.commit_id.as_deref().map_or("-", |c| c.get(..7).unwrap_or(c)),
            repository,
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

/// `debate search`: each record found, most relevant first — its path, status and date,
/// its title, and its decision — or that none was.
pub fn found(found: &SearchView) -> String {
    if found.records.is_empty() {
        return format!("No decision records in {} (of {} searched).\n", one_line(&found.repository), found.searched);
    }
    let mut out = String::new();
    for record in &found.records {
        let id = record.id.as_deref().map(|id| format!(" · {id}")).unwrap_or_default();
        let date = record.date.as_deref().map(|date| format!(" · {}", one_line(date))).unwrap_or_default();
        out.push_str(&format!("{}  [{}{date}{id}]\n", one_line(&record.path), one_line(&record.status)));
        out.push_str(&format!("  {}\n  {}\n", one_line(&record.title), shorten(&record.decision, 200)));
        if !record.matched.is_empty() {
            out.push_str(&format!("  matched: {}\n", one_line(&record.matched.join(", "))));
        }
    }
    out
}

/// The table on stdout; no debates is said on stderr.
pub fn print(rows: &[Summary], scope: &str, every_repository: bool) -> Result<(), OutputError> {
    if rows.is_empty() {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("No debates yet {scope}.\n").as_bytes());
        return Ok(());
    }
    print_out(&table(rows, every_repository))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Listing, Status, Usage};

    fn row(id: &str, repository: &str) -> Summary {
        let listing = Listing {
            id: id.into(),
            status: Status::Complete,
            rounds: 2,
            created_at: "2026-11-22T10:00:00.000Z".into(),
            question: "Should we use Redis or Postgres for caching?".into(),
            title: "Should we use Redis or Postgres for caching".into(),
            repository: repository.into(),
            record_path: Some(format!("{repository}/docs/decisions/redis.md")),
            branch: None,
            end_reason: None,
            confidence: None,
            commit_id: None,
            totals: Usage::default(),
        };
        Summary { record_status: Some("accepted".into()), ..Summary::from(&listing) }
    }

    #[test]
    fn every_repository_gets_a_column_one_repository_does_not() {
        let rows = [row("DEB-aaaaaa", "/work/shop"), row("DEB-bbbbbb", "/work/a-longer-name/billing")];
        let all = table(&rows, true);
        let lines: Vec<&str> = all.lines().collect();
        let column = lines[0].find("REPOSITORY").expect("a REPOSITORY column");
        assert_eq!(lines[1].find("/work/shop"), Some(column), "{all}");
        assert_eq!(lines[2].find("/work/a-longer-name/billing"), Some(column), "{all}");
        assert_eq!(
            lines[1].find("docs/decisions/redis.md"),
            lines[2].find("docs/decisions/redis.md"),
            "aligned: {all}"
        );
        let decision = lines[0].find("DECISION").expect("a DECISION column");
        assert_eq!(lines[1].find("accepted"), Some(decision), "the record's status: {all}");
        let here = table(&rows[..1], false);
        assert!(!here.contains("REPOSITORY") && !here.contains("/work/shop"), "{here}");
        assert!(here.contains("docs/decisions/redis.md"), "{here}");
    }
}
