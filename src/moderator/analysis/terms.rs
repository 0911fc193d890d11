//! Words of a question and keyword matching. Case and accents never matter; a light
//! English stemmer lets "secure" match "security" and "cache" match "caching"; the
//! parts of joined words count ("DSGVO-konform"); a word never matches inside another
//! ("bill" is not in "billboard"), and a word that is itself a keyword of the catalog
//! ("billing") means that keyword, not another it stems to ("bill"). Text in scripts
//! written without spaces (Chinese, Japanese) is matched by substring, since it cannot
//! be split into words.

use std::collections::HashSet;

/// Whether `c` belongs to a script written without spaces between words (Han, kana).
/// Korean puts spaces between words, so Hangul is not one of them.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF // hiragana, katakana
        | 0x31F0..=0x31FF // katakana extensions
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF // Han
        | 0xFF66..=0xFF9F // half-width katakana
    )
}

pub fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x309F)
}

/// Characters that stay inside a word: `fly.io`, `c++`, `c#`, `self-hosted`, `we're`.
fn joins_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '.' | '\'' | '+' | '#' | '/')
}

/// Words of the text, lowercase, with their outer punctuation dropped. A run of CJK
/// characters is one word of its own, apart from any Latin word it touches.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        let cjk_edge = word.chars().last().is_some_and(|last| is_cjk(last) != is_cjk(c));
        if !joins_word(c) || cjk_edge {
            push_word(&mut words, std::mem::take(&mut word));
        }
        if joins_word(c) {
            word.push(c);
        }
    }
    push_word(&mut words, word);
    words
}

fn push_word(words: &mut Vec<String>, word: String) {
    let word = word.trim_matches(|c: char| matches!(c, '.' | '-' | '\'' | '/')).to_lowercase();
    if !word.is_empty() {
        words.push(word);
    }
}

/// How many words the text has, counting two CJK characters as one word (a Japanese
/// or Chinese word is one to three characters long).
pub fn word_count(words: &[String]) -> usize {
    words.iter().map(|w| if w.chars().any(is_cjk) { w.chars().count().div_ceil(2) } else { 1 }).sum()
}

/// Lowercase without accents, so "disponibilité" is "disponibilite" and "DSGVO" is
/// "dsgvo". CJK text is kept as it is (transliterating it would lose its meaning).
fn fold(word: &str) -> String {
    match word.chars().any(is_cjk) {
        true => word.to_lowercase(),
        false => deunicode::deunicode(word).to_lowercase(),
    }
}

/// Suffixes the stemmer strips, longest first.
const SUFFIXES: &[&str] = &[
    "ities", "ments", "ings", "ions", "ment", "ity", "ies", "ied", "ing", "ion", "ers", "ly", "er", "ed", "es", "s",
    "e", "y",
];

/// A light stemmer: strips common English endings until none is left, keeping at least
/// three letters ("security" and "secure" → "secur", "deployments" → "deploy"). Words
/// ending in "ss" keep their s ("process"), and a "y" after a vowel stays ("deploy").
pub fn stem(word: &str) -> String {
    let mut stem = word.to_string();
    while let Some(shorter) = strip_suffix(&stem) {
        stem = shorter;
    }
    stem
}

fn strip_suffix(word: &str) -> Option<String> {
    SUFFIXES.iter().find_map(|suffix| {
        let base = word.strip_suffix(suffix)?;
        let keeps_s = matches!(*suffix, "s" | "es") && word.ends_with("ss");
        let vowel_y = *suffix == "y" && base.ends_with(['a', 'e', 'i', 'o', 'u']);
        (base.chars().count() >= 3 && !keeps_s && !vowel_y).then(|| base.to_string())
    })
}

/// A text made ready for keyword matching.
#[derive(Debug)]
pub struct Terms {
    /// Folded words, and the parts of joined ones ("dsgvo-konform" → "dsgvo", "ci/cd").
    words: Vec<String>,
    /// The stems of `words`, same order.
    stems: Vec<String>,
    /// The stems of the whole words in order, for phrases.
    sequence: Vec<String>,
    /// The lowercase text, for CJK keywords.
    text: String,
    /// Words that are keywords in their own right: they match only themselves.
    reserved: HashSet<String>,
}

impl Terms {
    /// The text's terms, leaving out `excluded` (each a name whose words must not count).
    pub fn new(text: &str, excluded: &[String]) -> Terms {
        let excluded_words: Vec<String> = excluded.iter().flat_map(|name| words(name)).map(|w| fold(&w)).collect();
        let mut cjk_text = text.to_lowercase();
        for name in excluded.iter().filter(|name| name.chars().any(is_cjk)) {
            cjk_text = cjk_text.replace(&name.to_lowercase(), " ");
        }
        let whole: Vec<String> =
            words(&cjk_text).iter().map(|w| fold(w)).filter(|w| !excluded_words.contains(w)).collect();
        let mut all = whole.clone();
        for word in whole.iter().filter(|w| w.contains(['-', '/'])) {
            all.extend(word.split(['-', '/']).filter(|part| !part.is_empty()).map(str::to_string));
        }
        Terms {
            stems: all.iter().map(|w| stem(w)).collect(),
            sequence: whole.iter().map(|w| stem(w)).collect(),
            words: all,
            text: cjk_text,
            reserved: HashSet::new(),
        }
    }

