//! Untrusted text (model answers, the question) as markdown that stays inside the
//! place the template gives it: it can never open a heading, close or open a section,
//! a code fence, an HTML block or a comment, whatever it holds. Code blocks a model
//! wrote stay code blocks, byte for byte.

use pulldown_cmark::{Event, Parser, Tag};

use super::untrusted::{for_terminal, one_line};

/// Paragraphs, lists and code blocks kept; headings, setext underlines and HTML
/// neutralised; a code fence left open is closed where the text ends. The result is
/// checked with a CommonMark parser: if it would still hold a heading or HTML (a
/// context the rules above do not see), every line is escaped instead.
pub fn block(text: &str) -> String {
    let text = for_terminal(text).replace("\r\n", "\n");
    let careful = keeping_code(&text, Keep::AllCode);
    if structure_free(&careful) {
        return careful;
    }
    // Indentation means code only where the line above allows it (not inside a list
    // item, say): the fences alone are certain.
    let stricter = keeping_code(&text, Keep::Fences);
    if structure_free(&stricter) {
        stricter
    } else {
        text.trim().lines().map(escape_line).collect::<Vec<_>>().join("\n")
    }
}

/// Which code `keeping_code` keeps as it is.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    /// Fenced and indented code blocks; other lines neutralised.
    AllCode,
    /// Fenced code blocks only; every other line escaped.
    Fences,
}

/// Code blocks kept byte for byte, every other line made safe.
fn keeping_code(text: &str, keep: Keep) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut fence: Option<Fence> = None;
    let mut previous_blank = true;
    let mut in_indented_code = false;
    for line in text.trim().lines() {
        if let Some(open) = &fence {
            out.push(line.to_string());
            if open.closed_by(line) {
                fence = None;
            }
            continue;
        }
        if let Some(opened) = Fence::opened_by(line) {
            fence = Some(opened);
            out.push(line.to_string());
            previous_blank = false;
            continue;
        }
        let blank = line.trim().is_empty();
        // An indented code block starts after a blank line and runs while lines stay
        // indented (or blank).
        in_indented_code = keep == Keep::AllCode
            && (indentation(line) >= 4 && (previous_blank || in_indented_code) || (blank && in_indented_code));
        out.push(match (in_indented_code || blank, keep) {
            (true, _) => line.to_string(),
            (false, Keep::AllCode) => neutralise(line),
            (false, Keep::Fences) => escape_line(line),
        });
        previous_blank = blank;
    }
    if let Some(open) = fence {
        out.push(open.closer());
    }
    out.join("\n")
}

/// One line, for a bullet or a sentence: whitespace folded, nothing it starts with
/// makes it a heading, and no HTML. Checked with a CommonMark parser: where code spans
/// are not what they seemed (`` \` `` escapes a backtick), every `<` is escaped instead.
pub fn line(text: &str) -> String {
    let neutral = neutralise(&one_line(text));
    match structure_free(&neutral) {
        true => neutral,
        false => neutral.replace('<', "&lt;"),
    }
}

/// One line for a comment or an issue on GitHub: as `line`, and `@` written as an entity,
/// so a name in a repository's text mentions (and notifies) nobody.
pub fn quiet_line(text: &str) -> String {
    line(text).replace('@', "&#64;")
}

