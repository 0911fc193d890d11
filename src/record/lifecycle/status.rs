//! A record's status, read and rewritten where the record keeps it: the `status:` key
//! of its YAML front matter (debate's own records, MADR 3 and 4), a `* Status: …` line
//! (MADR 2), or the paragraph under `## Status` (Nygard, adr-tools). A change of status
//! also leaves a line of history: an entry of a `status-history:` list in the front
//! matter, or a sentence under the status in the body. Nothing else in the file
//! changes, so the diff a reviewer sees is those lines. Pure.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::record::render::front_matter::{flow, scalar};
use crate::text::markdown;
use crate::text::untrusted::one_line;
use crate::text::yaml;

/// Who changed a status, and when: for the history.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// The git identity's name, when there is one.
    pub by: Option<&'a str>,
}

/// Where a record keeps its status.
enum Place {
    /// A front matter key, as the record spells it.
    FrontMatter { key: String },
    /// A labelled line before the first section; `label` is the line up to the value
    /// (`* Status:`), `indent` what a line continuing its list item starts with.
    Labelled { label: String, indent: String },
    /// The paragraph under a `## Status` heading.
    Section,
}

/// `text` without its `## Status` section (up to the next heading), or `None` when it
/// has none.
pub fn without_section(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let heading = status_heading(&lines)?;
    let end = (heading + 1..lines.len()).find(|&i| lines[i].starts_with('#')).unwrap_or(lines.len());
    Some(lines[..heading].concat() + &lines[end..].concat())
}

/// The status's lines, `at..end`, and how they are written.
struct Found {
    at: usize,
    end: usize,
    place: Place,
}

/// The text with its status set to `status` in every place it states it, in the case
/// that place writes it (`Accepted` under `## Status`, `accepted` in front matter);
/// `None` when it states it in none of those places. Setting the same status again
/// changes nothing.
pub fn set(text: &str, status: &str) -> Option<String> {
    let status = one_line(status);
    rewrite(text, |place| styled(&status, place))
}

/// The text with the status of each place that states one replaced by `status_for` the
/// status that place holds now: the last place first, so the earlier ones stay where
/// they were found.
fn rewrite(text: &str, status_for: impl Fn(&str) -> String) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut places = locate_all(&lines);
    if places.is_empty() {
        return None;
    }
    places.sort_by_key(|found| std::cmp::Reverse(found.at));
    let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
    for found in places {
        let status = status_for(&status_at(&lines, &found).unwrap_or_default());
        let line = match &found.place {
            Place::FrontMatter { key } => format!("{key}: {}{}", scalar(&status), ending(lines[found.at])),
            Place::Labelled { label, .. } => format!("{label} {status}{}", ending(lines[found.at])),
            Place::Section => format!("{status}{}", ending(lines[found.end - 1])),
        };
        out.splice(found.at..found.end, [line]);
    }
    Some(out.concat())
}