    /// These terms with every one-word `keywords` (a whole catalog's) matching only
    /// itself: "billing" names the keyword "billing", not "bill" by its stem.
    pub fn reserving<'k>(mut self, keywords: impl IntoIterator<Item = &'k str>) -> Terms {
        self.reserved = keywords.into_iter().map(|k| fold(k.trim())).filter(|k| words(k).len() == 1).collect();
        self
    }

    /// Whether the keyword (a word, a phrase of several, or CJK text) is in the text.
    pub fn matches(&self, keyword: &str) -> bool {
        let keyword = fold(keyword.trim());
        if keyword.chars().any(is_cjk) {
            return self.text.contains(&keyword);
        }
        let parts = words(&keyword);
        match parts.as_slice() {
            [] => false,
            [word] => self.matches_word(word),
            phrase => {
                let stems: Vec<String> = phrase.iter().map(|w| stem(w)).collect();
                self.sequence.windows(stems.len()).any(|window| window == stems.as_slice())
            }
        }
    }

    /// The keywords the text names, each word once: "user" and "users" are one hit.
    pub fn hits<'k, K: AsRef<str>>(&self, keywords: &'k [K]) -> Vec<&'k str> {
        let mut roots: Vec<Vec<String>> = Vec::new();
        let mut hits = Vec::new();
        for keyword in keywords.iter().map(AsRef::as_ref).filter(|k| self.matches(k)) {
            let root: Vec<String> = words(&fold(keyword)).iter().map(|w| stem(w)).collect();
            if !roots.contains(&root) {
                roots.push(root);
                hits.push(keyword);
            }
        }
        hits
    }

    fn matches_word(&self, keyword: &str) -> bool {
        let keyword_stem = stem(keyword);
        self.words.iter().zip(&self.stems).any(|(word, word_stem)| match self.reserved(word) {
            Some(own) => own == keyword,
            None => word == keyword || *word_stem == keyword_stem,
        })
    }

    /// The keyword `word` is, itself or in its plural ("payments" is "payment").
    fn reserved<'w>(&self, word: &'w str) -> Option<&'w str> {
        [Some(word), word.strip_suffix('s'), word.strip_suffix("es")]
            .into_iter()
            .flatten()
            .find(|form| self.reserved.contains(*form))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(text: &str, keyword: &str) -> bool {
        Terms::new(text, &[]).matches(keyword)
    }

    #[test]
    fn stems_join_the_forms_of_a_word() {
        for (a, b) in [
            ("security", "secure"),
            ("caching", "cache"),
            ("deployments", "deploy"),
            ("dependencies", "dependency"),
            ("processes", "process"),
            ("users", "user"),
            ("securely", "secure"),
            ("faster", "fast"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} and {b}");
        }
        assert_ne!(stem("restores"), stem("rest"));
        assert_eq!(stem("deploy"), "deploy", "a y after a vowel stays");
    }

    #[test]
    fn keywords_match_forms_prefixes_phrases_and_cjk() {
        assert!(matches("Should we encrypt backups?", "encryption"));
        assert!(matches("Is the encryption at rest enough?", "encrypt"));
        assert!(!matches("How do we test restores?", "rest"));
        assert!(matches("Wie speichern wir Daten DSGVO-konform?", "DSGVO"));
        assert!(matches("Comment garantir la disponibilité ?", "disponibilite"));
        assert!(matches("Where should the source of truth live?", "source of truth"));
        assert!(!matches("Where is the source? The truth is out there.", "source of truth"));
        assert!(matches("個人情報を含むログ", "個人情報"));
        assert!(matches("キャッシュにはRedisを使う", "redis"), "Latin words inside CJK text are words");
    }

    #[test]
    fn a_keyword_never_matches_inside_a_word() {
        assert!(!matches("Where do we put the billboard images?", "bill"));
        assert!(!matches("Is cloudflare enough?", "cloud"));
        assert!(matches("Our cloud bill doubled", "bill"));
    }

    #[test]
    fn a_word_that_is_a_keyword_means_that_keyword() {
        let terms = Terms::new("How should the billing service store invoices?", &[]).reserving(["billing", "bill"]);
        assert!(terms.matches("billing") && !terms.matches("bill"));
        assert!(Terms::new("Who pays the bills?", &[]).reserving(["billing", "bill"]).matches("bill"));
        let payments = Terms::new("Where do payments go?", &[]).reserving(["payment", "pay"]);
        assert!(payments.matches("payment") && !payments.matches("pay"), "a plural is its keyword too");
    }

    #[test]
    fn forms_of_one_word_are_one_hit() {
        let terms = Terms::new("How many users, and which user roles?", &[]);
        assert_eq!(terms.hits(&["user", "users", "roles", "admin"]), ["user", "roles"]);
    }

    #[test]
    fn excluded_names_do_not_match() {
        let terms = Terms::new("Redis or Postgres as the queue?", &["Redis".into(), "Postgres".into()]);
        assert!(!terms.matches("redis") && !terms.matches("postgres"));
        assert!(terms.matches("queue"));
        assert!(!Terms::new("RedisとMemcached", &["Redis".into(), "Memcached".into()]).matches("memcached"));
    }

    #[test]
    fn cjk_text_counts_as_several_words() {
        assert_eq!(words("キャッシュにはRedisとMemcached"), ["キャッシュには", "redis", "と", "memcached"]);
        assert_eq!(word_count(&words("個人情報を含むログはどのくらいの期間保存すべきですか")), 13);
        assert_eq!(word_count(&words("Go or Rust?")), 3);
    }
}
