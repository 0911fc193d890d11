//! What a record's digest covers, in a canonical form: the record cut into the parts a
//! reader names (its front matter, its header, each `##` section), the debate it
//! carries as RFC 8785 canonical JSON (however its line spells it), and the transcript
//! file beside it when there is one. Each part has its own SHA-256, so an edit is
//! named by the part it is in; the digest is the SHA-256 of all of them, with the
//! seal's note and the earlier signatures it keeps, as canonical JSON. Line endings are
//! not content: a record checked out with CRLF has the digest it was written with. Pure.

use serde_json::{Value, json};

use crate::attest::canonical::{canonical, sha256_hex};
use crate::record::read::carried;

/// The version of what the digest covers and how.
pub const FORMAT: &str = "debate-record-seal/1";

/// The part that holds the debate the record carries.
pub const DEBATE: &str = "the debate it carries";
/// The part that is the transcript file beside the record.
pub const TRANSCRIPT_FILE: &str = "the transcript file";

/// A part and the lowercase hex SHA-256 of its canonical text.
pub type Part = (String, String);

/// The parts of a record's text (its seal taken off) and of the transcript file
/// beside it, in the order they come.
pub fn parts(record: &str, sidecar: Option<&str>) -> Vec<Part> {
    let record = record.replace("\r\n", "\n");
    let (body, state) = without_state(&record);
    let mut parts = sections(&body);
    if let Some(sidecar) = sidecar {
        let sidecar = sidecar.replace("\r\n", "\n");
        let (text, carried) = without_state(&sidecar);
        parts.push((TRANSCRIPT_FILE.into(), sha256_hex(text.as_bytes())));
        parts.extend(carried.map(|json| (DEBATE.to_string(), state_digest(json))));
    }
    parts.extend(state.map(|json| (DEBATE.to_string(), state_digest(json))));
    parts
}

/// The digest of a record: `sha256:` and the hex SHA-256 of the canonical JSON of its
/// parts, the note under it and the earlier signatures its seal keeps.
pub fn digest(parts: &[Part], note: &str, earlier: &Value) -> String {
    let manifest = json!({"format": FORMAT, "parts": parts, "note": note, "earlier": earlier});
    // Strings, arrays and objects only: nothing canonicalisation refuses.
    format!("sha256:{}", sha256_hex(&canonical(&manifest).unwrap_or_default()))
}

/// The names of the parts that differ between `sealed` (as the seal lists them) and
/// `now` (as the record has them): changed, added or gone, in the record's order.
pub fn differing(sealed: &[Part], now: &[Part]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in now.iter().filter(|part| !sealed.contains(part)).chain(sealed.iter().filter(|p| !now.contains(p)))
    {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// The text without the line that carries its debate (the last such line, as
/// `carried::read` finds it), and that line's JSON.
fn without_state(text: &str) -> (String, Option<&str>) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match lines.iter().rposition(|line| carried::state_json(line.trim_end_matches('\n')).is_some()) {
        Some(at) => {
            let json = carried::state_json(lines[at].trim_end_matches('\n'));
            (lines[..at].concat() + &lines[at + 1..].concat(), json)
        }
        None => (text.to_string(), None),
    }
}

/// The digest of the carried debate's JSON in its canonical form; of its text as it is
/// when it is not JSON (such a record does not read back, but its digest still covers it).
fn state_digest(json: &str) -> String {
    match serde_json::from_str::<Value>(json).ok().and_then(|value| canonical(&value).ok()) {
        Some(bytes) => sha256_hex(&bytes),
        None => sha256_hex(json.as_bytes()),
    }
}

/// The text's front matter, the header before its first `##` heading, and each `##`
/// section, by name (a name that comes again gets its count: `Notes (2)`). Headings
/// inside fenced code are text.
fn sections(text: &str) -> Vec<Part> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut named: Vec<(String, String)> = Vec::new();
    let mut at = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(close) = lines.iter().skip(1).position(|l| matches!(l.trim_end(), "---" | "..."))
    {
        named.push(("front matter".into(), lines[..close + 2].concat()));
        at = close + 2;
    }
    named.push(("header".into(), String::new()));
    let mut fence: Option<String> = None;
    for line in &lines[at..] {
        let text = line.trim_end();
        let unindented = text.trim_start();
        let indent = text.len() - unindented.len();
        let marker: String = unindented.chars().take_while(|c| matches!(c, '`' | '~')).collect();
        let fenced = indent <= 3 && marker.len() >= 3 && marker.chars().all(|c| marker.starts_with(c));
        match &fence {
            Some(open) if fenced && marker.starts_with(open.as_str()) && unindented == marker => fence = None,
            Some(_) => {}
            None if fenced => fence = Some(marker),
            None => {
                if let Some(heading) = h2(unindented).filter(|_| indent <= 3) {
                    let count = named.iter().filter(|(n, _)| base(n) == heading).count();
                    let name = match count {
                        0 => heading.to_string(),
                        n => format!("{heading} ({})", n + 1),
                    };
                    named.push((name, String::new()));
                }
            }
        }
        if let Some((_, body)) = named.last_mut() {
            body.push_str(line);
        }
    }
    named.into_iter().map(|(name, body)| (name, sha256_hex(body.as_bytes()))).collect()
}

