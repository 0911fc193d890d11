//! Markdown — model answers, the decision record — as HTML that can only ever be text,
//! formatting and safe links: raw HTML a model (or a record) holds is shown as text,
//! never as markup, and a link or image may not run script or fetch from elsewhere.

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, html};

/// `text` as safe HTML.
pub fn to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = Parser::new_ext(text, options).map(|event| match event {
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
