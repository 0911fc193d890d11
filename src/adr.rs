//! Decision records as text, in every format debate meets: its own, MADR (2 to 4) and
//! Nygard/adr-tools. One record's text gives its id, title, status, date, the decision
//! in its own words, the chosen option and what supersedes it; where records are kept
//! and which files in those directories are records. Pure: no file is opened here, so
//! the repository context and the record's lifecycle read records the same way.

use std::collections::BTreeMap;
use std::path::Path;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::Value;

use crate::text::untrusted::one_line;
use crate::text::yaml;

/// Where decision records are kept by convention (MADR, adr-tools, ours).
pub const DECISION_DIRECTORIES: &[&str] =
    &["docs/decisions", "docs/adr", "doc/adr", "docs/architecture/decisions", "adr", "doc/decisions"];

/// The sections, by their headings, where formats write the decision itself.
const DECISION_HEADINGS: &[&str] = &["decision outcome", "decision", "recommendation", "chosen option"];

/// What a decision record says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    /// The debate id in the front matter (`id: DEB-…`): debate's own records only.
    pub id: Option<String>,
    pub title: String,
    /// As the record writes it, links as their text; `unknown` when it states none.
    pub status: String,
    pub date: Option<String>,
    /// The decision, in its own words (its first sentence or two).
    pub decision: String,
    /// `Chosen option: "X", because …` (MADR, quoted or not) or `**Chosen option:** X`.
    pub chosen_option: Option<String>,
    /// The record that supersedes it, as a path from the repository root, when its
    /// status links one.
    pub superseded_by: Option<String>,
    /// The lines of its Guards section (a `###` of the outcome, or a `##`), as written.
    pub guards: Vec<String>,
    /// Its Review By section's day, as written.
    pub review_by: Option<String>,
}

/// A markdown file name that is not an index (`README.md`, `index.md`), a template
/// (`template.md`, `adr-template.md`, `0000-template.md`) or a record's transcript
/// beside it (`….transcript.md`).
pub fn is_record_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let Some(stem) = lower.strip_suffix(".md") else { return false };
    let template = stem == "template" || stem.ends_with("-template") || stem.ends_with("_template");
    !matches!(stem, "readme" | "index") && !template && !stem.ends_with(".transcript")
}

/// A record's text as the parts a decision needs.
#[derive(Default)]
struct Parsed {
    front: Option<Value>,
    title: Option<String>,
    /// Each H2 section's paragraphs and list items, by its lowercased heading; the
    /// lines of one paragraph or item stay lines.
    sections: BTreeMap<String, Vec<String>>,
    /// Paragraphs and list items before the first H2 (MADR 2 puts `* Status: …` there).
    preamble: Vec<String>,
    /// Each H3 section's paragraphs and list items, by its lowercased heading (they are
    /// in their H2's entries too).
    subsections: BTreeMap<String, Vec<String>>,
}

/// The record at `relative` (a path from the repository root, for the links its status
/// may hold); `None` when the text has no title and so is no record.
pub fn read(relative: &str, text: &str) -> Option<Fields> {
    // A record saved with CRLF line endings reads as any other.
    let parsed = parse(&text.replace("\r\n", "\n"));
    let front = |key: &str| {
        let value = parsed.front.as_ref()?.as_object()?.iter().find(|(k, _)| k.eq_ignore_ascii_case(key))?.1;
        value.as_str().map(|s| s.trim().to_string())
    };
    let lines = || parsed.preamble.iter().chain(parsed.sections.values().flatten()).flat_map(|entry| entry.lines());
    let labelled = |label: &str| {
        lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(label).then(|| value.trim().to_string())
        })
    };
    let title = front("title").or_else(|| parsed.title.clone())?;
    let title = title.strip_prefix("Decision: ").unwrap_or(&title).to_string();
    let status = front("status")
        .or_else(|| parsed.sections.get("status").and_then(|s| s.first()).map(|s| joined(s)))
        .or_else(|| labelled("status"))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let status = match superseded_in_section(&parsed) {
        Some(link) if !status.to_lowercase().starts_with("superseded") => link,
        _ => status,
    };
    let date = front("date").or_else(|| labelled("date"));
    let decision = DECISION_HEADINGS
        .iter()
        .find_map(|h| parsed.sections.get(*h).and_then(|s| s.first()))
        .map(|text| sentences(&joined(text), 2))
        .unwrap_or_default();
    let chosen_option = chosen_option(&parsed);
    let superseded_by = status
        .to_lowercase()
        .starts_with("superseded")
        .then(|| link_target(&status).map(|target| resolve(relative, &target)))
        .flatten();
    Some(Fields {
        id: front("id").map(|id| one_line(&id)).filter(|id| !id.is_empty()),
        title: one_line(&title),
        status: strip_link_targets(&status),
        date: date.map(|d| one_line(&d)),
        decision,
        chosen_option,
        superseded_by,
        guards: subsection(&parsed, "guards").to_vec(),
        review_by: subsection(&parsed, "review by").first().map(|day| one_line(day)),
    })
}

