//! Keeping secrets out of everything debate stores, shows, sends or commits.
//!
//! Two kinds: the API keys this run knows (`Masker`, exact values, masked wherever they
//! appear, including a model answer that echoes one back), and text shaped like a
//! credential (`credentials`: provider and cloud keys, tokens, private-key blocks,
//! passwords in assignments and connection strings), found in text a person or a
//! repository wrote.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, RwLock};

use regex::{Captures, Regex};

/// What a masked configured key reads as.
pub const MASKED_KEY: &str = "[redacted key]";

/// The API keys this run knows, masked wherever they appear, in any encoding a JSON,
/// HTTP or HTML layer may give them (`\u0073`, `\/`, `%73`, `&#x73;`). Every key of
/// `MIN_KEY_CHARS` or more is masked: a placeholder such as `none` too, so a local
/// server that needs no key is best given none. A shorter one guards nothing (it is
/// guessed at once) and would mask ordinary words.
#[derive(Debug, Clone, Default)]
pub struct Masker {
    /// Longest first, so a key that contains another is masked whole.
    keys: Vec<Vec<char>>,
    /// Every key in every encoding, one alternation.
    pattern: Option<Regex>,
}

impl Masker {
    pub fn new(keys: impl IntoIterator<Item = String>) -> Masker {
        let mut keys: Vec<String> =
            keys.into_iter().map(|k| k.trim().to_string()).filter(|k| k.chars().count() >= MIN_KEY_CHARS).collect();
        keys.sort_by_key(|k| std::cmp::Reverse(k.len()));
        keys.dedup();
        let pattern = (!keys.is_empty()).then(|| {
            let alternatives: Vec<String> = keys.iter().map(|key| key.chars().map(char_pattern).collect()).collect();
            Regex::new(&alternatives.join("|")).expect("escaped keys make a valid pattern")
        });
        Masker { keys: keys.iter().map(|k| k.chars().collect()).collect(), pattern }
    }

    /// This masker and `keys` together.
    fn with(&self, keys: impl IntoIterator<Item = String>) -> Masker {
        Masker::new(self.keys.iter().map(|k| k.iter().collect()).chain(keys))
    }

    pub fn mask(&self, text: &str) -> String {
        self.masked(text).into_owned()
    }

    fn masked<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match &self.pattern {
            Some(pattern) => pattern.replace_all(text, MASKED_KEY),
            None => Cow::Borrowed(text),
        }
    }

    /// How much of a text still arriving can be shown now: all but a tail that could be
    /// the start of a key, in any encoding (shown once the rest shows whether it is one).
    pub fn safe_prefix(&self, text: &str) -> usize {
        let longest = self.keys.first().map_or(0, |k| k.len() * LONGEST_FORM);
        let from = text.len().saturating_sub(longest);
        text.char_indices()
            .map(|(i, _)| i)
            .filter(|&i| i >= from)
            .find(|&i| self.keys.iter().any(|key| begins(key, &text[i..])))
            .unwrap_or(text.len())
    }
}

/// The shortest key that is masked.
pub const MIN_KEY_CHARS: usize = 4;

/// The longest form `forms` gives a character, in bytes (`&#1114111;`, `%F4%8F%BF%BF`).
const LONGEST_FORM: usize = 12;

/// Every way a JSON, HTTP or HTML layer may write `c`: as is, `\uXXXX` (a surrogate
/// pair beyond the BMP), `\/` for a slash, percent-encoded UTF-8, and a numeric
/// character reference. All but the first match hex digits in either case.
fn forms(c: char) -> Vec<String> {
    let mut units = [0u16; 2];
    let mut bytes = [0u8; 4];
    let mut forms = vec![
        c.encode_utf16(&mut units).iter().map(|u| format!("\\u{u:04x}")).collect(),
        c.encode_utf8(&mut bytes).bytes().map(|b| format!("%{b:02x}")).collect(),
        format!("&#x{:x};", c as u32),
        format!("&#{};", c as u32),
    ];
    if c == '/' {
        forms.push("\\/".to_string());
    }
    forms
}

/// A regex for `c` in any of its forms.
fn char_pattern(c: char) -> String {
    let encoded: Vec<String> = forms(c).iter().map(|f| regex::escape(f)).collect();
    format!("(?:{}|(?i:{}))", regex::escape(&c.to_string()), encoded.join("|"))
}

/// Whether `tail` is the start of `key` in some mix of its characters' forms, cut off
/// before the key ends.
fn begins(key: &[char], tail: &str) -> bool {
    let Some((&c, rest)) = key.split_first() else { return false };
    if tail.is_empty() {
        return true;
    }
    let literal = c.to_string();
    let candidates = std::iter::once((literal, false)).chain(forms(c).into_iter().map(|f| (f, true)));
    candidates.into_iter().any(|(form, any_case)| {
        let same = |a: &str, b: &str| if any_case { a.eq_ignore_ascii_case(b) } else { a == b };
        if tail.len() < form.len() {
            form.is_char_boundary(tail.len()) && same(&form[..tail.len()], tail)
        } else {
            tail.is_char_boundary(form.len()) && same(&tail[..form.len()], &form) && begins(rest, &tail[form.len()..])
        }
    })
}

