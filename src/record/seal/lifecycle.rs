//! A change of a record's status by another tool or a person, told from an edit of its
//! decision: adr-tools' `adr new -s N` rewrites the superseded record's `## Status`
//! section (it takes `Accepted` out and adds `Superseded by [N. Title](file.md)`);
//! log4brains and a person move the header's `- Status:` line or the front matter's
//! `status:`. Such a change touches only the parts that state the status, and leaves
//! there only what a status is: a status word, perhaps `by` a link, and link lines
//! (`Supersedes [..](..)`, `Amended by [..](..)`). Anything else, there or anywhere,
//! is an edit. Pure.

use std::sync::LazyLock;

use regex::Regex;

use crate::record::seal::parts::{self, FORMAT_1, STATUS_LINES, STATUS_SECTION};

/// The parts a change of status may touch in a seal of `format`: format 1 bound the
/// status lines with the rest of the front matter and the header, so only its
/// `## Status` section can be told apart.
pub fn parts_of(format: &str) -> &'static [&'static str] {
    match format {
        FORMAT_1 => &[STATUS_SECTION],
        _ => &[STATUS_LINES, STATUS_SECTION],
    }
}

/// A status as a record states it: a lifecycle word, perhaps `by` a link to the record
/// that did it.
static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(proposed|accepted|rejected|deprecated|superseded|draft)(\s+by\s+\[[^\]\n]{1,300}\]\([^)\s]{1,300}\))?\.?$")
        .expect("a valid pattern")
});

/// A link line adr-tools writes under `## Status` (`Supersedes [2. X](0002-x.md)`,
/// `Amended by …`): a few words and one link.
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Z][a-z]+(\s[a-z]+){0,3}\s\[[^\]\n]{1,300}\]\([^)\s]{1,300}\)$").expect("a valid pattern")
});

/// Whether `record`'s status lines and `## Status` section hold only what a status is;
/// otherwise the first line that is not, to name it.
pub fn only_status(record: &str) -> Result<(), String> {
    let (lines, section) = parts::status_text(record);
    for line in &lines {
        let value = line.split_once(':').map_or("", |(_, value)| value).trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        if !STATUS.is_match(value) {
            return Err(line.clone());
        }
    }
    for line in section.as_deref().unwrap_or_default().lines().map(str::trim) {
        if !(line.is_empty() || STATUS.is_match(line) || LINK.is_match(line)) {
            return Err(line.to_string());
        }
    }
    Ok(())
}

/// The status the record states now, on one line, for a note.
pub fn now(record: &str) -> String {
    crate::record::lifecycle::status::current(&parts::lf(record)).unwrap_or_else(|| "no status".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: accepted\n---\n# Cache\n\n- Status: accepted\n\n## Status\n\nAccepted\n\nSupersedes [1. Old](0001-old.md)\n\n## Decision\n\nRedis.\n";

    #[test]
    fn what_adr_tools_log4brains_and_a_person_write_is_a_status() {
        assert_eq!(only_status(RECORD), Ok(()));
        let adr_new_s = RECORD.replace("\nAccepted\n", "\nSuperseded by [3. Memcached](0003-memcached.md)\n");
        assert_eq!(only_status(&adr_new_s), Ok(()));
        let log4brains = RECORD.replace("- Status: accepted", "- Status: superseded by [ADR-0003](0003-memcached.md)");
        assert_eq!(only_status(&log4brains), Ok(()));
        let by_hand = RECORD.replace("status: accepted", "status: \"deprecated\"");
        assert_eq!(only_status(&by_hand), Ok(()));
    }

    #[test]
    fn prose_where_the_status_goes_is_no_status() {
        let prose = RECORD.replace("\nAccepted\n", "\nAccepted. We use Postgres after all.\n");
        assert_eq!(only_status(&prose), Err("Accepted. We use Postgres after all.".into()));
        let line = RECORD.replace("- Status: accepted", "- Status: accepted, but use MySQL");
        assert_eq!(only_status(&line), Err("- Status: accepted, but use MySQL".into()));
        assert_eq!(now(RECORD), "accepted");
    }
}