/// The text of an ATX heading of level 2 (`## Name ##`), if `line` is one.
fn h2(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("##")?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let name = rest.trim().trim_end_matches('#').trim_end();
    Some(if name.is_empty() { "(untitled)" } else { name })
}

/// A section's name without the count `sections` gave it.
fn base(name: &str) -> &str {
    match name.rsplit_once(" (") {
        Some((base, count)) if count.trim_end_matches(')').chars().all(|c| c.is_ascii_digit()) => base,
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Cache\n\n- Status: proposed\n\n## Question\n\nWhich?\n\n```text\n## Not a heading\n```\n\n## Notes\n\nOne.\n\n## Notes ##\n\nTwo.\n\n## Transcript\n\n<!-- debate:state {\"b\":1,\"a\":[2]} -->\n";

    fn names(parts: &[Part]) -> Vec<&str> {
        parts.iter().map(|(name, _)| name.as_str()).collect()
    }

    #[test]
    fn a_record_is_cut_at_its_sections_and_its_debate_is_a_part_of_its_own() {
        let parts = parts(RECORD, None);
        assert_eq!(
            names(&parts),
            ["front matter", "header", "Question", "Notes", "Notes (2)", "Transcript", "the debate it carries"]
        );
        // The debate's JSON is canonical: respelled, it is the same part.
        let respelled = RECORD.replace("{\"b\":1,\"a\":[2]}", "{\"a\": [2], \"b\": 1.0}");
        assert_eq!(super::parts(&respelled, None), parts);
        assert_eq!(super::parts(&RECORD.replace('\n', "\r\n"), None), parts, "line endings are not content");
    }

    #[test]
    fn an_edit_is_named_by_its_part() {
        let before = parts(RECORD, None);
        let edited = |from: &str, to: &str| differing(&before, &parts(&RECORD.replacen(from, to, 1), None));
        assert_eq!(edited("Which?", "Which one?"), ["Question"]);
        assert_eq!(edited("status: proposed", "status: accepted"), ["front matter"]);
        assert_eq!(edited("Two.", "Three."), ["Notes (2)"]);
        assert_eq!(edited("\"b\":1", "\"b\":2"), ["the debate it carries"]);
        assert_eq!(edited("## Notes\n\nOne.\n\n", ""), ["Notes", "Notes (2)"]);
        assert_eq!(edited("Not a heading", "Still not a heading"), ["Question"]);
        let sidecar = "# Transcript\n\n<!-- debate:state {} -->\n";
        let with = super::parts(&RECORD.replace("<!-- debate:state {\"b\":1,\"a\":[2]} -->\n", ""), Some(sidecar));
        assert_eq!(names(&with)[5..], ["Transcript", "the transcript file", "the debate it carries"]);
    }

    #[test]
    fn the_digest_covers_the_parts_the_note_and_the_earlier_signatures() {
        let parts = parts(RECORD, None);
        let digest = digest(&parts, "*Unsigned.*", &json!([]));
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
        assert_ne!(super::digest(&parts[1..], "*Unsigned.*", &json!([])), digest);
        assert_ne!(super::digest(&parts, "*Signed.*", &json!([])), digest);
        assert_ne!(super::digest(&parts, "*Unsigned.*", &json!([{"digest": "x"}])), digest);
        assert_eq!(super::digest(&parts, "*Unsigned.*", &json!([])), digest);
    }
}