/// A section's entries, whether the record heads it `###` (under the outcome) or `##`.
fn subsection<'p>(parsed: &'p Parsed, heading: &str) -> &'p [String] {
    let found = parsed.subsections.get(heading).or_else(|| parsed.sections.get(heading));
    found.map_or(&[], Vec::as_slice)
}

/// The `Superseded by [title](file)` paragraph adr-tools' `adr new -s` adds to a record's
/// `## Status` section: it edits that section alone, so the record's other places may
/// still say `accepted`, yet it is superseded.
fn superseded_in_section(parsed: &Parsed) -> Option<String> {
    let section = parsed.sections.get("status")?;
    section.iter().map(|entry| joined(entry)).find(|entry| {
        entry.get(..14).is_some_and(|p| p.eq_ignore_ascii_case("superseded by ")) && entry.contains(TARGET_OPEN)
    })
}

fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let options = Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let (mut heading, mut current, mut sub, mut block, mut in_front, mut in_code) =
        (None::<HeadingLevel>, None::<String>, None::<String>, String::new(), false, false);
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(Tag::MetadataBlock(_)) => in_front = true,
            Event::End(TagEnd::MetadataBlock(_)) => in_front = false,
            Event::Text(t) if in_front => parsed.front = yaml::parse::<Value>(&t, "front matter").ok(),
            // Code is no decision, status or title.
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            _ if in_code => {}
            Event::Start(Tag::Heading { level, .. }) => (heading, block) = (Some(level), String::new()),
            Event::End(TagEnd::Heading(_)) => {
                let text = joined(&std::mem::take(&mut block));
                match heading.take() {
                    Some(HeadingLevel::H1) if parsed.title.is_none() => parsed.title = Some(text),
                    Some(HeadingLevel::H2) => (current, sub) = (Some(text.to_lowercase()), None),
                    Some(HeadingLevel::H3) => sub = Some(text.to_lowercase()),
                    _ => {}
                }
            }
            Event::End(TagEnd::Item | TagEnd::Paragraph) => {
                let block = std::mem::take(&mut block);
                let lines: Vec<String> = block.lines().map(joined).filter(|line| !line.is_empty()).collect();
                if !lines.is_empty() {
                    let entry = lines.join("\n");
                    if let Some(sub) = &sub {
                        parsed.subsections.entry(sub.clone()).or_default().push(entry.clone());
                    }
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
            Event::SoftBreak | Event::HardBreak => block.push(if heading.is_some() { ' ' } else { '\n' }),
            _ => {}
        }
    }
    parsed
}

/// Whitespace, line breaks included, folded to single spaces.
fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The option a record chose: a `Chosen option:` line (MADR writes it under "Decision
/// Outcome"; debate's older records as `**Chosen option:** X`), else a "Chosen option"
/// section's first paragraph.
fn chosen_option(parsed: &Parsed) -> Option<String> {
    let decision_sections = DECISION_HEADINGS.iter().filter_map(|h| parsed.sections.get(*h)).flatten();
    let everywhere = parsed.preamble.iter().chain(parsed.sections.values().flatten());
    let labelled = decision_sections.chain(everywhere).flat_map(|entry| entry.lines()).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case("chosen option").then_some(value)
    });
    let value = labelled.or_else(|| parsed.sections.get("chosen option")?.first().map(String::as_str))?;
    option_named(&strip_link_targets(value))
}

