//! Long lines broken between words at the terminal's width: left to itself, a terminal
//! breaks a line wherever its last column falls, in the middle of a word.

use std::io::IsTerminal;

use crate::platform::console::{self, Terminal};

/// The width of the terminal `stream` writes to, if it writes to one: asked of the
/// terminal itself, so output without one costs nothing (no `tput` is ever run).
pub fn width(stream: &(impl IsTerminal + Terminal)) -> Option<usize> {
    if !stream.is_terminal() {
        return None;
    }
    let columns = console::columns(stream)?;
    (columns > 0).then_some(usize::from(columns))
}

/// `text` as a terminal `width` columns wide shows it, or as it is without a width.
pub fn fit(text: &str, width: Option<usize>) -> String {
    match width {
        Some(width) => words(text, width),
        None => text.to_string(),
    }
}

/// Every line of `text` longer than `width` columns broken at spaces, each part indented
/// as the line was; a word longer than the line, or a `code span` (a command to copy),
/// is left whole.
fn words(text: &str, width: usize) -> String {
    text.split('\n').map(|line| line_at(line, width)).collect::<Vec<_>>().join("\n")
}

fn line_at(line: &str, width: usize) -> String {
    if columns(line) <= width {
        return line.to_string();
    }
    let body = line.trim_start_matches(' ');
    let lead = &line[..line.len() - body.len()];
    // An indent that would leave less than half the width is not repeated.
    let indent = if lead.len() * 2 <= width { lead } else { "" };
    let mut out = lead.to_string();
    let mut used = lead.len();
    let mut first = true;
    for word in spans(body) {
        let length = columns(word);
        if first {
            first = false;
        } else if used + 1 + length <= width {
            out.push(' ');
            used += 1;
        } else {
            out.push('\n');
            out.push_str(indent);
            used = indent.len();
        }
        out.push_str(word);
        used += length;
    }
    out
}

/// The words of `text` between spaces, a `code span` counting as one word.
fn spans(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let (mut start, mut in_code) = (0, false);
    for (at, c) in text.char_indices() {
        match c {
            '`' => in_code = !in_code,
            ' ' if !in_code => {
                words.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    words.push(&text[start..]);
    words.retain(|w| !w.is_empty());
    words
}

/// The columns `text` takes: a character each, escape sequences (colour) none.
fn columns(text: &str) -> usize {
    let mut count = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            // CSI: ESC [ parameters, then a final byte in @..~.
            '\u{1b}' => {
                if chars.next() == Some('[') {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            _ => count += 1,
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_break_between_words_never_inside_one() {
        let line = "Moderator: Performance Advocate: Redis is the better fit, because it serves latency.";
        let wrapped = words(line, 30);
        for part in wrapped.lines() {
            assert!(part.chars().count() <= 30, "{part:?} in\n{wrapped}");
        }
        assert_eq!(wrapped.replace('\n', " "), line, "only spaces became line breaks");
        let original: Vec<&str> = line.split(' ').collect();
        assert!(wrapped.split([' ', '\n']).all(|w| original.contains(&w)), "no word cut: {wrapped}");
    }

    #[test]
    fn short_lines_colour_and_long_words_are_kept() {
        assert_eq!(words("short\nlines", 10), "short\nlines");
        let coloured = "\u{1b}[1mbold words here\u{1b}[0m";
        assert_eq!(words(coloured, 15), coloured, "escape sequences take no columns");
        assert_eq!(words("a https://example.com/a/very/long/path b", 10), "a\nhttps://example.com/a/very/long/path\nb");
    }

    #[test]
    fn a_command_in_backticks_is_never_broken() {
        let line = "Abandoned DEB-abc123: `debate resume DEB-abc123` takes it up again.";
        assert_eq!(words(line, 30), "Abandoned DEB-abc123:\n`debate resume DEB-abc123`\ntakes it up again.");
    }

    #[test]
    fn a_wrapped_line_keeps_its_indent() {
        assert_eq!(words("  caveat: traffic grows tenfold", 20), "  caveat: traffic\n  grows tenfold");
        assert_eq!(fit("  caveat: traffic grows tenfold", None), "  caveat: traffic grows tenfold");
    }
}
