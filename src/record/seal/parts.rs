//! What a record's digest covers, in a canonical form: the record cut into the parts a
//! reader names (its front matter, its header, each `##` section), the debate it
//! carries as RFC 8785 canonical JSON (however its line spells it), and the transcript
//! file beside it when there is one. Each part has its own SHA-256, so an edit is
//! named by the part it is in; the digest is the SHA-256 of all of them, with the
//! seal's note and the earlier signatures it keeps, as canonical JSON — from format 2
//! on with the seal's act, signer and signing time too, and the record's status lines a
//! part of their own, so a change of status alone is told apart. Line endings are not
//! content: a record checked out with CRLF (or CR) has the digest it was written with.
//! Pure.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::attest::canonical::{canonical, sha256_hex};
use crate::record::read::carried;

/// The version of what the digest covers and how: the seal's act, signer and signing
/// time with the parts, in their order, and a record's status lines a part of their own.
pub const FORMAT: &str = "debate-record-seal/2";
/// The first version, still read by its own rules: the digest covers the parts, the note
/// (which names the act and the signer's key) and the earlier signatures, not the
/// signing time; the status lines of the front matter and the header are in their parts.
pub const FORMAT_1: &str = "debate-record-seal/1";

/// The part that holds the debate the record carries.
pub const DEBATE: &str = "the debate it carries";
/// The part that is the transcript file beside the record.
pub const TRANSCRIPT_FILE: &str = "the transcript file";
/// The part that is the record's status as its front matter and its header state it
/// (format 2): what another ADR tool, or a person, changes when the status moves.
pub const STATUS_LINES: &str = "the status lines";
/// The `## Status` section, which adr-tools rewrites when it supersedes a record.
pub const STATUS_SECTION: &str = "Status";

/// A part and the lowercase hex SHA-256 of its canonical text.
pub type Part = (String, String);

/// What the digest covers besides the parts, as the seal states it.
#[derive(Clone, Copy)]
pub struct Covered<'a> {
    pub format: &'a str,
    pub note: &'a str,
    /// The earlier signatures the seal keeps, as JSON.
    pub earlier: &'a Value,
    /// What the version records (`recorded`, `accepted`, …).
    pub act: &'a str,
    /// The signing key's fingerprint, when the version is signed.
    pub signer: Option<&'a str>,
    /// When it was signed (RFC 3339), when it is.
    pub signed_at: Option<&'a str>,
}

/// `text` with LF line endings: CRLF (a checkout with `core.autocrlf`) and a lone CR (a
/// file saved with old Mac line endings, which still renders) alike. Line endings are
/// not content, and no form of them hides a record's seal or its sections.
pub fn lf(text: &str) -> Cow<'_, str> {
    match text.contains('\r') {
        true => Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n")),
        false => Cow::Borrowed(text),
    }
}

/// The parts of a record's text (its seal taken off) and of the transcript file
/// beside it, in the order they come, as the current format cuts them.
pub fn parts(record: &str, sidecar: Option<&str>) -> Vec<Part> {
    parts_in(FORMAT, record, sidecar)
}

/// The parts as the seal format `format` cuts them.
pub fn parts_in(format: &str, record: &str, sidecar: Option<&str>) -> Vec<Part> {
    let record = lf(record);
    let (body, state) = without_state(&record);
    let cut = sections(&body, format != FORMAT_1);
    let mut parts: Vec<Part> =
        cut.named.iter().map(|(name, text)| (name.clone(), sha256_hex(text.as_bytes()))).collect();
    if let Some(lines) = cut.status_lines {
        // Right after the header: where a reader meets the status.
        let at = parts.iter().position(|(name, _)| name == "header").map_or(0, |at| at + 1);
        parts.insert(at, (STATUS_LINES.into(), sha256_hex(lines.as_bytes())));
    }
    if let Some(sidecar) = sidecar {
        let sidecar = lf(sidecar);
        let (text, carried) = without_state(&sidecar);
        parts.push((TRANSCRIPT_FILE.into(), sha256_hex(text.as_bytes())));
        parts.extend(carried.map(|json| (DEBATE.to_string(), state_digest(json))));
    }
    parts.extend(state.map(|json| (DEBATE.to_string(), state_digest(json))));
    parts
}

