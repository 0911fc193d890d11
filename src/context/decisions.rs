//! Earlier decision records as the debaters read them: each record's text is read by
//! `adr` (debate's own, MADR 2 to 4, Nygard/adr-tools); here it becomes an earlier
//! decision, and the records' directory and numbering become the convention.

use crate::adr::{self, DECISION_DIRECTORIES};
use crate::model::{Convention, EarlierDecision};
use crate::text::record_number;

/// The record at `relative` with `text`, as the debaters read it; `None` when it has no
/// title and so is no record.
pub fn read(relative: &str, text: &str) -> Option<EarlierDecision> {
    read_with_id(relative, text).map(|(decision, _)| decision)
}

/// As `read`, with the debate id its front matter names (debate's own records).
pub fn read_with_id(relative: &str, text: &str) -> Option<(EarlierDecision, Option<String>)> {
    let fields = adr::read(relative, text)?;
    let decision = EarlierDecision {
        path: relative.to_string(),
        title: fields.title,
        status: fields.status,
        date: fields.date,
        decision: fields.decision,
        superseded_by: fields.superseded_by,
    };
    Some((decision, fields.id))
}

/// How the repository keeps its decisions: the directory holding the most records (the
/// first of `DECISION_DIRECTORIES` on a tie), and whether most of them are numbered
/// `0001-…`. `records` are paths relative to the root.
pub fn convention(records: &[String]) -> Option<Convention> {
    let mut by_directory: Vec<(&str, u32, u32)> = Vec::new();
    for record in records {
        let Some((directory, name)) = record.rsplit_once('/') else { continue };
        let numbered = u32::from(record_number(name).is_some());
        match by_directory.iter_mut().find(|(d, _, _)| *d == directory) {
            Some(tally) => (tally.1, tally.2) = (tally.1 + 1, tally.2 + numbered),
            None => by_directory.push((directory, 1, numbered)),
        }
    }
    let rank = |directory: &str| DECISION_DIRECTORIES.iter().position(|d| *d == directory).unwrap_or(usize::MAX);
    by_directory.sort_by_key(|(directory, count, _)| (std::cmp::Reverse(*count), rank(directory)));
    let (directory, records, numbered) = by_directory.first()?;
    Some(Convention { directory: directory.to_string(), numbered: numbered * 2 > *records, records: *records })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_becomes_an_earlier_decision() {
        let madr2 = "# Use Markdown Architectural Decision Records\n\n* Status: superseded by [ADR-0005](0005-use-madr-4.md)\n* Date: 2018-09-15\n\n## Decision Outcome\n\nChosen option: \"MADR 2.1.2\".\n";
        let d = read("docs/adr/0001-use-madr.md", madr2).unwrap();
        assert_eq!(d.path, "docs/adr/0001-use-madr.md");
        assert!(d.superseded() && !d.accepted());
        assert_eq!(d.superseded_by.as_deref(), Some("docs/adr/0005-use-madr-4.md"));
        assert_eq!(d.decision, "Chosen option: \"MADR 2.1.2\".");
        assert!(read("docs/adr/notes.md", "just some notes\n").is_none());
    }

    #[test]
    fn the_convention_is_where_most_records_are() {
        let records: Vec<String> =
            ["docs/adr/0001-a.md", "docs/adr/0002-b.md", "docs/decisions/2026-01-05-x.md"].map(String::from).to_vec();
        assert_eq!(convention(&records), Some(Convention { directory: "docs/adr".into(), numbered: true, records: 2 }));
        assert_eq!(convention(&records[2..]).map(|c| c.numbered), Some(false), "a date is no number");
        assert_eq!(convention(&[]), None);
        let tie: Vec<String> = ["adr/0001-a.md", "docs/decisions/0001-b.md"].map(String::from).to_vec();
        assert_eq!(convention(&tie).unwrap().directory, "docs/decisions", "on a tie, the usual place first");
    }
}