/// The lifecycle word of a stated status: `superseded` for "Superseded by [X](x.md)",
/// `accepted` for "Accepted", lowercase.
pub fn lifecycle(status: &str) -> String {
    let word = status.split_whitespace().next().unwrap_or_default();
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// The status as the record states it, on one line, where it is read first (its front
/// matter, a labelled line, a section); `None` when it states none.
pub fn current(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let stated = status_at(&lines, &locate(&lines)?)?;
    match superseded_in_section(&lines) {
        Some(link) if !stated.to_lowercase().starts_with("superseded") => Some(link),
        _ => Some(stated),
    }
}

/// The `Superseded by [title](file)` line adr-tools' `adr new -s` adds under a record's
/// `## Status` heading: it edits that section alone, so the record's other places may
/// still say `accepted`, yet it is superseded.
fn superseded_in_section(lines: &[&str]) -> Option<String> {
    let heading = status_heading(lines)?;
    lines[heading + 1..]
        .iter()
        .map(|line| line.trim())
        .take_while(|line| !line.starts_with('#'))
        .find(|line| line.get(..14).is_some_and(|p| p.eq_ignore_ascii_case("superseded by ")) && line.contains("]("))
        .map(one_line)
}

/// The status `found` holds, on one line; `None` when it is empty.
fn status_at(lines: &[&str], found: &Found) -> Option<String> {
    let status = match &found.place {
        Place::FrontMatter { .. } => match first_value(&lines[found.at..found.end].concat())? {
            Value::String(text) => text,
            Value::Null => String::new(),
            other => other.to_string(),
        },
        Place::Labelled { label, .. } => lines[found.at].get(label.len()..).unwrap_or_default().to_string(),
        Place::Section => lines[found.at..found.end].concat(),
    };
    Some(one_line(&status)).filter(|s| !s.is_empty())
}

/// Why the record's front matter cannot be read as YAML (a key written twice, say), if
/// it has front matter and it cannot: no status in it can then be trusted.
pub fn front_matter_problem(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let end = front_matter_end(&lines)?;
    crate::text::yaml::parse::<serde_json::Value>(&lines[1..end].concat(), "its front matter").err()
}

/// The text with its status changed to `status` — written in the case the record
/// writes its status in, `Accepted` where it had `Proposed` — and the change added to
/// its history. Unchanged when the status already is `status` (in any case); `None`
/// when the record states no status.
pub fn transition(text: &str, status: &str, entry: Entry) -> Option<String> {
    if front_matter_problem(text).is_some() {
        return None;
    }
    let previous = current(text)?;
    let status = one_line(status);
    if previous.eq_ignore_ascii_case(&status) {
        return Some(text.to_string());
    }
    // Each place in the case it writes its status: `Accepted` where it had `Proposed`.
    let changed = rewrite(text, |before| styled(&status, before))?;
    let lines: Vec<&str> = changed.split_inclusive('\n').collect();
    let found = locate(&lines)?;
    let nl = match ending(lines[found.at]) {
        "" => "\n",
        nl => nl,
    };
    let word = status.split_whitespace().next().unwrap_or_default().to_lowercase();
    let by = entry.by.map(one_line).filter(|name| !name.is_empty());
    let by = by.map(|name| format!(" by {name}")).unwrap_or_default();
    let sentence = || sentence(&word, entry.date, &by, &previous);
    let (range, added) = match &found.place {
        Place::FrontMatter { .. } => front_matter_history(&lines, &found, &format!("{word} {}{by}", entry.date)),
        Place::Labelled { indent, .. } => {
            // Lines continuing the status's list item (or its paragraph, unlisted).
            let at = history_after(&lines, found.end, |line| indent.is_empty() || line.starts_with([' ', '\t']));
            (at..at, vec![format!("{indent}{}", sentence())])
        }
        Place::Section => {
            let history_follows = lines.get(found.end).is_some_and(|l| l.trim().is_empty())
                && lines.get(found.end + 1).is_some_and(|l| HISTORY.is_match(l));
            match history_follows {
                true => {
                    let at = history_after(&lines, found.end + 1, |_| true);
                    (at..at, vec![sentence()])
                }
                false => (found.end..found.end, vec![String::new(), sentence()]),
            }
        }
    };
    let added: Vec<String> = added.into_iter().map(|line| format!("{line}{nl}")).collect();
    Some(replace(&lines, range, &added))
}

/// `lines` with `range` replaced by `with`; a last line without an ending gets one
/// when lines follow it.
fn replace(lines: &[&str], range: Range<usize>, with: &[String]) -> String {
    let mut out: String = lines[..range.start].concat();
    if !with.is_empty() && !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&with.concat());
    out.push_str(&lines[range.end..].concat());
    out
}

/// `Accepted on 2026-11-22 by Jane Doe (was Proposed).`: one line of prose.
fn sentence(word: &str, date: &str, by: &str, previous: &str) -> String {
    let mut chars = word.chars();
    let word: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    markdown::line(&format!("{word} on {date}{by} (was {previous})."))
}

/// A line of status history in the body, as `sentence` writes it.
static HISTORY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\S+ on \d{4}-\d{2}-\d{2}\b.*\(was .*\)\.\s*$").expect("a valid pattern"));

/// Where the next history line goes: after the history lines from `from` on.
fn history_after(lines: &[&str], from: usize, belongs: impl Fn(&str) -> bool) -> usize {
    (from..lines.len()).find(|&i| !(HISTORY.is_match(lines[i]) && belongs(lines[i]))).unwrap_or(lines.len())
}