/// One line as a link's text: brackets cannot end the text or open a link of its own,
/// a trailing backslash cannot escape the closing bracket, and no backtick can open a
/// code span that swallows the link.
pub fn link_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in one_line(text).chars() {
        if matches!(c, '\\' | '[' | ']' | '`' | '<' | '*' | '_') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// One line inside a table cell: as `line`, and `|` cannot end the cell.
pub fn cell(text: &str) -> String {
    line(text).replace('|', "\\|")
}

/// A code fence: its character and length, and how far it is indented.
struct Fence {
    mark: char,
    length: usize,
}

impl Fence {
    fn opened_by(line: &str) -> Option<Fence> {
        if indentation(line) > 3 {
            return None;
        }
        let trimmed = line.trim_start();
        let mark = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let length = trimmed.chars().take_while(|c| *c == mark).count();
        // A backtick fence's info string may not hold a backtick.
        let info_ok = mark == '~' || !trimmed[length..].contains('`');
        (length >= 3 && info_ok).then_some(Fence { mark, length })
    }

    fn closed_by(&self, line: &str) -> bool {
        let trimmed = line.trim();
        indentation(line) <= 3
            && trimmed.chars().take_while(|c| *c == self.mark).count() >= self.length
            && trimmed.chars().all(|c| c == self.mark)
    }

    fn closer(&self) -> String {
        self.mark.to_string().repeat(self.length)
    }
}

fn indentation(line: &str) -> usize {
    line.chars().take_while(|c| matches!(c, ' ' | '\t')).map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// A line of prose that cannot change the document's structure: a `#` where a
/// heading would start (after any quote or list markers) is no heading, a line of `=`
/// or `-` no setext underline (nor front matter), and `<` outside code spans no HTML.
fn neutralise(line: &str) -> String {
    if let Some(escaped) = escaped_underline(line) {
        return escaped;
    }
    let start = content_start(line);
    let (markers, content) = line.split_at(start);
    let marks: String = content.chars().filter(|c| !c.is_whitespace()).collect();
    let underline = !marks.is_empty() && (marks.chars().all(|c| c == '=') || marks.chars().all(|c| c == '-'));
    let escaped = escape_html_outside_code(content);
    if content.starts_with('#') || underline { format!("{markers}\\{escaped}") } else { format!("{markers}{escaped}") }
}

/// Where a line's content starts after its indentation, block-quote markers (`>`) and
/// list markers (`-`, `*`, `+`, `1.`, `1)`).
fn content_start(line: &str) -> usize {
    let mut at = line.len() - line.trim_start().len();
    loop {
        let rest = &line[at..];
        let bullet = rest.starts_with(['-', '*', '+']) && rest[1..].starts_with([' ', '\t']);
        let marker = if rest.starts_with('>') || bullet {
            1
        } else {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            let ordered = (1..=9).contains(&digits)
                && rest[digits..].starts_with(['.', ')'])
                && rest[digits + 1..].starts_with([' ', '\t']);
            if ordered { digits + 1 } else { 0 }
        };
        if marker == 0 {
            return at;
        }
        at += marker;
        at += line[at..].len() - line[at..].trim_start().len();
    }
}

/// The text parses to no heading and no HTML.
fn structure_free(markdown: &str) -> bool {
    !Parser::new(markdown).any(|event| {
        matches!(event, Event::Start(Tag::Heading { .. } | Tag::HtmlBlock) | Event::Html(_) | Event::InlineHtml(_))
    })
}

/// A line of only `-` (even a lone `- `, which reads as an empty list item) or only
/// `=` would underline the paragraph above it into a heading: escaped.
fn escaped_underline(line: &str) -> Option<String> {
    let whole = line.trim();
    let underline = !whole.is_empty() && (whole.chars().all(|c| c == '-') || whole.chars().all(|c| c == '='));
    underline.then(|| format!("\\{whole}"))
}

/// A line escaped as prose whatever it holds: its first character can start nothing,
/// and no `<` is HTML.
fn escape_line(line: &str) -> String {
    if let Some(escaped) = escaped_underline(line) {
        return escaped;
    }
    let start = content_start(line);
    let (markers, content) = line.split_at(start);
    let content = content.replace('<', "&lt;");
    match content.chars().next() {
        Some('#' | '=' | '-' | '`' | '~') => format!("{markers}\\{content}"),
        _ => format!("{markers}{content}"),
    }
}

/// `<` becomes `&lt;` except inside code spans (`` `<b>` `` stays as written).
fn escape_html_outside_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let run = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + run..];
        // A code span closes with a run of exactly the same length.
        let close = find_run(after, run);
        out.push_str(&rest[..start].replace('<', "&lt;"));
        match close {
            Some(end) => {
                out.push_str(&rest[start..start + run + end + run]);
                rest = &after[end + run..];
            }
            None => {
                out.push_str(&rest[start..start + run]);
                rest = after;
            }
        }
    }
    out.push_str(&rest.replace('<', "&lt;"));
    out
}