/// The option in `"Postgres", because …`, `Postgres, because …` or `Postgres · …`;
/// `None` for a placeholder such as `(none of the options was chosen)`.
fn option_named(value: &str) -> Option<String> {
    let value = value.trim();
    let closing = match value.chars().next()? {
        '"' => Some('"'),
        '“' => Some('”'),
        '«' => Some('»'),
        _ => None,
    };
    if let Some(closing) = closing {
        let rest = &value[value.chars().next()?.len_utf8()..];
        if let Some(end) = rest.find(closing) {
            let option = rest[..end].trim();
            return (!option.is_empty()).then(|| option.to_string());
        }
    }
    // ASCII lowercasing keeps every byte where it was.
    let lower = value.to_ascii_lowercase();
    let end = [", because", " because ", " · "].iter().filter_map(|m| lower.find(m)).min().unwrap_or(value.len());
    let option = value[..end].trim().trim_end_matches(['.', ',', ';', ':']).trim();
    let placeholder = option.starts_with('(') && option.ends_with(')');
    (!option.is_empty() && !placeholder).then(|| option.to_string())
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
    one_line(&out)
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

/// The headings of the sections whose text differs between two versions of a record,
/// in the order of `after` ("front matter" for the part before the first heading);
/// sections only one version has are named too.
pub fn sections_that_differ(before: &str, after: &str) -> Vec<String> {
    let (before, after) = (sections(before), sections(after));
    let mut names: Vec<String> = Vec::new();
    for (name, text) in after.iter().chain(before.iter()) {
        let other = match after.iter().any(|(n, t)| n == name && t == text) {
            true => before.iter().find(|(n, _)| n == name).map(|(_, t)| t),
            false => after.iter().find(|(n, _)| n == name).map(|(_, t)| t),
        };
        if other != Some(text) && !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// A record's sections by heading (any level), with their lines; the lines before the
/// first heading under "front matter". Line endings are not content.
fn sections(text: &str) -> Vec<(String, String)> {
    let mut sections = vec![("front matter".to_string(), String::new())];
    for line in text.lines() {
        match line.trim_start().strip_prefix('#').filter(|_| line.starts_with('#')) {
            Some(heading) => sections.push((heading.trim_start_matches('#').trim().to_string(), String::new())),
            None => {
                let (_, body) = sections.last_mut().expect("starts with one");
                body.push_str(line.trim_end());
                body.push('\n');
            }
        }
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_debates_own_records() {
        let text = "---\nid: DEB-abc123\ntitle: \"Redis or Postgres for caching\"\nstatus: accepted\ndate: 2026-01-05\n---\n# Decision: Redis or Postgres for caching\n\n## Question\n\nWhich?\n\n## Recommendation\n\nCache in Postgres now. Add Redis when p99 exceeds 50 ms. More text.\n";
        let d = read("docs/decisions/2026-01-05-redis-or-postgres.md", text).unwrap();
        assert_eq!(d.id.as_deref(), Some("DEB-abc123"));
        assert_eq!(d.title, "Redis or Postgres for caching");
        assert_eq!((d.status.as_str(), d.date.as_deref()), ("accepted", Some("2026-01-05")));
        assert_eq!(d.decision, "Cache in Postgres now. Add Redis when p99 exceeds 50 ms.");
        assert_eq!(d.chosen_option, None);
    }

    #[test]
    fn reads_the_front_matter_debate_writes_today_blank_line_and_all() {
        let text = "---\nid: DEB-abc123\nstatus: \"superseded by [0003-x](0003-x.md)\"\nstatus-history: [superseded 2026-02-01]\ndate: 2026-01-05\n\n---\n# Redis or Postgres\n\n- Status: superseded by [0003-x](0003-x.md)\n- Date: 2026-01-05\n\n## Question\n\nWhich?\n";
        let d = read("docs/decisions/0002-redis-or-postgres.md", text).unwrap();
        assert_eq!(d.id.as_deref(), Some("DEB-abc123"));
        assert_eq!((d.status.as_str(), d.date.as_deref()), ("superseded by [0003-x](0003-x.md)", Some("2026-01-05")));
        assert_eq!(d.superseded_by.as_deref(), Some("docs/decisions/0003-x.md"));
    }

    #[test]
    fn reads_madr_4_and_madr_2() {
        let madr4 = "---\nstatus: accepted\ndate: 2025-03-01\ndecision-makers: [a]\n---\n# Use Postgres as the only datastore\n\n## Context and Problem Statement\n\nWe need one store.\n\n## Decision Outcome\n\nChosen option: \"Postgres\", because it is the one we run. It is also cheap.\n";
        let d = read("docs/adr/0002-use-postgres.md", madr4).unwrap();
        assert_eq!(d.title, "Use Postgres as the only datastore");
        assert_eq!(d.decision, "Chosen option: \"Postgres\", because it is the one we run. It is also cheap.");
        assert_eq!(d.chosen_option.as_deref(), Some("Postgres"));
        assert_eq!(d.id, None);
        let madr2 = "# Use Markdown Architectural Decision Records\n\n* Status: superseded by [ADR-0005](0005-use-madr-4.md)\n* Date: 2018-09-15\n\n## Decision Outcome\n\nChosen option: \"MADR 2.1.2\".\n";
        let d = read("docs/adr/0001-use-madr.md", madr2).unwrap();
        assert_eq!(d.status, "superseded by ADR-0005");
        assert_eq!(d.superseded_by.as_deref(), Some("docs/adr/0005-use-madr-4.md"));
        assert_eq!(d.date.as_deref(), Some("2018-09-15"));
        assert_eq!(d.chosen_option.as_deref(), Some("MADR 2.1.2"));
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
    fn a_record_adr_tools_superseded_reads_as_superseded() {
        // `adr new -s 2` on debate's accepted record: only its status section changes.
        let edited = "---\nid: DEB-abc123\nstatus: accepted\n\n---\n# Redis or Postgres\n\n- Status: accepted\n\n## Status\n\nSuperseded by [3. Use Redis](0003-use-redis.md)\n\n## Question\n\nWhich?\n";
        let d = read("doc/adr/0002-redis-or-postgres.md", edited).unwrap();
        assert_eq!(d.status, "Superseded by 3. Use Redis");
        assert_eq!(d.superseded_by.as_deref(), Some("doc/adr/0003-use-redis.md"));
        let accepted = edited.replace("Superseded by [3. Use Redis](0003-use-redis.md)", "Accepted");
        assert_eq!(read("doc/adr/0002-redis-or-postgres.md", &accepted).unwrap().status, "accepted");
    }

    #[test]
    fn a_status_history_under_the_status_is_not_the_status() {
        let nygard = "# 1. X\n\n## Status\n\nAccepted\n\nAccepted on 2026-11-22 by Jane Doe (was Proposed).\n";
        assert_eq!(read("adr/0001-x.md", nygard).unwrap().status, "Accepted");
        let madr2 =
            "# X\n\n* Status: accepted\n  Accepted on 2026-11-22 by Jane Doe (was proposed).\n* Date: 2026-11-20\n";
        let d = read("adr/0001-x.md", madr2).unwrap();
        assert_eq!((d.status.as_str(), d.date.as_deref()), ("accepted", Some("2026-11-20")));
        let wrapped = "# X\n\n## Status\n\nSuperseded by\n[2. Y](0002-y.md)\n";
        assert_eq!(
            read("adr/0001-x.md", wrapped).unwrap().status,
            "Superseded by 2. Y",
            "a status paragraph reads whole"
        );
    }

    #[test]
    fn the_chosen_option_in_every_form() {
        let chosen = |body: &str| {
            read("adr/0001-x.md", &format!("# X\n\n## Decision Outcome\n\n{body}\n")).unwrap().chosen_option
        };
        assert_eq!(chosen("Chosen option: \"Postgres\", because it is the one we run."), Some("Postgres".into()));
        assert_eq!(
            chosen("Chosen option: \"Redis, then Postgres\", because both."),
            Some("Redis, then Postgres".into())
        );
        assert_eq!(chosen("Chosen option: Postgres, because it is the one we run."), Some("Postgres".into()));
        assert_eq!(chosen("Chosen option: Postgres"), Some("Postgres".into()));
        assert_eq!(chosen("Chosen option: “Postgres”, because."), Some("Postgres".into()));
        assert_eq!(chosen("Chosen option: [Postgres](https://postgresql.org), because."), Some("Postgres".into()));
        assert_eq!(
            chosen("**Chosen option:** Postgres · **Clear winner:** Operational Simplicity"),
            Some("Postgres".into())
        );
        assert_eq!(chosen("**Chosen option:** *(none of the options was chosen)*"), None);
        assert_eq!(chosen("We went with Postgres."), None);
        let section = "# X\n\n## Chosen option\n\nPostgres\n";
        assert_eq!(read("adr/0001-x.md", section).unwrap().chosen_option.as_deref(), Some("Postgres"));
        let in_code =
            "# X\n\n```\nChosen option: \"Not this\"\n```\n\n## Decision Outcome\n\nChosen option: \"This\"\n";
        assert_eq!(read("adr/0001-x.md", in_code).unwrap().chosen_option.as_deref(), Some("This"));
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
    fn indexes_and_templates_are_no_records() {
        assert!(is_record_name("0001-use-postgres.md"));
        assert!(is_record_name("0004-use-mjml-email-templates.md"));
        for name in [
            "README.md",
            "readme.md",
            "index.md",
            "template.md",
            "adr-template.md",
            "0000-template.md",
            "x.txt",
            "0001-x.transcript.md",
        ] {
            assert!(!is_record_name(name), "{name}");
        }
    }

    #[test]
    fn the_sections_that_differ_are_named() {
        let before = "---\nid: x\n---\n# T\n## Decision Outcome\nRedis.\n## Consequences\nFast.\n";
        let after = "---\nid: x\n---\n# T\n## Decision Outcome\nPostgres.\n## Consequences\nFast.\n## Notes\nAdded.\n";
        assert_eq!(sections_that_differ(before, after), ["Decision Outcome", "Notes"]);
        assert!(sections_that_differ(before, &before.replace('\n', "\r\n")).is_empty());
    }
}
