//! Earlier decision records: debate's own, MADR (2 to 4) and Nygard/adr-tools. Each
//! gives its title, status, date, the decision in its own words, and what supersedes it.

use std::collections::BTreeMap;
use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use super::DECISION_DIRECTORIES;
use crate::model::{Convention, EarlierDecision};
use crate::text::untrusted::one_line;
use crate::text::{record_number, yaml};

/// The sections, by their headings, where formats write the decision itself.
const DECISION_HEADINGS: &[&str] = &["decision outcome", "decision", "recommendation", "chosen option"];

/// A record's text as the parts a decision needs.
#[derive(Default)]
struct Parsed {
    front: Option<Value>,
    title: Option<String>,
    /// Each H2 section's paragraphs and list items, by its lowercased heading.
    sections: BTreeMap<String, Vec<String>>,
    /// Paragraphs and list items before the first H2 (MADR 2 puts `* Status: …` there).
    preamble: Vec<String>,
}

pub fn read(relative: &str, text: &str) -> Option<EarlierDecision> {
    let parsed = parse(text);
    let front = |key: &str| parsed.front.as_ref()?.get(key)?.as_str().map(|s| s.trim().to_string());
    let labelled = |label: &str| {
        parsed.preamble.iter().chain(parsed.sections.values().flatten()).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(label).then(|| value.trim().to_string())
        })
    };
    let title = front("title").or_else(|| parsed.title.clone())?;
    let title = title.strip_prefix("Decision: ").unwrap_or(&title).to_string();
    let status = front("status")
        .or_else(|| parsed.sections.get("status").and_then(|s| s.first().cloned()))
        .or_else(|| labelled("status"))
        .unwrap_or_else(|| "unknown".into());
    let date = front("date").or_else(|| labelled("date"));
    let decision = DECISION_HEADINGS
        .iter()
        .find_map(|h| parsed.sections.get(*h).and_then(|s| s.first()))
        .map(|text| sentences(text, 2))
        .unwrap_or_default();
    let superseded_by = status
        .to_lowercase()
        .starts_with("superseded")
        .then(|| link_target(&status).map(|target| resolve(relative, &target)))
        .flatten();
    let (title, status, date) = (one_line(&title), strip_link_targets(&status), date.map(|d| one_line(&d)));
    Some(EarlierDecision { path: relative.to_string(), title, status, date, decision, superseded_by })
}

fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let (mut heading, mut current, mut block, mut in_front) =
        (None::<HeadingLevel>, None::<String>, String::new(), false);
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::MetadataBlock(_)) => in_front = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_front = false,
            Event::Text(t) if in_front => parsed.front = yaml::parse::<Value>(&t, "front matter").ok(),
            Event::Start(Tag::Heading { level, .. }) => (heading, block) = (Some(level), String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let text = std::mem::take(&mut block).trim().to_string();
                match heading.take() {
                    Some(HeadingLevel::H1) if parsed.title.is_none() => parsed.title = Some(text),
                    Some(HeadingLevel::H2) => current = Some(text.to_lowercase()),
                    _ => {}
                }
            }
            Event::End(TagEnd::Item | TagEnd::Paragraph) => {
                let entry = std::mem::take(&mut block).split_whitespace().collect::<Vec<_>>().join(" ");
                if !entry.is_empty() {
                    match &current {
                        Some(section) => parsed.sections.entry(section.clone()).or_default().push(entry),
                        None => parsed.preamble.push(entry),
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => block.push_str(&t),
            Event::Start(Tag::Link { dest_url, .. }) if heading.is_none() => {
                block.push_str(&format!("{TARGET_OPEN}{dest_url}{TARGET_CLOSE}"))
            }
            Event::SoftBreak | Event::HardBreak => block.push(' '),
            _ => {}
        }
    }
    parsed
}

/// The first `n` sentences, at most 400 characters, links as their text.
fn sentences(text: &str, n: usize) -> String {
    let text = strip_link_targets(text);
    let mut end = text.len();
    let mut seen = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | '!' | '?') && text[i + 1..].starts_with(' ') {
            seen += 1;
            if seen == n {
                end = i + 1;
                break;
            }
        }
    }
    let sentence = text[..end].trim();
    match sentence.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", sentence[..cut].trim_end()),
        None => sentence.to_string(),
    }
}

/// Link targets are kept between these, after the link's text, so a status can name
/// the record that supersedes it; the decision reads without them.
const TARGET_OPEN: char = '\u{1}';
const TARGET_CLOSE: char = '\u{2}';

