//! Text helpers shared by the moderator, the providers, the settings and the record:
//! reading JSON a model wrote and YAML a person wrote, shortening, first sentences and
//! token estimates.

pub mod json;
pub mod secrets;
pub mod untrusted;
pub mod yaml;

/// The first sentence of a text, at most 240 characters.
pub fn first_sentence(text: &str) -> String {
    let text = text.trim();
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

/// A rough token count for text a provider did not count: four bytes a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_respects_character_boundaries() {
        assert_eq!(cap("héllo wörld", 4), "héll […]");
        assert_eq!(cap("short", 10), "short");
    }

    #[test]
    fn first_sentence_stops_at_the_first_end_mark() {
        assert_eq!(first_sentence("  Use Redis. It is fast."), "Use Redis.");
        assert_eq!(first_sentence("No end mark"), "No end mark");
        assert_eq!(first_sentence(""), "");
    }
}
