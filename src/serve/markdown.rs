//! Markdown — model answers, the decision record — as HTML that can only ever be text,
//! formatting and safe links: raw HTML a model (or a record) holds is shown as text,
//! never as markup, and a link or image may not run script or fetch from elsewhere.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, html};

/// `text` as safe HTML.
pub fn to_html(text: &str) -> String {
    render(text, false)
}

/// A decision record as safe HTML: as `to_html`, but the transcript's collapsed rounds
/// (`<details>`, `<summary>Round 2 of 3 (rebuttal)</summary>`, `</details>`, each a
/// block of its own and nothing more) open and close as they do on GitHub.
pub fn record_to_html(text: &str) -> String {
    render(text, true)
}

/// Lines the record template writes around each round, and nothing a person or a
/// model could add to them: no attributes, only words, digits and brackets.
fn transcript_structure(raw: &str) -> bool {
    raw.lines().all(|line| {
        let line = line.trim();
        line == "<details>"
            || line == "</details>"
            || line
                .strip_prefix("<summary>")
                .and_then(|l| l.strip_suffix("</summary>"))
                .is_some_and(|inner| inner.chars().all(|c| c.is_ascii_alphanumeric() || " ()".contains(c)))
    })
}

/// The comment lines a record carries its debate and its seal in (`record::read::carried`,
/// `record::seal`); a model's text reaches the record as Markdown that holds no HTML, so
/// these are debate's own.
fn carried(raw: &str) -> bool {
    raw.lines().all(|line| {
        let line = line.trim();
        line == "<!-- debate:text -->"
            || line == "<!-- /debate:text -->"
            || ["<!-- debate:state {", "<!-- debate:seal {"].iter().any(|start| {
                line.strip_prefix(start)
                    .and_then(|l| l.strip_suffix("} -->"))
                    .is_some_and(|json| !json.contains(['<', '>']))
            })
    })
}

fn render(text: &str, record: bool) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
        // What the record carries for debate itself is a comment GitHub does not show.
        Event::Html(raw) if record && carried(&raw) => Event::Text(CowStr::Borrowed("")),
        Event::Html(raw) if record && transcript_structure(&raw) => Event::Html(raw),
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe_link(dest_url), title, id })
        }
        // Images would load from wherever a model points (the page's policy blocks
        // that anyway): keep the link, not the fetch.
        Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: safe_link(dest_url), title, id })
        }
        Event::End(pulldown_cmark::TagEnd::Image) => Event::End(pulldown_cmark::TagEnd::Link),
        other => other,
    });
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// Links that leave to the web or stay on the page; anything else (`javascript:`,
/// `data:`, …) goes nowhere.
fn safe_link(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(scheme, _)| scheme).filter(|s| !s.contains(['/', '?', '#']));
    match scheme {
        None | Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

/// A markdown file without its YAML front matter (`---` … `---`).
pub fn without_front_matter(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else { return text };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == "---" {
            return &rest[offset..];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_carried_debate_is_not_shown() {
        let record = "**Performance Advocate, argument**\n\n<!-- debate:text -->\nRedis is faster.\n<!-- /debate:text -->\n\n<!-- debate:state {\"texts\":\"ab\"} -->\n";
        let html = record_to_html(record);
        assert!(!html.contains("debate:text") && !html.contains("debate:state"), "{html}");
        assert!(html.contains("<p>Redis is faster.</p>"), "{html}");
        // Elsewhere (a model's answer) the same text is shown as the text it is.
        assert!(to_html(record).contains("&lt;!-- debate:text --&gt;"));
    }

    #[test]
    fn html_in_model_text_is_shown_as_text() {
        let html = to_html(
            "Use Redis.\n\n<script>alert(1)</script>\n\nThen </details> <b>bold</b> <img src=x onerror=alert(1)>",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("</details>"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(html.contains("&lt;/details&gt;"), "{html}");
    }

    #[test]
    fn a_records_collapsed_rounds_open_and_close_and_nothing_else_does() {
        let record = "## Transcript\n\n<details>\n<summary>Round 1 of 2 (opening)</summary>\n\n**A, argument**\n\n\\</details\\> text\n\n</details>\n\n<details open onclick=x>\n<summary>Round <b>2</b></summary>\n";
        let html = record_to_html(record);
        assert_eq!(html.matches("<details>").count(), 1, "{html}");
        assert_eq!(html.matches("</details>").count(), 1, "{html}");
        assert!(html.contains("<summary>Round 1 of 2 (opening)</summary>"), "{html}");
        assert!(!html.contains("onclick=x>") && !html.contains("<b>"), "anything else is text: {html}");
        assert!(!to_html(record).contains("<details>"), "model answers never open one");
    }

    #[test]
    fn formatting_stays_and_unsafe_links_go_nowhere() {
        let html = to_html(
            "**bold** [docs](https://example.com) [x](javascript:alert(1)) [y](JaVaScRiPt:alert(1)) ![i](data:image/png;base64,AA)",
        );
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains(r#"href="https://example.com""#), "{html}");
        assert!(!html.to_lowercase().contains("javascript:"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(to_html("[rel](docs/a.md)").contains(r#"href="docs/a.md""#));
    }

    #[test]
    fn front_matter_is_dropped() {
        assert_eq!(without_front_matter("---\nid: x\n---\n# Title\n"), "# Title\n");
        assert_eq!(without_front_matter("# Title\n"), "# Title\n");
        assert_eq!(without_front_matter("---\nnever closed\n"), "---\nnever closed\n");
    }
}
