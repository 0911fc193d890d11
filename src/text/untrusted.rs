//! Text debate did not write (model answers, the question, a repository's files) made
//! safe to show: no terminal escape sequence (colours, the window title, OSC 52
//! clipboard writes, screen clears), no carriage return or bell, no other control
//! character, and no bidirectional override that would make text read differently
//! from what it is.

/// For a terminal: newlines and tabs kept, everything else above removed.
pub fn for_terminal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            // C1 control sequence introducers start sequences of their own.
            '\u{9b}' => skip_until_final(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\n' | '\t' => out.push(c),
            c if c.is_control() || is_bidi_control(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// One line: as `for_terminal`, with all whitespace (newlines included) folded into
/// single spaces. For titles, commit subjects and table cells.
pub fn one_line(text: &str) -> String {
    for_terminal(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `text` would show anything once its escape sequences are gone: some
/// character that is not whitespace, a control, a bidirectional mark, an invisible
/// format character (zero-width spaces and joiners, the word joiner, the byte-order
/// mark, soft hyphens, variation selectors, tags) or a blank (the braille blank, the
/// Hangul fillers). Text that shows nothing is empty, however many bytes it has.
pub fn shows_anything(text: &str) -> bool {
    let shown = for_terminal(text);
    shown.chars().any(|c| !(c.is_whitespace() || c.is_control() || is_bidi_control(c) || is_invisible(c)))
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200d}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2800}'
            | '\u{206a}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// Characters that reorder text on display: embeddings, overrides, isolates.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// After ESC: a CSI sequence (`ESC [ … final`), a string (OSC, DCS, SOS, PM, APC, ended
/// by BEL or `ESC \`), or a two-character escape.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars>) {
    match chars.next() {
        Some('[') => skip_until_final(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        _ => {}
    }
}

/// Parameters and intermediates up to the final byte (`@` to `~`).
fn skip_until_final(chars: &mut std::iter::Peekable<std::str::Chars>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            return;
        }
    }
}

/// Up to BEL, ST (`ESC \` or U+9C), or the end.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' if chars.peek() == Some(&'\\') => {
                chars.next();
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_of_invisible_characters_shows_nothing() {
        for blank in [
            "",
            " \n\t",
            "\u{200b}\u{200b}",
            "\u{202e}\u{2066}\u{200f}",
            "\u{feff}\u{ad}\u{2060}",
            "\u{1b}\u{7}\u{e0041}",
            "\u{2800}\u{2800} \u{2800}",
            "\u{1b}[31m\u{1b}[0m\u{1b}]0;title\u{7}\u{1b}[2J",
            "\u{9b}31m",
        ] {
            assert!(!shows_anything(blank), "{blank:?}");
        }
        for shown in ["a", "\u{200b}?", "漢", "🚀", "\u{202e}x"] {
            assert!(shows_anything(shown), "{shown:?}");
        }
    }

    #[test]
    fn escape_sequences_and_controls_are_removed() {
        let cases = [
            ("\u{1b}]52;c;aGVsbG8=\u{7}copied", "copied"),
            ("\u{1b}]0;pwned title\u{1b}\\after", "after"),
            ("\u{1b}[2J\u{1b}[Hclear\u{1b}[31mred\u{1b}[0m", "clearred"),
            ("bell\u{7} and\r return", "bell and return"),
            ("\u{202e}txt.exe", "txt.exe"),
            ("isolate\u{2066}d\u{2069}", "isolated"),
            ("\u{9b}31mC1 csi", "C1 csi"),
            ("keep\nlines\tand tabs", "keep\nlines\tand tabs"),
            ("ünïcödé and emoji 🚀", "ünïcödé and emoji 🚀"),
            ("unterminated \u{1b}]52;c;AAAA", "unterminated "),
        ];
        for (input, expected) in cases {
            assert_eq!(for_terminal(input), expected, "{input:?}");
        }
    }

    #[test]
    fn one_line_folds_every_break() {
        assert_eq!(one_line("  Redis\nor\r\n\tPostgres?\u{1b}[2J "), "Redis or Postgres?");
    }
}