/// The line that gives the front matter's `status-history:` list `entry` at its end,
/// and the lines it replaces (the key's own, or none when there is no list yet). The
/// list is written on one line: a front matter item on a line of its own would be the
/// first list of the record to a renderer that knows no front matter, where log4brains
/// looks for the header.
fn front_matter_history(lines: &[&str], status: &Found, entry: &str) -> (Range<usize>, Vec<String>) {
    let close = front_matter_end(lines).unwrap_or(status.end);
    let key = (1..close).find(|&i| key_of(lines[i]).is_some_and(|k| k.eq_ignore_ascii_case("status-history")));
    let (range, name, earlier) = match key {
        None => (status.end..status.end, "status-history", Vec::new()),
        Some(key) => {
            let end = (key + 1..close).find(|&i| !lines[i].starts_with([' ', '\t', '-'])).unwrap_or(close);
            let value = lines[key].split_once(':').map_or("", |(_, v)| v).trim();
            let earlier = match first_value(&lines[key..end].concat()) {
                Some(Value::Array(items)) => items,
                Some(Value::Null) => Vec::new(),
                Some(other) => vec![other],
                None => vec![Value::from(value)],
            };
            (key..end, key_of(lines[key]).unwrap_or("status-history"), earlier)
        }
    };
    let list = Value::Array(earlier.into_iter().chain([Value::from(entry)]).collect());
    (range, vec![format!("{name}: {}", flow(&list))])
}

/// The value of the one-key YAML mapping `text`.
fn first_value(text: &str) -> Option<Value> {
    let mapping: Value = yaml::parse(text, "front matter").ok()?;
    mapping.as_object()?.values().next().cloned()
}

/// A front matter line's key, if it starts one.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    (!key.is_empty() && !key.starts_with([' ', '\t', '-', '#'])).then_some(key.trim_end())
}

/// `status` in the case the record writes its status: capitalised after `Accepted`.
fn styled(status: &str, previous: &str) -> String {
    let capital = previous.chars().next().is_some_and(char::is_uppercase);
    let mut chars = status.chars();
    match (capital, chars.next()) {
        (true, Some(first)) => first.to_uppercase().chain(chars).collect(),
        _ => status.to_string(),
    }
}

/// `rendered` (a record written again) with the status `before` (the file as it is)
/// had, and the front matter's status history: what reviewers did to the record
/// outlives its being rewritten.
pub fn keep(before: &str, rendered: &str) -> String {
    let Some(given) = current(before) else { return rendered.to_string() };
    let mut text = match current(rendered) {
        Some(now) if now == given => rendered.to_string(),
        _ => set(rendered, &given).unwrap_or_else(|| rendered.to_string()),
    };
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let Some(close) = front_matter_end(&old) else { return text };
    let is_history = |line: &str| key_of(line).is_some_and(|k| k.eq_ignore_ascii_case("status-history"));
    let Some(key) = (1..close).find(|&i| is_history(old[i])) else { return text };
    let end = (key + 1..close).find(|&i| !old[i].starts_with([' ', '\t', '-'])).unwrap_or(close);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let has_history = front_matter_end(&lines).is_some_and(|c| (1..c).any(|i| is_history(lines[i])));
    if let (false, Some(found)) = (has_history, locate(&lines)) {
        let history: Vec<String> = old[key..end].iter().map(|l| l.to_string()).collect();
        text = lines[..found.end].concat() + &history.concat() + &lines[found.end..].concat();
    }
    text
}

/// The line ending a line had, so the rewritten one keeps the file's style.
fn ending(line: &str) -> &'static str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

/// Where the record's status is read: the first of the places that state one.
fn locate(lines: &[&str]) -> Option<Found> {
    locate_all(lines).into_iter().next()
}

/// Every place the record states its status, in the order they are read: its front
/// matter (debate's records, MADR 3 and 4), a labelled line before the first section
/// (MADR 2, log4brains, and debate's header), a `## Status` section (Nygard, adr-tools).
fn locate_all(lines: &[&str]) -> Vec<Found> {
    let front = front_matter(lines);
    // Beside a front matter status, only a list item is another place of it: a sentence
    // that starts `Status:` is prose.
    let listed = |found: &Found| matches!(&found.place, Place::Labelled { indent, .. } if !indent.is_empty());
    let labelled = labelled(lines).filter(|found| front.is_none() || listed(found));
    [front, labelled, section(lines)].into_iter().flatten().collect()
}

