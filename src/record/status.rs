//! A record's status, rewritten where the record keeps it: the `status:` key of its
//! YAML front matter (debate's own records, MADR 3 and 4), a `* Status: …` line (MADR
//! 2), or the paragraph under `## Status` (Nygard, adr-tools). Nothing else in the file
//! changes, so the diff a reviewer sees is that one line. Pure.

use crate::text::untrusted::one_line;

/// The text with its status set to `status`; `None` when the record states its status
/// in none of those places. Setting the same status again changes nothing.
pub fn set(text: &str, status: &str) -> Option<String> {
    let status = one_line(status);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (at, end, line) =
        front_matter(&lines, &status).or_else(|| labelled(&lines, &status)).or_else(|| section(&lines, &status))?;
    let mut out: String = lines[..at].concat();
    out.push_str(&line);
    out.push_str(&lines[end..].concat());
    Some(out)
}

/// The status in a record's front matter, as written (quotes removed).
pub fn of(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let close = front_matter_end(&lines)?;
    let value = (1..close).find_map(|i| {
        let (key, value) = lines[i].split_once(':')?;
        key.eq_ignore_ascii_case("status").then_some(value)
    })?;
    let value = value.trim().trim_matches(['"', '\'']).trim();
    (!value.is_empty()).then(|| value.to_string())
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

/// `status: …` in front matter (with any indented continuation lines of its value);
/// as a JSON string, which YAML reads whatever the status holds.
fn front_matter(lines: &[&str], status: &str) -> Option<(usize, usize, String)> {
    let close = front_matter_end(lines)?;
    let at =
        (1..close).find(|&i| lines[i].split_once(':').is_some_and(|(key, _)| key.eq_ignore_ascii_case("status")))?;
    let end = (at + 1..close).find(|&i| !lines[i].starts_with([' ', '\t'])).unwrap_or(close);
    let key = lines[at].split_once(':').map_or("status", |(key, _)| key);
    let quoted = serde_json::to_string(status).unwrap_or_default();
    Some((at, end, format!("{key}: {quoted}{}", ending(lines[at]))))
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
fn labelled(lines: &[&str], status: &str) -> Option<(usize, usize, String)> {
    let first_section = lines.iter().position(|l| l.starts_with("## ")).unwrap_or(lines.len());
    // Never a line of the front matter: that is YAML, and `front_matter` owns it.
    let body = front_matter_end(lines).map_or(0, |close| close + 1);
    lines[..first_section].iter().enumerate().skip(body).find_map(|(at, line)| {
        let body = line.trim_start();
        let rest = body.strip_prefix("* ").or_else(|| body.strip_prefix("- ")).unwrap_or(body).trim_start();
        let colon = rest.find(':')?;
        if !rest[..colon].trim_matches('*').trim().eq_ignore_ascii_case("status") {
            return None;
        }
        let label_end = colon + 1 + if rest[colon + 1..].starts_with("**") { 2 } else { 0 };
        let label = &line[..line.len() - rest.len() + label_end];
        Some((at, at + 1, format!("{label} {status}{}", ending(line))))
    })
}

/// The paragraph under a `## Status` heading.
fn section(lines: &[&str], status: &str) -> Option<(usize, usize, String)> {
    let heading = lines.iter().position(|l| {
        let l = l.trim();
        l.starts_with('#') && l.trim_start_matches('#').trim().eq_ignore_ascii_case("status")
    })?;
    let at = (heading + 1..lines.len()).find(|&i| !lines[i].trim().is_empty())?;
    if lines[at].trim_start().starts_with('#') {
        return None;
    }
    let end = (at..lines.len()).find(|&i| lines[i].trim().is_empty() || lines[i].trim_start().starts_with('#'));
    let end = end.unwrap_or(lines.len());
    let last = lines[end - 1];
    Some((at, end, format!("{status}{}", ending(last))))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            format!("# 1. Use Postgres\n\nDate: 2025-03-01\n\n## Status\n\n{BY}\n\n## Context\n\nWe need a store.\n")
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
}