/// The keys of this process: whatever leaves it (the database, files in the work tree,
/// commits, the terminal, the dashboard) passes `gate`. Keys are added as settings and
/// providers name them, never removed.
static GATE: LazyLock<RwLock<Arc<Masker>>> = LazyLock::new(Default::default);

/// Add keys to the gate.
pub fn guard(keys: impl IntoIterator<Item = String>) {
    let mut gate = GATE.write().unwrap_or_else(|poisoned| poisoned.into_inner());
    let added = gate.with(keys);
    *gate = Arc::new(added);
}

/// The gate's keys now.
pub fn keys() -> Arc<Masker> {
    GATE.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

/// `text` with every key the gate knows masked.
pub fn gate(text: &str) -> String {
    keys().mask(text)
}

/// Bytes on their way out: masked when they are text (everything debate writes is).
pub fn gate_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    let keys = keys();
    match std::str::from_utf8(bytes).map(|text| keys.masked(text)) {
        Ok(Cow::Owned(masked)) => Cow::Owned(masked.into_bytes()),
        _ => Cow::Borrowed(bytes),
    }
}

/// Every string in a JSON value masked (masking the serialised text could split an
/// escape sequence). Object keys are debate's own field and provider names.
pub fn gate_json(value: &mut serde_json::Value) {
    let keys = keys();
    mask_json(&keys, value);
}

/// `value` as JSON text, every string in it through the gate. Read back from its own
/// text rather than converted, so an `f32` prints as it was written (`0.2`).
pub fn gated_json<T: serde::Serialize>(value: &T, pretty: bool) -> serde_json::Result<String> {
    let mut value: serde_json::Value = serde_json::from_str(&serde_json::to_string(value)?)?;
    gate_json(&mut value);
    match pretty {
        true => serde_json::to_string_pretty(&value),
        false => serde_json::to_string(&value),
    }
}

