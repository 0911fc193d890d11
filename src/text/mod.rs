//! Text helpers shared by the moderator, the providers, the settings and the record:
//! reading JSON a model wrote and YAML a person wrote, untrusted text made safe for a
//! terminal and for markdown, shortening, first sentences and token estimates.

pub mod json;
pub mod markdown;
pub mod secrets;
pub mod untrusted;
pub mod yaml;

/// All of `reader`, if it holds at most `limit` bytes: an input read whole is capped
/// before it is parsed, so `/dev/zero` or a record of 50 MB costs no more than the cap.
pub fn read_bounded(reader: impl std::io::Read, limit: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        let size = match limit >= 1 << 20 {
            true => format!("{} MiB", limit >> 20),
            false => format!("{} KiB", limit >> 10),
        };
        return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, format!("it is larger than {size}")));
    }
    Ok(bytes)
}

/// The first sentence of a text, at most 240 characters; a markdown heading, a quoted
/// line (`> `: someone else's words, as prompts fence the debate) or a line of marks
/// alone is no sentence.
pub fn first_sentence(text: &str) -> String {
    let prose = |line: &&str| {
        let bare = line.trim();
        !bare.starts_with(['#', '>']) && bare.chars().any(char::is_alphanumeric)
    };
    let start = text.lines().find(prose).map_or(text.len(), |line| line.as_ptr() as usize - text.as_ptr() as usize);
    let text = text[start..].trim();
    let end = text.find(['.', '!', '?', '\n']).map_or(text.len(), |i| i + 1);
    let sentence: String = text[..end].chars().take(240).collect();
    sentence.trim().to_string()
}

/// At most `limit` characters, cut at a character boundary, marked when cut.
pub fn cap(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.trim().to_string(),
        Some((end, _)) => format!("{} […]", text[..end].trim_end()),
    }
}

/// At most `limit` characters, cut at the last word boundary (never mid-word, unless a
/// single word is longer than the limit) and ended with `…` when cut.
pub fn shorten(text: &str, limit: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= limit {
        return text.to_string();
    }
    // Room for the ellipsis.
    let (end, _) = text.char_indices().nth(limit.saturating_sub(1)).unwrap_or((text.len(), ' '));
    let kept = &text[..end];
    let at_boundary = text[end..].starts_with(char::is_whitespace);
    let cut = match at_boundary {
        true => kept,
        false => kept.rfind(char::is_whitespace).map_or(kept, |space| &kept[..space]),
    };
    format!("{}…", cut.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c)))
}

/// The number a decision record's file name starts with, as adr-tools and MADR number
/// them (`0007-use-postgres.md`): 3 to 5 digits and a separator — never a date
/// (`2026-11-22-…`).
pub fn record_number(file_name: &str) -> Option<u32> {
    let digits = file_name.chars().take_while(char::is_ascii_digit).count();
    let b = file_name.as_bytes();
    let dated = b.len() >= 10 && b[4] == b'-' && b[5..7].iter().all(u8::is_ascii_digit) && b[7] == b'-';
    let separated = file_name[digits..].starts_with(['-', '_', '.']);
    ((3..=5).contains(&digits) && separated && !dated).then(|| file_name[..digits].parse().ok()).flatten()
}

/// Single-quoted for a POSIX shell: any text, lines included, stays one word.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `text` as one word of a shell line: as it is where the shell leaves it so, else
/// single-quoted.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain { text.to_string() } else { shell_quote(text) }
}

/// A rough token count for text a provider did not count: four bytes a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_survive_the_shell() {
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("two\nlines $HOME `x`"), "'two\nlines $HOME `x`'");
    }

    #[test]
    fn a_shell_word_is_quoted_only_where_the_shell_would_split_or_expand_it() {
        assert_eq!(shell_word("DEB-k3x9q2"), "DEB-k3x9q2");
        assert_eq!(shell_word("--branch=decisions/a"), "--branch=decisions/a");
        assert_eq!(shell_word("Cost Control"), "'Cost Control'");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn shortening_never_cuts_a_word() {
        let question = "Should we use Redis or Postgres for caching given a small team and a tight budget";
        let short = shorten(question, 40);
        assert_eq!(short, "Should we use Redis or Postgres for…");
        assert!(short.chars().count() <= 40);
        assert_eq!(shorten("Use Postgres", 72), "Use Postgres");
        assert_eq!(shorten("a bb ccc", 5), "a bb…");
        assert_eq!(shorten("Supercalifragilistic", 8), "Superca…", "one long word is cut, as nothing else can be");
        assert_eq!(shorten("Cache: in Postgres", 9), "Cache…", "no dangling punctuation");
    }

    #[test]
    fn record_numbers_are_not_dates() {
        assert_eq!(record_number("0007-use-postgres.md"), Some(7));
        assert_eq!(record_number("00012_x.md"), Some(12));
        assert_eq!(record_number("2025-06-01-old.md"), None, "a date");
        assert_eq!(record_number("2025-old.md"), Some(2025), "four digits and a dash, no date");
        assert_eq!(record_number("12-x.md"), None, "too few digits");
        assert_eq!(record_number("123456-x.md"), None, "too many");
        assert_eq!(record_number("README.md"), None);
    }

    #[test]
    fn cap_respects_character_boundaries() {
        assert_eq!(cap("héllo wörld", 4), "héll […]");
        assert_eq!(cap("short", 10), "short");
    }

    #[test]
    fn first_sentence_stops_at_the_first_end_mark() {
        assert_eq!(first_sentence("  Use Redis. It is fast."), "Use Redis.");
        assert_eq!(first_sentence("No end mark"), "No end mark");
        assert_eq!(first_sentence("> $node_data.\n> quoted\nMy own point. More."), "My own point.");
        assert_eq!(first_sentence(""), "");
    }
}
