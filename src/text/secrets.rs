//! Keeping secrets out of everything debate stores, shows, sends or commits.
//!
//! Two kinds: the API keys this run knows (`Masker`, exact values, masked wherever they
//! appear, including a model answer that echoes one back), and text shaped like a
//! credential (`credentials`: provider and cloud keys, tokens, private-key blocks,
//! passwords in assignments and connection strings), found in text a person or a
//! repository wrote.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What a masked configured key reads as.
pub const MASKED_KEY: &str = "[redacted key]";

/// The API keys this run knows, masked wherever they appear.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    keys: Vec<String>,
}

impl Masker {
    /// Keys shorter than 8 characters are not secrets worth the false matches.
    pub fn new(keys: impl IntoIterator<Item = String>) -> Masker {
        let mut keys: Vec<String> = keys.into_iter().map(|k| k.trim().to_string()).filter(|k| k.len() >= 8).collect();
        // Longest first, so a key that contains another is masked whole.
        keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
        keys.dedup();
        Masker { keys }
    }

    pub fn mask(&self, text: &str) -> String {
        let mut text = text.to_string();
        for key in &self.keys {
            if text.contains(key.as_str()) {
                text = text.replace(key.as_str(), MASKED_KEY);
            }
        }
        text
    }

    /// How much of a text still arriving can be shown now: all but a tail that could be
    /// the start of a key (shown once the rest shows whether it is one).
    pub fn safe_prefix(&self, text: &str) -> usize {
        let held = self
            .keys
            .iter()
            .flat_map(|key| (1..key.len()).rev().find(|&n| key.is_char_boundary(n) && text.ends_with(&key[..n])))
            .max()
            .unwrap_or(0);
        text.len() - held
    }
}

/// A streamed answer shown as it arrives, with every key masked and no part of a key
/// ever shown.
#[derive(Debug, Default)]
pub struct MaskedStream {
    received: String,
    /// How much of `received` has been passed on.
    shown: usize,
}

impl MaskedStream {
    /// Take more text; what may be shown of it now, masked.
    pub fn push(&mut self, masker: &Masker, text: &str) -> String {
        self.received.push_str(text);
        let safe = masker.safe_prefix(&self.received);
        if safe <= self.shown {
            return String::new();
        }
        // No key straddles `shown`: it was a safe prefix when it was reached.
        let ready = masker.mask(&self.received[self.shown..safe]);
        self.shown = safe;
        ready
    }
}

/// A credential found in text, and what it was replaced with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it looks like: "an OpenAI-style API key", "a private key block", …
    pub what: &'static str,
}

struct Pattern {
    what: &'static str,
    regex: Regex,
    /// The capture groups that may hold the secret itself, the first that matched wins
    /// (0: the whole match).
    groups: &'static [usize],
    /// Whether a match is a credential rather than ordinary prose.
    accept: fn(&Captures) -> bool,
}

fn pattern(what: &'static str, regex: &str, groups: &'static [usize]) -> Pattern {
    Pattern { what, regex: Regex::new(regex).expect("patterns are valid"), groups, accept: |_| true }
}

/// `password=…`, a quoted value, or a value with a digit or a symbol: "a token: which
/// store" is a sentence, `TOKEN=abc1` and `password: "horse battery"` are not.
fn assignment(captures: &Captures) -> bool {
    let quoted = captures.get(2).or(captures.get(3)).is_some();
    let bare = captures.get(4).map_or("", |m| m.as_str());
    &captures[1] == "=" || quoted || bare.chars().any(|c| !c.is_alphabetic())
}