fn strip_link_targets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for c in text.chars() {
        match c {
            TARGET_OPEN => inside = true,
            TARGET_CLOSE => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first link target in a status line: kept between the target marks by `parse`,
/// or written as markdown `(target)` in front matter.
fn link_target(status: &str) -> Option<String> {
    let marked =
        status.split_once(TARGET_OPEN).and_then(|(_, rest)| rest.split_once(TARGET_CLOSE)).map(|(t, _)| t.to_string());
    let parenthesised =
        status.find("](").and_then(|s| status[s + 2..].find(')').map(|e| status[s + 2..s + 2 + e].to_string()));
    parenthesised.or(marked).filter(|t| t.ends_with(".md"))
}

/// A link from a record, as a path from the repository root.
fn resolve(record: &str, target: &str) -> String {
    let base = Path::new(record).parent().unwrap_or(Path::new(""));
    let mut parts: Vec<&str> = base.iter().filter_map(|p| p.to_str()).collect();
    for part in target.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
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
    fn reads_debates_own_records() {
        let text = "---\nid: DEB-abc123\ntitle: \"Redis or Postgres for caching\"\nstatus: accepted\ndate: 2026-01-05\n---\n# Decision: Redis or Postgres for caching\n\n## Question\n\nWhich?\n\n## Recommendation\n\nCache in Postgres now. Add Redis when p99 exceeds 50 ms. More text.\n";
        let d = read("docs/decisions/2026-01-05-redis-or-postgres.md", text).unwrap();
        assert_eq!(d.title, "Redis or Postgres for caching");
        assert_eq!((d.status.as_str(), d.date.as_deref()), ("accepted", Some("2026-01-05")));
        assert_eq!(d.decision, "Cache in Postgres now. Add Redis when p99 exceeds 50 ms.");
        assert!(d.accepted() && !d.superseded());
    }

    #[test]
    fn reads_madr_4_and_madr_2() {
        let madr4 = "---\nstatus: accepted\ndate: 2025-03-01\ndecision-makers: [a]\n---\n# Use Postgres as the only datastore\n\n## Context and Problem Statement\n\nWe need one store.\n\n## Decision Outcome\n\nChosen option: \"Postgres\", because it is the one we run. It is also cheap.\n";
        let d = read("docs/adr/0002-use-postgres.md", madr4).unwrap();
        assert_eq!(d.title, "Use Postgres as the only datastore");
        assert_eq!(d.decision, "Chosen option: \"Postgres\", because it is the one we run. It is also cheap.");
        let madr2 = "# Use Markdown Architectural Decision Records\n\n* Status: superseded by [ADR-0005](0005-use-madr-4.md)\n* Date: 2018-09-15\n\n## Decision Outcome\n\nChosen option: \"MADR 2.1.2\".\n";
        let d = read("docs/adr/0001-use-madr.md", madr2).unwrap();
        assert!(d.superseded());
        assert_eq!(d.superseded_by.as_deref(), Some("docs/adr/0005-use-madr-4.md"));
        assert_eq!(d.date.as_deref(), Some("2018-09-15"));
    }

    #[test]
    fn reads_nygard_records() {
        let text = "# 2. Use Postgres as the only datastore\n\nDate: 2024-02-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe run one database.\n\n## Decision\n\nWe will use Postgres as the only datastore. Caches included.\n\n## Consequences\n\nOne thing to run.\n";
        let d = read("doc/adr/0002-use-postgres.md", text).unwrap();
        assert_eq!(d.title, "2. Use Postgres as the only datastore");
        assert_eq!((d.status.as_str(), d.date.as_deref()), ("Accepted", Some("2024-02-01")));
        assert_eq!(d.decision, "We will use Postgres as the only datastore. Caches included.");
        let superseded = text.replace("Accepted", "Superseded by [5. Use Redis for caching](0005-use-redis.md)");
        let d = read("doc/adr/0002-use-postgres.md", &superseded).unwrap();
        assert_eq!(d.superseded_by.as_deref(), Some("doc/adr/0005-use-redis.md"));
    }

    #[test]
    fn brackets_in_prose_stay_and_a_superseding_link_is_found() {
        let text = "# 3. Old cache\n\n## Status\n\nSuperseded by [4. New cache](0004-new-cache.md)\n\n## Decision\n\n[WIP] Connect as svc:[redacted]@db. Then [read the guide](guide.md).\n";
        let d = read("docs/adr/0003-old-cache.md", text).unwrap();
        assert_eq!(d.superseded_by.as_deref(), Some("docs/adr/0004-new-cache.md"));
        assert_eq!(d.status, "Superseded by 4. New cache");
        assert_eq!(d.decision, "[WIP] Connect as svc:[redacted]@db. Then read the guide.");
    }

    #[test]
    fn a_file_without_a_title_is_no_record() {
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