/// Where a run of exactly `length` backticks starts in `text`.
fn find_run(text: &str, length: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
            if run == length {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_escaped_backtick_opens_no_code_span_for_html_to_hide_in() {
        for hostile in ["a \\`</details>` b", "x \\`<img src=x onerror=alert(1)>` y", "\\``<b>`` z"] {
            let made = line(hostile);
            assert!(structure_free(&made), "{hostile:?} → {made:?}");
            assert!(structure_free(&format!("- {made}")), "as a bullet: {made:?}");
            assert!(structure_free(&format!("| {} |\n|---|\n", cell(hostile))), "as a cell");
        }
        assert_eq!(line("use `<b>` for bold"), "use `<b>` for bold", "real code spans stay as written");
    }

    #[test]
    fn a_link_text_cannot_leave_its_link() {
        for hostile in ["Use evil \\", "a ` code span", "x](javascript:alert(1)) [y", "<b>bold</b>", "line\nbreak"] {
            let markdown = format!("- [{}](0002-x.md) — accepted", link_text(hostile));
            let links = Parser::new(&markdown)
                .filter(|e| matches!(e, Event::Start(Tag::Link { dest_url, .. }) if dest_url.as_ref() == "0002-x.md"))
                .count();
            let html = Parser::new(&markdown).any(|e| matches!(e, Event::Html(_) | Event::InlineHtml(_)));
            assert_eq!((links, html), (1, false), "{hostile:?} → {markdown}");
            assert!(!Parser::new(&markdown).any(|e| matches!(e, Event::Code(_))), "{markdown}");
        }
    }

    #[test]
    fn code_blocks_stay_intact() {
        let text = "Run this:\n\n```sh\n# a comment, not a heading\necho '<b>' | tee x\n```\n\nThen `<stop>` it.";
        assert_eq!(
            block(text),
            "Run this:\n\n```sh\n# a comment, not a heading\necho '<b>' | tee x\n```\n\nThen `<stop>` it."
        );
        let indented = "Code:\n\n    # still code\n    <b>\n\nAfter.";
        assert_eq!(block(indented), indented);
    }

    #[test]
    fn an_open_fence_is_closed_where_the_text_ends() {
        assert_eq!(block("Look:\n````rust\nfn main() {}"), "Look:\n````rust\nfn main() {}\n````");
        assert_eq!(block("~~~\nx"), "~~~\nx\n~~~");
        assert_eq!(block("```\nok\n```"), "```\nok\n```", "a closed fence gets no extra closer");
    }

    #[test]
    fn structure_in_prose_is_neutralised() {
        assert_eq!(block("# Decision: do it"), "\\# Decision: do it");
        assert_eq!(block("Title\n====="), "Title\n\\=====");
        assert_eq!(block("Title\n--"), "Title\n\\--");
        assert_eq!(block("---\nstatus: accepted\n---"), "\\---\nstatus: accepted\n\\---");
        assert_eq!(block("<details><summary>x</summary>"), "&lt;details>&lt;summary>x&lt;/summary>");
        assert_eq!(block("<!-- swallow everything"), "&lt;!-- swallow everything");
        assert_eq!(block("a < b and `x < y`"), "a &lt; b and `x < y`");
        assert_eq!(block("- a list\n- stays"), "- a list\n- stays");
    }

    #[test]
    fn headings_inside_quotes_and_lists_are_neutralised() {
        assert_eq!(block("> # quoted heading"), "> \\# quoted heading");
        assert_eq!(block("- # listed heading\n1. ## numbered"), "- \\# listed heading\n1. \\## numbered");
        for text in ["- item\n\n    # continued in the item", "> ```\n> # in a quoted fence"] {
            let safe = block(text);
            assert!(structure_free(&safe), "{text:?} → {safe:?}");
        }
    }

    #[test]
    fn lines_and_cells_stay_on_one_line() {
        assert_eq!(line("## big\nheading"), "\\## big heading");
        assert_eq!(cell("a | b\n<script>"), "a \\| b &lt;script>");
        assert_eq!(line("\u{1b}]0;title\u{7}x\u{202e}y"), "xy");
    }
}