static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    vec![
        pattern(
            "a private key block",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
            &[0],
        ),
        pattern("an Anthropic API key", r"\bsk-ant-[A-Za-z0-9_\-]{16,}", &[0]),
        pattern("an OpenRouter API key", r"\bsk-or-[A-Za-z0-9_\-]{16,}", &[0]),
        pattern("an OpenAI-style API key", r"\bsk-[A-Za-z0-9_\-]{20,}", &[0]),
        pattern("an AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", &[0]),
        pattern(
            "an AWS secret access key",
            r#"(?i)aws.{0,20}?(?:secret|key)[A-Za-z_]*["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})\b"#,
            &[1],
        ),
        pattern("a GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})", &[0]),
        pattern("a Slack token", r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", &[0]),
        pattern("a Google API key", r"\bAIza[0-9A-Za-z_\-]{35}\b", &[0]),
        pattern("a Stripe key", r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}", &[0]),
        pattern("a JSON Web Token", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", &[0]),
        pattern("a password in a connection string", r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:([^\s@/]+)@", &[1]),
        Pattern {
            accept: assignment,
            ..pattern(
                "a password or secret in an assignment",
                r#"(?i)\b[a-z0-9_]*?(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key)[a-z0-9_]*["']?\s*([:=])\s*(?:"([^"\n]{4,})"|'([^'\n]{4,})'|([^\s"'&;,]{4,}))"#,
                &[2, 3, 4],
            )
        },
    ]
});

/// `text` with everything shaped like a credential replaced by `[redacted …]`, and what
/// was found (one entry per kind).
pub fn credentials(text: &str) -> (String, Vec<Finding>) {
    let mut text = text.to_string();
    let mut found = Vec::new();
    for pattern in PATTERNS.iter() {
        let mut replaced = String::with_capacity(text.len());
        let mut last = 0;
        for captures in pattern.regex.captures_iter(&text) {
            let Some(secret) = pattern.groups.iter().find_map(|&g| captures.get(g)) else { continue };
            if secret.as_str().starts_with("[redacted") || !(pattern.accept)(&captures) {
                continue;
            }
            replaced.push_str(&text[last..secret.start()]);
            replaced.push_str("[redacted]");
            last = secret.end();
        }
        if last > 0 {
            replaced.push_str(&text[last..]);
            text = replaced;
            found.push(Finding { what: pattern.what });
        }
    }
    (text, found)
}

/// What the user is told when `origin` held a secret.
pub fn masked_warning(origin: &str, what: &str) -> String {
    format!("{origin} holds {what}; it is masked everywhere debate stores, sends or writes it")
}

/// `text` with every known key and everything shaped like a credential masked, and
/// what was found, one phrase per kind ("one of your API keys", "what looks like a
/// private key block").
pub fn scrub(text: &str, keys: &Masker) -> (String, Vec<String>) {
    let keyless = keys.mask(text);
    let mut found = Vec::new();
    if keyless != text {
        found.push("one of your API keys".to_string());
    }
    let (masked, credentials) = credentials(&keyless);
    found.extend(credentials.into_iter().map(|f| format!("what looks like {}", f.what)));
    (masked, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_keys_are_masked_wherever_they_appear() {
        let masker = Masker::new(["sk-test-1234567890".to_string(), "short".into()]);
        assert_eq!(
            masker.mask("Bearer sk-test-1234567890 and sk-test-1234567890!"),
            "Bearer [redacted key] and [redacted key]!"
        );
        assert_eq!(masker.mask("short stays"), "short stays", "keys under 8 characters are not masked");
    }

    #[test]
    fn a_streamed_key_never_shows_even_split_across_pieces() {
        let key = "sk-live-abcdefghijklmnop";
        let masker = Masker::new([key.to_string()]);
        let answer = format!("The key is {key}, and that is all.");
        for size in [1, 2, 3, 5, 7, 11] {
            let mut stream = MaskedStream::default();
            let mut shown = String::new();
            let chars: Vec<char> = answer.chars().collect();
            for piece in chars.chunks(size) {
                shown.push_str(&stream.push(&masker, &piece.iter().collect::<String>()));
                assert!(!key.char_indices().skip(3).any(|(i, _)| shown.contains(&key[..i])), "{shown:?}");
            }
            assert_eq!(shown, masker.mask(&answer), "pieces of {size}");
        }
    }

    #[test]
    fn credentials_in_text_are_masked_and_named() {
        let cases = [
            ("use sk-proj-AbCdEfGhIjKlMnOpQrStUvWx for it", "an OpenAI-style API key"),
            ("key sk-ant-api03-AbCdEfGhIjKlMnOpQr", "an Anthropic API key"),
            ("id AKIAIOSFODNN7EXAMPLE here", "an AWS access key id"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "an AWS secret access key"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
                "a private key block",
            ),
            ("token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "a GitHub token"),
            ("postgres://app:hunter22@db:5432/app", "a password in a connection string"),
            ("DB_PASSWORD=hunter22", "a password or secret in an assignment"),
            ("password: \"correct horse\"", "a password or secret in an assignment"),
            ("CACHE_URL=redis://:hunter22@cache:6379", "a password in a connection string"),
            ("SECRET_KEY=django-insecure-hunter22xyz", "a password or secret in an assignment"),
            ("GITHUB_TOKEN_V2: hunter22abc", "a password or secret in an assignment"),
        ];
        for (text, what) in cases {
            let (masked, found) = credentials(text);
            assert!(found.iter().any(|f| f.what == what), "{text:?}: {found:?}");
            assert!(masked.contains("[redacted]"), "{text:?} → {masked:?}");
            for secret in
                ["AbCdEfGhIjKlMnOp", "IOSFODNN7", "wJalrXUtnFEMI", "b3BlbnNzaC1rZXk", "aBcDeFgHiJ", "hunter22"]
            {
                assert!(!masked.contains(secret), "{text:?} → {masked:?}");
            }
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Should we use Redis or Postgres for caching?",
            "The password reset flow needs a token: which store?",
            "Keep sk- prefixes short, like sk-abc.",
            "https://example.com/path?query=1",
        ] {
            let (masked, found) = credentials(text);
            assert_eq!((masked.as_str(), found.len()), (text, 0), "{text:?}");
        }
    }
}