fn mask_json(keys: &Masker, value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(text) => {
            if let Cow::Owned(masked) = keys.masked(text) {
                *text = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| mask_json(keys, item)),
        Value::Object(map) => map.values_mut().for_each(|item| mask_json(keys, item)),
        _ => {}
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
/// store" is a sentence, `TOKEN=abc1` and `password: "horse battery"` are not. Nor are
/// counts (`max_tokens: 2000`, `tokens: {prompt: …}`), names of where a secret is kept
/// (`api_key_env: OPENAI_API_KEY`, `${DB_PASSWORD}`, `secretKeyRef`) or placeholders.
fn assignment(captures: &Captures) -> bool {
    let name = captures[1].to_ascii_lowercase();
    let last = name.rsplit(['_', '-']).next().unwrap_or_default();
    let counted = name.contains("tokens") || ["budget", "count", "limit", "length", "size"].contains(&last);
    let pointer =
        ["env", "file", "path", "ref", "name", "type", "url", "endpoint"].contains(&last) || name.ends_with("keyref");
    if counted || pointer {
        return false;
    }
    let quoted = captures.get(3).or(captures.get(4));
    let value = quoted.or(captures.get(5)).map_or("", |m| m.as_str());
    let may_be_number = ["password", "passwd", "pwd", "pin"].iter().any(|p| name.contains(p));
    if placeholder(value) || (!may_be_number && value.chars().all(|c| c.is_ascii_digit() || ",._".contains(c))) {
        return false;
    }
    &captures[2] == "=" || quoted.is_some() || value.chars().any(|c| !c.is_alphabetic())
}

/// "The staging password is: …": a colon after the verb, or a value with a digit or a
/// symbol ("the token is valid" is a sentence).
fn in_prose(captures: &Captures) -> bool {
    let value = &captures[2];
    !placeholder(value) && (captures.get(1).is_some() || value.chars().any(|c| !c.is_alphabetic()))
}

/// What stands for a secret without being one: a reference to where it is kept
/// (`${VAR}`, `${{ secrets.X }}`, `$VAR`, `%VAR%`, `{{ var }}`, an environment variable's
/// name), a structure (`{…}`, `[…]`), or a placeholder (`<your-password>`, `xxxx`,
/// `changeme`).
fn placeholder(value: &str) -> bool {
    static REFERENCE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:\$\{.*|\$[a-z_][a-z0-9_]*|%[a-z_][a-z0-9_]*%|\{\{.*|[\{\[\(<].*|your[-_].*|\[redacted.*)$")
            .expect("a valid pattern")
    });
    let value = value.trim_end_matches([',', '.', ';', ')']);
    // An environment variable's name: upper case with an underscore.
    let env_name =
        value.contains('_') && value.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    env_name || REFERENCE.is_match(value) || is_word(value)
}

/// Placeholder words, whatever their case.
fn is_word(value: &str) -> bool {
    ["changeme", "placeholder", "example", "redacted", "null", "none", "true", "false", "required"]
        .contains(&value.to_ascii_lowercase().as_str())
        || (!value.is_empty() && value.chars().all(|c| "xX*.-".contains(c)))
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
                r#"(?i)\b([a-z0-9_\-]*?(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key)[a-z0-9_\-]*)["']?[ \t]*([:=])[ \t]*(?:"([^"\n]{4,})"|'([^'\n]{4,})'|([^\s"'&;,]{4,}))"#,
                &[3, 4, 5],
            )
        },
        Pattern {
            accept: in_prose,
            ..pattern(
                "a password or secret in a sentence",
                r#"(?i)\b(?:password|passphrase|passwd|secret|api key|access key|token)\s+(?:is|was)(\s*:)?\s+["'`]?([^\s"'`]{4,})"#,
                &[2],
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
        let masker = Masker::new(["sk-test-1234567890".to_string(), "k9Zq".into(), "k9Z".into()]);
        assert_eq!(
            masker.mask("Bearer sk-test-1234567890 and sk-test-1234567890!"),
            "Bearer [redacted key] and [redacted key]!"
        );
        assert_eq!(masker.mask("short k9Zq too"), "short [redacted key] too", "a key of four characters");
        assert_eq!(masker.mask("k9Z"), "k9Z", "a key under four characters guards nothing");
    }

    #[test]
    fn keys_are_masked_in_every_encoding_a_json_http_or_html_layer_gives_them() {
        let masker = Masker::new(["sk-live/SECRET".to_string()]);
        for written in [
            "sk-live/SECRET",
            r"\u0073k-live\/SECRET",
            r"\u0073\u006B\u002d\u006c\u0069\u0076\u0065\u002F\u0053\u0045\u0043\u0052\u0045\u0054",
            "sk-live%2FSECRET",
            "%73%6b%2d%6C%69%76%65%2f%53%45%43%52%45%54",
            "sk-live&#x2f;SECRET",
            "sk-live&#47;SECRET",
        ] {
            assert_eq!(masker.mask(&format!("<{written}>")), "<[redacted key]>", "{written}");
        }
        assert_eq!(masker.mask("sk-live/secret"), "sk-live/secret", "the key itself is matched exactly");
    }

    #[test]
    fn json_strings_are_masked_after_decoding() {
        guard(["sk-json-ECHO/0a1b".to_string()]);
        let mut value: serde_json::Value =
            serde_json::from_str(r#"{"summary": "KEYECHO[\u0073k-json-ECHO\/0a1b]", "list": ["sk-json-ECHO/0a1b"]}"#)
                .unwrap();
        gate_json(&mut value);
        assert_eq!(value.to_string(), r#"{"summary":"KEYECHO[[redacted key]]","list":["[redacted key]"]}"#);
    }

    #[test]
    fn a_streamed_key_never_shows_even_split_across_pieces() {
        let key = "sk-live-abcdefghijklmnop";
        let masker = Masker::new([key.to_string()]);
        let answer = format!("The key is {key}, and that is all, not even as \\u0073k-live-abcdefghijklmnop.");
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
            ("The staging password is: Tr0ub4dor&3 for now", "a password or secret in a sentence"),
            ("Password is: hunter22", "a password or secret in a sentence"),
            ("the admin password was hunter22!", "a password or secret in a sentence"),
        ];
        for (text, what) in cases {
            let (masked, found) = credentials(text);
            assert!(found.iter().any(|f| f.what == what), "{text:?}: {found:?}");
            assert!(masked.contains("[redacted]"), "{text:?} → {masked:?}");
            for secret in [
                "AbCdEfGhIjKlMnOp",
                "IOSFODNN7",
                "wJalrXUtnFEMI",
                "b3BlbnNzaC1rZXk",
                "aBcDeFgHiJ",
                "hunter22",
                "Tr0ub4dor",
            ] {
                assert!(!masked.contains(secret), "{text:?} → {masked:?}");
            }
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "Should we use Redis or Postgres for caching?",
            "The password reset flow needs a token: which store?",
            "tokens: {prompt: 28557, cached: 20000, completion: 4120}",
            "- Tokens: 28557 prompt (20000 of them cached), 4120 completion.",
            "max_tokens: 2000\ntoken_budget_per_round: 2000",
            "api_key_env: OPENAI_API_KEY",
            "POSTGRES_PASSWORD: ${DB_PASSWORD}\nPOSTGRES_PASSWORD_FILE: /run/secrets/db",
            "api_key: ${{ secrets.OPENAI_API_KEY }}",
            "secretKeyRef:\n  name: db-credentials",
            "PASSWORD=changeme\nTOKEN=<your-token>\nSECRET=xxxxxxxx",
            "The token is valid for 5 minutes; the password is hashed with argon2.",
            "Keep sk- prefixes short, like sk-abc.",
            "https://example.com/path?query=1",
        ] {
            let (masked, found) = credentials(text);
            assert_eq!((masked.as_str(), found.len()), (text, 0), "{text:?}");
        }
    }
}