/// The record's status as it reads now (format 2's cut): its status lines (the front
/// matter's `status:` and the header's `- Status:`, as written) and its `## Status`
/// section without its heading.
pub fn status_text(record: &str) -> (Vec<String>, Option<String>) {
    let record = lf(record);
    let (body, _) = without_state(&record);
    let cut = sections(&body, true);
    let lines = cut.status_lines.map(|lines| lines.lines().map(str::to_string).collect()).unwrap_or_default();
    let section = cut
        .named
        .into_iter()
        .find(|(name, _)| name == STATUS_SECTION)
        .map(|(_, text)| text.split_once('\n').map(|(_, rest)| rest.to_string()).unwrap_or_default());
    (lines, section)
}

/// The digest of a record: `sha256:` and the hex SHA-256 of the canonical JSON of its
/// parts (in order), the note under it and the earlier signatures its seal keeps — and,
/// from format 2 on, the act, the signer's key and the signing time.
pub fn digest(parts: &[Part], covered: &Covered) -> String {
    let manifest = match covered.format {
        FORMAT_1 => json!({"format": FORMAT_1, "parts": parts, "note": covered.note, "earlier": covered.earlier}),
        format => json!({
            "format": format,
            "parts": parts,
            "note": covered.note,
            "earlier": covered.earlier,
            "act": covered.act,
            "signer": covered.signer,
            "signed_at": covered.signed_at,
        }),
    };
    // Strings, arrays, objects and nulls only: nothing canonicalisation refuses.
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

/// A text cut into its parts, unhashed.
struct Cut {
    /// The front matter, the header and each `##` section, by name.
    named: Vec<(String, String)>,
    /// Format 2: the status lines, taken out of the front matter and the header (each
    /// left with its key or label alone).
    status_lines: Option<String>,
}

/// The text's front matter, the header before its first `##` heading, and each `##`
/// section, by name (a name that comes again gets its count: `Notes (2)`). Headings
/// inside fenced code are text. With `split_status`, the front matter's `status:` line
/// and the header's `- Status:` line give their values to a part of their own.
fn sections(text: &str, split_status: bool) -> Cut {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut named: Vec<(String, String)> = Vec::new();
    let mut status_lines: Vec<String> = Vec::new();
    let mut at = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---")
        && let Some(close) = lines.iter().skip(1).position(|l| matches!(l.trim_end(), "---" | "..."))
    {
        let mut front = String::new();
        for line in &lines[..close + 2] {
            match status_label(line, "status:").filter(|_| split_status) {
                Some(label) => take_status(line, label, &mut front, &mut status_lines),
                None => front.push_str(line),
            }
        }
        named.push(("front matter".into(), front));
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
        let in_header = named.len() == 1 + usize::from(at > 0) && fence.is_none();
        if let Some((_, body)) = named.last_mut() {
            let label = ["- Status:", "* Status:"].into_iter().find_map(|label| status_label(line, label));
            match label.filter(|_| split_status && in_header) {
                Some(label) => take_status(line, label, body, &mut status_lines),
                None => body.push_str(line),
            }
        }
    }
    let status_lines = (split_status && !status_lines.is_empty()).then(|| status_lines.join("\n"));
    Cut { named, status_lines }
}

/// The length of `label` at the start of `line` (its case as written), if it starts so.
fn status_label(line: &str, label: &str) -> Option<usize> {
    line.get(..label.len()).filter(|start| start.eq_ignore_ascii_case(label)).map(|_| label.len())
}

/// A status line: its label kept in `part`, the line itself added to `taken`.
fn take_status(line: &str, label: usize, part: &mut String, taken: &mut Vec<String>) {
    part.push_str(&line[..label]);
    part.push('\n');
    taken.push(line.trim_end_matches('\n').to_string());
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

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Cache\n\n- Status: proposed\n\n## Status\n\nProposed\n\n## Question\n\nWhich?\n\n```text\n## Not a heading\n```\n\n## Notes\n\nOne.\n\n## Notes ##\n\nTwo.\n\n## Transcript\n\n<!-- debate:state {\"b\":1,\"a\":[2]} -->\n";

    fn names(parts: &[Part]) -> Vec<&str> {
        parts.iter().map(|(name, _)| name.as_str()).collect()
    }

    fn covered<'a>(note: &'a str, earlier: &'a Value) -> Covered<'a> {
        Covered { format: FORMAT, note, earlier, act: "recorded", signer: Some("SHA256:k"), signed_at: Some("t") }
    }

    #[test]
    fn a_record_is_cut_at_its_sections_and_its_debate_is_a_part_of_its_own() {
        let parts = parts(RECORD, None);
        assert_eq!(
            names(&parts),
            [
                "front matter",
                "header",
                STATUS_LINES,
                "Status",
                "Question",
                "Notes",
                "Notes (2)",
                "Transcript",
                "the debate it carries"
            ]
        );
        // The debate's JSON is canonical: respelled, it is the same part.
        let respelled = RECORD.replace("{\"b\":1,\"a\":[2]}", "{\"a\": [2], \"b\": 1.0}");
        assert_eq!(super::parts(&respelled, None), parts);
        assert_eq!(super::parts(&RECORD.replace('\n', "\r\n"), None), parts, "line endings are not content");
        assert_eq!(super::parts(&RECORD.replace('\n', "\r"), None), parts, "nor is a lone CR");
        // Format 1 keeps the status lines in the front matter and the header.
        let first = parts_in(FORMAT_1, RECORD, None);
        assert!(!names(&first).contains(&STATUS_LINES) && first.len() == parts.len() - 1);
    }

    #[test]
    fn an_edit_is_named_by_its_part() {
        let before = parts(RECORD, None);
        let edited = |from: &str, to: &str| differing(&before, &parts(&RECORD.replacen(from, to, 1), None));
        assert_eq!(edited("Which?", "Which one?"), ["Question"]);
        assert_eq!(edited("status: proposed", "status: accepted"), [STATUS_LINES]);
        assert_eq!(edited("- Status: proposed", "- Status: accepted"), [STATUS_LINES]);
        assert_eq!(edited("id: DEB-abc123", "id: DEB-abc124"), ["front matter"]);
        assert_eq!(edited("\nProposed\n", "\nSuperseded by [2. X](0002-x.md)\n"), ["Status"]);
        assert_eq!(edited("Two.", "Three."), ["Notes (2)"]);
        assert_eq!(edited("\"b\":1", "\"b\":2"), ["the debate it carries"]);
        assert_eq!(edited("## Notes\n\nOne.\n\n", ""), ["Notes", "Notes (2)"]);
        assert_eq!(edited("Not a heading", "Still not a heading"), ["Question"]);
        let sidecar = "# Transcript\n\n<!-- debate:state {} -->\n";
        let with = super::parts(&RECORD.replace("<!-- debate:state {\"b\":1,\"a\":[2]} -->\n", ""), Some(sidecar));
        assert_eq!(names(&with)[7..], ["Transcript", "the transcript file", "the debate it carries"]);
    }

    #[test]
    fn the_status_as_it_reads_now_is_its_lines_and_its_section() {
        let (lines, section) = status_text(RECORD);
        assert_eq!(lines, ["status: proposed", "- Status: proposed"]);
        assert_eq!(section.as_deref(), Some("\nProposed\n\n"));
    }

    #[test]
    fn the_digest_covers_the_parts_in_order_the_note_the_earlier_signatures_and_the_act_signer_and_time() {
        let parts = parts(RECORD, None);
        let none = json!([]);
        let digest = digest(&parts, &covered("*Unsigned.*", &none));
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
        assert_eq!(super::digest(&parts, &covered("*Unsigned.*", &none)), digest);
        assert_ne!(super::digest(&parts[1..], &covered("*Unsigned.*", &none)), digest);
        let mut swapped = parts.clone();
        swapped.swap(4, 5);
        assert_ne!(super::digest(&swapped, &covered("*Unsigned.*", &none)), digest, "the order is bound");
        assert_ne!(super::digest(&parts, &covered("*Signed.*", &none)), digest);
        let some = json!([{"digest": "x"}]);
        assert_ne!(super::digest(&parts, &covered("*Unsigned.*", &some)), digest);
        for changed in [
            Covered { act: "accepted", ..covered("*Unsigned.*", &none) },
            Covered { signer: Some("SHA256:other"), ..covered("*Unsigned.*", &none) },
            Covered { signed_at: Some("later"), ..covered("*Unsigned.*", &none) },
        ] {
            assert_ne!(super::digest(&parts, &changed), digest);
        }
        // Format 1 covered neither the act nor the time: its digest is as it was made.
        let first = Covered { format: FORMAT_1, act: "accepted", signed_at: None, ..covered("*U.*", &none) };
        assert_eq!(super::digest(&parts, &first), super::digest(&parts, &Covered { act: "x", ..first }));
    }
}