/// `status: …` in front matter, with any indented continuation lines of its value.
fn front_matter(lines: &[&str]) -> Option<Found> {
    let close = front_matter_end(lines)?;
    let at = (1..close).find(|&i| key_of(lines[i]).is_some_and(|key| key.eq_ignore_ascii_case("status")))?;
    let end = (at + 1..close).find(|&i| !lines[i].starts_with([' ', '\t'])).unwrap_or(close);
    let key = key_of(lines[at]).unwrap_or("status").to_string();
    Some(Found { at, end, place: Place::FrontMatter { key } })
}

/// The line that closes the front matter, if the text opens with one (a byte-order
/// mark before it is allowed).
fn front_matter_end(lines: &[&str]) -> Option<usize> {
    if lines.first()?.trim_start_matches('\u{feff}').trim_end() != "---" {
        return None;
    }
    Some(lines.iter().skip(1).position(|l| matches!(l.trim_end(), "---" | "..."))? + 1)
}

/// `* Status: …` (or `- **Status:** …`, `Status: …`) before the first section, as
/// MADR 2 writes it; the label is kept as written.
fn labelled(lines: &[&str]) -> Option<Found> {
    let first_section = lines.iter().position(|l| l.starts_with("## ")).unwrap_or(lines.len());
    // Never a line of the front matter: that is YAML, and `front_matter` owns it.
    let body = front_matter_end(lines).map_or(0, |close| close + 1);
    lines[..first_section].iter().enumerate().skip(body).find_map(|(at, line)| {
        let body = line.trim_start();
        let bullet = body.strip_prefix("* ").or_else(|| body.strip_prefix("- ")).or_else(|| body.strip_prefix("+ "));
        let rest = bullet.unwrap_or(body).trim_start();
        let colon = rest.find(':')?;
        if !rest[..colon].trim_matches('*').trim().eq_ignore_ascii_case("status") {
            return None;
        }
        let label_end = colon + 1 + if rest[colon + 1..].starts_with("**") { 2 } else { 0 };
        let label = line[..line.len() - rest.len() + label_end].to_string();
        let indent = match bullet {
            Some(_) => " ".repeat(line.len() - body.len() + 2),
            None => String::new(),
        };
        Some(Found { at, end: at + 1, place: Place::Labelled { label, indent } })
    })
}

