//! Where the parts of a record no template writes go (the notices, the provenance), and
//! the check that they show as they should on GitHub. Pure.

/// The record: the front matter, the template's title and header list, the notices, the
/// rest of the template's body, then the provenance before the transcript (or at the end).
pub(super) fn compose(front: &str, body: &str, notes: &str, provenance: &str) -> String {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    // After the title and the list under it, when the body opens with them.
    let mut at = 0;
    if lines.get(at).is_some_and(|l| l.starts_with("# ")) {
        at += 1;
        while lines.get(at).is_some_and(|l| l.trim().is_empty() || l.starts_with("- ")) {
            at += 1;
        }
    }
    let transcript = lines.iter().position(|l| l.trim_end() == "## Transcript").unwrap_or(lines.len()).max(at);
    let mut record = format!("{front}{}", lines[..at].concat());
    // Each part a block of its own, one blank line between.
    let mut push = |part: &str| {
        let part = part.trim_matches('\n');
        if part.is_empty() {
            return;
        }
        if !record.is_empty() {
            record.truncate(record.trim_end_matches('\n').len());
            record.push_str("\n\n");
        }
        record.push_str(part);
        record.push('\n');
    };
    push(notes);
    push(&lines[at..transcript].concat());
    push(provenance);
    push(&lines[transcript..].concat());
    record
}

/// Whether the template's body has a Debate Log ahead of its transcript: the provenance,
/// placed between them, may then point up to it.
pub(super) fn log_before_transcript(body: &str) -> bool {
    body.lines().take_while(|l| l.trim_end() != "## Transcript").any(|l| l.trim_end() == "## Debate Log")
}

/// Whether the notices (when there are any) and the provenance show as they should on
/// GitHub: as a quote and a heading of their own, in no HTML comment, `<details>` or
/// code block a template opened before them.
pub(super) fn shows_plainly(record: &str, has_notes: bool) -> bool {
    use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
    let mut details = 0i32;
    let mut depth = 0usize;
    let (mut notes_seen, mut provenance_seen, mut in_heading) = (!has_notes, false, false);
    for event in Parser::new_ext(record, Options::ENABLE_YAML_STYLE_METADATA_BLOCKS | Options::ENABLE_TABLES) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => {
                let html = html.to_ascii_lowercase();
                details += html.matches("<details").count() as i32 - html.matches("</details").count() as i32;
            }
            Event::Start(Tag::BlockQuote(_)) => depth += 1,
            Event::End(TagEnd::BlockQuote(_)) => depth -= 1,
            Event::Start(Tag::Heading { level: HeadingLevel::H2, .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Text(text) if in_heading && details <= 0 && &*text == "Provenance" => provenance_seen = true,
            Event::Text(text)
                if depth == 1
                    && details <= 0
                    && ["Offline debate.", "Scripted debate.", "This result is degraded"].contains(&&*text) =>
            {
                notes_seen = true
            }
            _ => {}
        }
    }
    notes_seen && provenance_seen
}
