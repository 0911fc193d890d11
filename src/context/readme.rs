//! A README's title and opening: what the project says it is.

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

/// Longest opening kept.
const MAX_CHARS: usize = 1_200;

/// The first heading, then the first two paragraphs that say something (badges, images
/// and HTML are passed over).
pub fn opening(text: &str) -> Option<String> {
    let (mut title, mut paragraphs) = (None::<String>, Vec::<String>::new());
    let (mut current, mut in_heading, mut in_paragraph) = (String::new(), false, false);
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => in_heading = title.is_none() && level <= HeadingLevel::H2,
            Event::End(TagEnd::Heading(_)) if in_heading => {
                title = Some(std::mem::take(&mut current).trim().to_string());
                in_heading = false;
            }
            Event::Start(Tag::Paragraph) => in_paragraph = true,
            Event::End(TagEnd::Paragraph) => {
                let paragraph = std::mem::take(&mut current).split_whitespace().collect::<Vec<_>>().join(" ");
                if paragraph.chars().filter(|c| c.is_alphabetic()).count() > 20 {
                    paragraphs.push(paragraph);
                }
                in_paragraph = false;
                if paragraphs.len() == 2 {
                    break;
                }
            }
            Event::Text(t) | Event::Code(t) if in_heading || in_paragraph => current.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_paragraph => current.push(' '),
            _ => {}
        }
    }
    let mut opening = title.into_iter().chain(paragraphs).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n\n");
    if let Some((cut, _)) = opening.char_indices().nth(MAX_CHARS) {
        opening = format!("{}…", opening[..cut].trim_end());
    }
    (!opening.is_empty()).then_some(opening)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_and_two_paragraphs_that_say_something() {
        let text = "# shop-api\n\n[![CI](badge.svg)](ci) ![logo](logo.png)\n\nThe API behind our web shop: orders, payments and the catalogue.\n\nIt runs on Postgres and serves 2,000 requests a second at peak.\n\nA third paragraph that is not needed.\n";
        assert_eq!(
            opening(text).unwrap(),
            "shop-api\n\nThe API behind our web shop: orders, payments and the catalogue.\n\nIt runs on Postgres and serves 2,000 requests a second at peak."
        );
        assert_eq!(opening(""), None);
    }
}