/// The paragraph under a `## Status` heading.
fn section(lines: &[&str]) -> Option<Found> {
    let heading = status_heading(lines)?;
    let at = (heading + 1..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    if lines[at].trim_start().starts_with('#') {
        return None;
    }
    let end = (at..lines.len()).find(|&i| lines[i].trim().is_empty() || lines[i].trim_start().starts_with('#'));
    Some(Found { at, end: end.unwrap_or(lines.len()), place: Place::Section })
}

/// The line of the `## Status` heading, never a line of a fenced code block.
fn status_heading(lines: &[&str]) -> Option<usize> {
    let mut fence: Option<String> = None;
    lines.iter().position(|line| {
        let text = line.trim_end();
        let unindented = text.trim_start();
        if text.len() - unindented.len() > 3 {
            return false;
        }
        let marker: String = unindented.chars().take_while(|c| matches!(c, '`' | '~')).collect();
        let one_kind = marker.len() >= 3 && marker.chars().all(|c| marker.starts_with(c));
        match &fence {
            Some(open) => {
                if one_kind && marker.starts_with(open.as_str()) && unindented == marker {
                    fence = None;
                }
                false
            }
            None if one_kind => {
                fence = Some(marker);
                false
            }
            None => {
                unindented.starts_with('#') && unindented.trim_start_matches('#').trim().eq_ignore_ascii_case("status")
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_record_keeps_the_status_and_history_reviewers_gave_it() {
        let before = "---\nid: DEB-abc123\nstatus: accepted\nstatus-history:\n  - \"accepted 2026-11-22 by Jane\"\ndate: 2026-11-20\n---\n# Old\n";
        let rendered = "---\nid: DEB-abc123\nstatus: proposed\ndate: 2026-11-20\n---\n# New\n";
        assert_eq!(
            keep(before, rendered),
            "---\nid: DEB-abc123\nstatus: accepted\nstatus-history:\n  - \"accepted 2026-11-22 by Jane\"\ndate: 2026-11-20\n---\n# New\n"
        );
        let untouched = "---\nid: DEB-abc123\nstatus: proposed\ndate: 2026-11-20\n---\n# Old\n";
        assert_eq!(keep(untouched, rendered), rendered, "nothing given, nothing kept");
    }

    const BY: &str = "superseded by [Use Redis for caching](0002-use-redis-for-caching.md)";

    #[test]
    fn front_matter_gets_a_quoted_status_and_nothing_else_changes() {
        let ours = "---\nid: DEB-abc123\ntitle: \"Use Postgres\"\nstatus: proposed\ndate: 2026-01-05\n---\n# Decision: Use Postgres\n\nstatus: in the body stays\n";
        let set = set(ours, BY).unwrap();
        assert_eq!(
            set,
            "---\nid: DEB-abc123\ntitle: \"Use Postgres\"\nstatus: \"superseded by [Use Redis for caching](0002-use-redis-for-caching.md)\"\ndate: 2026-01-05\n---\n# Decision: Use Postgres\n\nstatus: in the body stays\n"
        );
        assert_eq!(super::set(&set, BY).unwrap(), set, "setting it again changes nothing");
    }

    #[test]
    fn a_madr_2_status_line_keeps_its_bullet() {
        let madr = "# Use Postgres\n\n* Status: accepted\n* Date: 2025-03-01\n\n## Context and Problem Statement\n\nStatus: not this one\n";
        assert_eq!(
            set(madr, BY).unwrap(),
            format!(
                "# Use Postgres\n\n* Status: {BY}\n* Date: 2025-03-01\n\n## Context and Problem Statement\n\nStatus: not this one\n"
            )
        );
        let bold = "# X\n\n- **Status:** proposed\r\n";
        assert_eq!(set(bold, "accepted").unwrap(), "# X\n\n- **Status:** accepted\r\n");
    }

    #[test]
    fn a_nygard_status_section_has_its_paragraph_replaced() {
        let nygard = "# 1. Use Postgres\n\nDate: 2025-03-01\n\n## Status\n\nAccepted\nsince March\n\n## Context\n\nWe need a store.\n";
        assert_eq!(
            set(nygard, BY).unwrap(),
            format!(
                "# 1. Use Postgres\n\nDate: 2025-03-01\n\n## Status\n\nS{}\n\n## Context\n\nWe need a store.\n",
                &BY[1..]
            ),
            "capitalised where the section was"
        );
    }

    #[test]
    fn a_record_without_a_status_is_left_alone() {
        assert_eq!(set("# Notes\n\nNo status here.\n", BY), None);
        assert_eq!(set("# X\n\n## Status\n\n## Context\n", BY), None, "an empty status section");
    }

    #[test]
    fn front_matter_keys_in_any_case_and_after_a_byte_order_mark_stay_yaml() {
        let text = "\u{feff}---\nStatus: accepted\ntitle: x\n---\n# X\n";
        let set = set(text, "superseded by [Cache: Redis #1](0002-x.md)").unwrap();
        assert_eq!(set, "\u{feff}---\nStatus: \"superseded by [Cache: Redis #1](0002-x.md)\"\ntitle: x\n---\n# X\n");
        let front: serde_json::Value =
            serde_saphyr::from_str(set.trim_start_matches('\u{feff}').split("---").nth(1).unwrap()).unwrap();
        assert_eq!(front["Status"], "superseded by [Cache: Redis #1](0002-x.md)");
        // Front matter without a status: the body's line is used, the YAML left alone.
        let text = "---\ntitle: \"Status: not this\"\n---\n# X\n\n* Status: accepted\n";
        assert_eq!(
            super::set(text, "rejected").unwrap(),
            "---\ntitle: \"Status: not this\"\n---\n# X\n\n* Status: rejected\n"
        );
    }

    #[test]
    fn a_hostile_status_stays_one_line() {
        let set = set("---\nstatus: proposed\n---\n", "superseded by\n---\nstatus: \"x\"").unwrap();
        assert_eq!(set.lines().count(), 3, "{set}");
    }

    const ON: Entry = Entry { date: "2026-11-22", by: Some("Jane Doe") };

    #[test]
    fn the_current_status_is_read_where_it_is_kept() {
        assert_eq!(current("---\nid: x\nstatus: proposed\n---\n# X\n").as_deref(), Some("proposed"));
        assert_eq!(
            current("---\nStatus: \"superseded by [A](b.md)\"\n---\n").as_deref(),
            Some("superseded by [A](b.md)")
        );
        assert_eq!(current("# X\n\n* Status: accepted\n* Date: 2020\n").as_deref(), Some("accepted"));
        assert_eq!(current("# X\n\n- **Status:** proposed\r\n").as_deref(), Some("proposed"));
        assert_eq!(
            current("# 1. X\n\n## Status\n\nAccepted\nsince March\n\n## Context\n").as_deref(),
            Some("Accepted since March")
        );
        assert_eq!(current("# X\n\nNo status.\n"), None);
        assert_eq!(current("---\nstatus:\n---\n# X\n"), None, "an empty status is none");
    }

    #[test]
    fn a_superseding_link_adr_tools_added_to_the_status_section_is_the_status() {
        // `adr new -s` on an accepted record of debate's: `Accepted` gone from the section.
        let edited = "---\nstatus: accepted\n\n---\n# X\n\n- Status: accepted\n\n## Status\n\nSupersedes [0001-a](0001-a.md)\n\nSuperseded by [3. Y](0003-y.md)\n\n## Question\n";
        assert_eq!(current(edited).as_deref(), Some("Superseded by [3. Y](0003-y.md)"));
        let no_link = "# X\n\n## Status\n\nAccepted\n\nSuperseded by nothing yet\n";
        assert_eq!(current(no_link).as_deref(), Some("Accepted"));
        let elsewhere = "# X\n\n## Status\n\nAccepted\n\n## Notes\n\nSuperseded by [3. Y](0003-y.md)\n";
        assert_eq!(current(elsewhere).as_deref(), Some("Accepted"), "only the status section says so");
    }

    #[test]
    fn front_matter_records_keep_a_status_history_list() {
        let ours = "---\nid: DEB-abc123\nstatus: proposed\ndate: 2026-11-20\n---\n# Decision: X\n";
        let accepted = transition(ours, "accepted", ON).unwrap();
        assert_eq!(
            accepted,
            "---\nid: DEB-abc123\nstatus: accepted\nstatus-history: [accepted 2026-11-22 by Jane Doe]\ndate: 2026-11-20\n---\n# Decision: X\n"
        );
        assert_eq!(transition(&accepted, "Accepted", ON).unwrap(), accepted, "the same status again changes nothing");
        let later = Entry { date: "2026-12-01", by: None };
        let deprecated = transition(&accepted, "deprecated", later).unwrap();
        assert!(
            deprecated.contains(
                "status: deprecated\nstatus-history: [accepted 2026-11-22 by Jane Doe, deprecated 2026-12-01]\ndate:"
            ),
            "{deprecated}"
        );
        let front: serde_json::Value = yaml::parse(deprecated.split("---").nth(1).unwrap(), "t").unwrap();
        assert_eq!(
            front["status-history"],
            serde_json::json!(["accepted 2026-11-22 by Jane Doe", "deprecated 2026-12-01"])
        );
    }

    #[test]
    fn an_inline_or_hostile_history_stays_yaml() {
        let inline = "---\nstatus: proposed\nstatus-history: [\"proposed 2026-01-01\"]\ntitle: x\n---\n";
        let hostile = Entry { date: "2026-11-22", by: Some("Eve\n---\nstatus: \"owned\"") };
        let out = transition(inline, "rejected", hostile).unwrap();
        let front: serde_json::Value = yaml::parse(out.split("---\n").nth(1).unwrap(), "t").unwrap();
        assert_eq!(front["status"], "rejected");
        assert_eq!(front["title"], "x");
        assert_eq!(
            front["status-history"],
            serde_json::json!(["proposed 2026-01-01", "rejected 2026-11-22 by Eve --- status: \"owned\""])
        );
        assert_eq!(out.matches("---").count(), 3, "{out}");
        let empty = transition("---\nstatus: proposed\nstatus-history: []\n---\n", "accepted", ON).unwrap();
        assert_eq!(empty, "---\nstatus: accepted\nstatus-history: [accepted 2026-11-22 by Jane Doe]\n---\n");
    }

    #[test]
    fn a_madr_2_status_line_gets_its_history_in_its_list_item() {
        let madr = "# Use Postgres\n\n* Status: proposed\n* Date: 2025-03-01\n\n## Context\n";
        let accepted = transition(madr, "accepted", ON).unwrap();
        assert_eq!(
            accepted,
            "# Use Postgres\n\n* Status: accepted\n  Accepted on 2026-11-22 by Jane Doe (was proposed).\n* Date: 2025-03-01\n\n## Context\n"
        );
        let deprecated = transition(&accepted, "deprecated", ON).unwrap();
        assert_eq!(
            deprecated,
            "# Use Postgres\n\n* Status: deprecated\n  Accepted on 2026-11-22 by Jane Doe (was proposed).\n  Deprecated on 2026-11-22 by Jane Doe (was accepted).\n* Date: 2025-03-01\n\n## Context\n"
        );
        assert_eq!(current(&deprecated).as_deref(), Some("deprecated"));
    }

    #[test]
    fn a_nygard_status_gets_its_history_as_a_paragraph_under_it() {
        let nygard = "# 1. Use Postgres\n\n## Status\n\nProposed\n\n## Context\n\nWe need a store.\n";
        let accepted = transition(nygard, "accepted", ON).unwrap();
        assert_eq!(
            accepted,
            "# 1. Use Postgres\n\n## Status\n\nAccepted\n\nAccepted on 2026-11-22 by Jane Doe (was Proposed).\n\n## Context\n\nWe need a store.\n"
        );
        let superseded = transition(&accepted, "superseded by [2. Use Redis](0002-use-redis.md)", ON).unwrap();
        assert_eq!(
            superseded,
            "# 1. Use Postgres\n\n## Status\n\nSuperseded by [2. Use Redis](0002-use-redis.md)\n\nAccepted on 2026-11-22 by Jane Doe (was Proposed).\nSuperseded on 2026-11-22 by Jane Doe (was Accepted).\n\n## Context\n\nWe need a store.\n"
        );
        let at_the_end = transition("# 1. X\n\n## Status\n\nProposed", "rejected", ON).unwrap();
        assert_eq!(
            at_the_end,
            "# 1. X\n\n## Status\n\nRejected\n\nRejected on 2026-11-22 by Jane Doe (was Proposed).\n"
        );
        let crlf = transition("# 1. X\r\n\r\n## Status\r\n\r\nProposed\r\n", "accepted", ON).unwrap();
        assert_eq!(
            crlf,
            "# 1. X\r\n\r\n## Status\r\n\r\nAccepted\r\n\r\nAccepted on 2026-11-22 by Jane Doe (was Proposed).\r\n"
        );
    }

    #[test]
    fn a_name_cannot_make_a_heading_or_html() {
        let hostile = Entry { date: "2026-11-22", by: Some("<script>x</script>\n# Owned") };
        let out = transition("# X\n\n## Status\n\nProposed\n", "accepted", hostile).unwrap();
        assert!(!out.contains("<script>") && !out.contains("\n# Owned"), "{out}");
        assert_eq!(out.lines().count(), 7, "{out}");
    }

    #[test]
    fn every_place_of_debates_record_changes_together_and_history_is_kept_once() {
        let ours = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Use Postgres\n\n- Status: proposed\n- Date: 2026-11-20\n\n## Status\n\nProposed\n\nSupersedes [0001-x](0001-x.md)\n\n## Question\n\n```text\n## Status\n\nnot this\n```\n";
        let accepted = transition(ours, "accepted", ON).unwrap();
        assert_eq!(
            accepted,
            "---\nid: DEB-abc123\nstatus: accepted\nstatus-history: [accepted 2026-11-22 by Jane Doe]\n\n---\n# Use Postgres\n\n- Status: accepted\n- Date: 2026-11-20\n\n## Status\n\nAccepted\n\nSupersedes [0001-x](0001-x.md)\n\n## Question\n\n```text\n## Status\n\nnot this\n```\n"
        );
        let superseded = set(&accepted, "superseded by [0003-y](0003-y.md)").unwrap();
        assert!(superseded.contains("\nstatus: \"superseded by [0003-y](0003-y.md)\"\n"), "{superseded}");
        assert!(superseded.contains("\n- Status: superseded by [0003-y](0003-y.md)\n"), "{superseded}");
        assert!(superseded.contains("\n## Status\n\nSuperseded by [0003-y](0003-y.md)\n\nSupersedes"), "{superseded}");
        assert!(superseded.ends_with("## Status\n\nnot this\n```\n"), "a code block is no section: {superseded}");
        assert_eq!(keep(&superseded, ours), superseded, "kept in the case each place writes it");
    }
}
