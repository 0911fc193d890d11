//! Who a key belongs to: git's allowed-signers file (`gpg.ssh.allowedSignersFile`), in
//! the format `ssh-keygen -Y verify` reads (ssh-keygen(1), "ALLOWED SIGNERS"):
//!
//! ```text
//! # comment
//! alice@example.org,alice@corp.example ssh-ed25519 AAAA… [comment]
//! "bob@example.org" namespaces="git,debate-record@v1",valid-after="20260101" ssh-ed25519 AAAA…
//! ```
//!
//! A key's principal is the first line that names the key and allows it for the
//! namespace at the time asked about, as `ssh-keygen -Y find-principals` followed by
//! `-Y verify -n NAMESPACE` would find it: `namespaces="…"` (a pattern list, `*`, `?`
//! and `!`) and `valid-after`/`valid-before` (`YYYYMMDD[HHMM[SS]]`, UTC with a `Z`,
//! local time without) are honoured. `cert-authority` lines name a certificate
//! authority, and a record is never signed with a certificate, so they never match.
//! A malformed line is an error naming the line, as ssh-keygen stops at one too.

use std::path::Path;

use chrono::{DateTime, Local, NaiveDate, NaiveDateTime, TimeZone, Utc};
use ssh_key::public::KeyData;

use super::error::{AttestError, Result};
use super::key::PublicKey;

/// An allowed-signers file, read.
#[derive(Debug, Default)]
pub struct AllowedSigners {
    lines: Vec<Allowed>,
}

/// One line: its principals as written, its key and its options.
#[derive(Debug)]
struct Allowed {
    principals: String,
    key: KeyData,
    cert_authority: bool,
    namespaces: Option<String>,
    valid_after: Option<DateTime<Utc>>,
    valid_before: Option<DateTime<Utc>>,
}

impl AllowedSigners {
    /// The file at `path`; its errors name it and the line.
    pub fn read(path: &Path) -> Result<AllowedSigners> {
        let text =
            std::fs::read_to_string(path).map_err(|source| AttestError::Read { path: path.to_path_buf(), source })?;
        AllowedSigners::parse(&text).map_err(|err| match err {
            AttestError::AllowedSigners { line, reason, .. } => {
                AttestError::AllowedSigners { file: path.display().to_string(), line, reason }
            }
            other => other,
        })
    }

    /// The file's text.
    pub fn parse(text: &str) -> Result<AllowedSigners> {
        let mut lines = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| AttestError::AllowedSigners {
                file: "the allowed signers".into(),
                line: index + 1,
                reason,
            };
            lines.push(Allowed::parse(line).map_err(bad)?);
        }
        Ok(AllowedSigners { lines })
    }

    /// The principals (as the file writes them, `alice@example.org,alice@corp.example`)
    /// that `key` signs for in `namespace` at `at`; or why there are none: no line names
    /// the key, or the lines that do allow it for other namespaces or another time.
    pub fn principal(&self, key: &PublicKey, namespace: &str, at: DateTime<Utc>) -> Result<&str> {
        let key_data = key.key_data();
        let mut refusals = Vec::new();
        for allowed in self.lines.iter().filter(|a| a.key == key_data && !a.cert_authority) {
            match allowed.refusal(namespace, at) {
                None => return Ok(&allowed.principals),
                Some(why) => refusals.push(format!("{} {why}", allowed.principals)),
            }
        }
        Err(AttestError::Signer(match refusals.is_empty() {
            true => format!("no allowed signer has the key {}", key.fingerprint()),
            false => format!("the key {} is allowed, but not here: {}", key.fingerprint(), refusals.join("; ")),
        }))
    }
}

impl Allowed {
    fn parse(line: &str) -> std::result::Result<Allowed, String> {
        let (principals, rest) = token(line)?;
        let principals = principals.trim_matches('"').to_string();
        if principals.is_empty() || rest.is_empty() {
            return Err("expected principals, options and a key".into());
        }
        // Options come between the principals and the key only when what follows the
        // principals is not a key by itself, as ssh-keygen decides.
        let (options, key) = match ssh_key::PublicKey::from_openssh(rest) {
            Ok(key) => ("", key),
            Err(_) => {
                let (options, key) = token(rest)?;
                let key = ssh_key::PublicKey::from_openssh(key)
                    .map_err(|err| format!("not a public key after the options ({err})"))?;
                (options, key)
            }
        };
        let mut allowed = Allowed {
            principals,
            key: key.key_data().clone(),
            cert_authority: false,
            namespaces: None,
            valid_after: None,
            valid_before: None,
        };
        for option in split_options(options)? {
            let (name, value) = match option.split_once('=') {
                Some((name, value)) => {
                    let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"'));
                    (name, Some(value.ok_or_else(|| format!("the value of {name} is not in double quotes"))?))
                }
                None => (option, None),
            };
            match (name.to_ascii_lowercase().as_str(), value) {
                ("cert-authority", None) => allowed.cert_authority = true,
                ("namespaces", Some(value)) => allowed.namespaces = Some(value.to_string()),
                ("valid-after", Some(value)) => allowed.valid_after = Some(timestamp(value)?),
                ("valid-before", Some(value)) => allowed.valid_before = Some(timestamp(value)?),
                _ => return Err(format!("unknown option {option:?}")),
            }
        }
        Ok(allowed)
    }

    /// Why this line does not allow its key for `namespace` at `at`, if it does not.
    fn refusal(&self, namespace: &str, at: DateTime<Utc>) -> Option<String> {
        if let Some(namespaces) = &self.namespaces
            && !matches_list(namespace, namespaces)
        {
            return Some(format!("may sign only for namespaces {namespaces:?}"));
        }
        if let Some(after) = self.valid_after
            && at < after
        {
            return Some(format!("is valid only after {after}"));
        }
        if let Some(before) = self.valid_before
            && at > before
        {
            return Some(format!("was valid only before {before}"));
        }
        None
    }
}

/// The first word of `text` (a word in double quotes may hold spaces) and the rest.
fn token(text: &str) -> std::result::Result<(&str, &str), String> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => return Ok((&text[..at], text[at..].trim_start())),
            _ => {}
        }
    }
    match quoted {
        true => Err("a double quote is not closed".into()),
        false => Ok((text, "")),
    }
}

/// `a,b="x,y",c` as `a`, `b="x,y"`, `c`.
fn split_options(options: &str) -> std::result::Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (at, c) in options.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&options[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&options[start..]);
    match parts.iter().any(|p| p.is_empty()) && !options.is_empty() {
        true => Err(format!("an empty option in {options:?}")),
        false => Ok(parts.into_iter().filter(|p| !p.is_empty()).collect()),
    }
}

/// `YYYYMMDD`, `YYYYMMDDHHMM` or `YYYYMMDDHHMMSS`, in UTC when followed by `Z`, else
/// in local time (ssh-keygen(1)).
fn timestamp(value: &str) -> std::result::Result<DateTime<Utc>, String> {
    let (digits, utc) = match value.strip_suffix(['Z', 'z']) {
        Some(digits) => (digits, true),
        None => (value, false),
    };
    let naive = match digits.len() {
        8 => NaiveDate::parse_from_str(digits, "%Y%m%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)),
        12 => NaiveDateTime::parse_from_str(digits, "%Y%m%d%H%M").ok(),
        14 => NaiveDateTime::parse_from_str(digits, "%Y%m%d%H%M%S").ok(),
        _ => None,
    }
    .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
    .ok_or_else(|| format!("{value:?} is not a time as YYYYMMDD[HHMM[SS]][Z]"))?;
    match utc {
        true => Ok(naive.and_utc()),
        false => Local
            .from_local_datetime(&naive)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
            .ok_or_else(|| format!("{value:?} does not exist in local time")),
    }
}

/// Whether `value` matches OpenSSH's pattern list `list`: comma-separated patterns,
/// a `!` pattern that matches refuses whatever else matches.
fn matches_list(value: &str, list: &str) -> bool {
    let mut matched = false;
    for pattern in list.split(',').map(str::trim) {
        match pattern.strip_prefix('!') {
            Some(negated) if matches(value, negated) => return false,
            Some(_) => {}
            None => matched |= matches(value, pattern),
        }
    }
    matched
}

/// OpenSSH's `match_pattern`: `*` any run of characters, `?` any one, nothing else
/// special. Written here rather than taken from a glob crate, whose classes (`[…]`)
/// and escapes OpenSSH does not have.
fn matches(value: &str, pattern: &str) -> bool {
    let (value, pattern): (Vec<char>, Vec<char>) = (value.chars().collect(), pattern.chars().collect());
    let (mut v, mut p) = (0, 0);
    // Where the last `*` was, and how much of the value it has taken so far.
    let mut star: Option<(usize, usize)> = None;
    while v < value.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, v));
                p += 1;
            }
            Some(&c) if c == '?' || c == value[v] => {
                p += 1;
                v += 1;
            }
            _ => match star {
                Some((at, taken)) => {
                    star = Some((at, taken + 1));
                    p = at + 1;
                    v = taken + 1;
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::sshsig::{self, NAMESPACE};
    use crate::attest::testing::{keygen, ssh_keygen};
    use crate::attest::{Signer, SshSignature};

    fn now() -> DateTime<Utc> {
        "2026-05-20T14:05:30Z".parse().unwrap()
    }

    /// A key made by ssh-keygen: its signer and its `.pub` line.
    fn key(dir: &Path, name: &str) -> (Signer, String) {
        let file = keygen(dir, name, "ed25519", "");
        let line = std::fs::read_to_string(file.with_extension("pub")).unwrap();
        (Signer::from_file(&file, None).unwrap(), line.trim().to_string())
    }

    #[test]
    fn a_key_is_found_by_its_line_and_an_unknown_key_has_no_principal() {
        let dir = tempfile::tempdir().unwrap();
        let (alice, alice_line) = key(dir.path(), "alice");
        let (bob, bob_line) = key(dir.path(), "bob");
        let (carol, _) = key(dir.path(), "carol");
        let rsa = std::fs::read_to_string(keygen(dir.path(), "rsa", "rsa", "").with_extension("pub")).unwrap();
        let file = format!(
            "# the team\n\ndave@example.org {}\n  alice@example.org,alice@corp.example {alice_line}\n\"bob@example.org\" namespaces=\"git,debate-*\" {bob_line}\n",
            rsa.trim()
        );
        let signers = AllowedSigners::parse(&file).unwrap();
        assert_eq!(
            signers.principal(&alice.public(), NAMESPACE, now()).unwrap(),
            "alice@example.org,alice@corp.example"
        );
        assert_eq!(signers.principal(&bob.public(), NAMESPACE, now()).unwrap(), "bob@example.org");
        let unknown = signers.principal(&carol.public(), NAMESPACE, now()).unwrap_err().to_string();
        assert_eq!(unknown, format!("no allowed signer has the key {}", carol.public().fingerprint()));
    }

    #[test]
    fn namespaces_and_validity_are_honoured_as_ssh_keygen_honours_them() {
        let dir = tempfile::tempdir().unwrap();
        let (signer, line) = key(dir.path(), "alice");
        let message = b"a record";
        let signature = sshsig::sign(&signer, message).unwrap();
        let sig_file = dir.path().join("sig");
        std::fs::write(&sig_file, &signature).unwrap();
        SshSignature::from_armored(&signature).unwrap().verify(&signer.public(), message).unwrap();
        // (options, allowed now). ssh-keygen checks validity against the present time,
        // so the times here are far in the past or the future.
        let cases = [
            ("", true),
            ("namespaces=\"git\"", false),
            ("namespaces=\"git,debate-record@v?\"", true),
            ("NAMESPACES=\"*,!debate-*\"", false),
            ("valid-after=\"20200101\"", true),
            ("valid-after=\"29990101Z\"", false),
            ("valid-before=\"20200101120000Z\"", false),
            ("cert-authority", false),
        ];
        for (options, allowed) in cases {
            let file = dir.path().join("allowed_signers");
            std::fs::write(&file, format!("alice@example.org {options} {line}\n")).unwrap();
            let ours = AllowedSigners::read(&file).unwrap();
            let ours = ours.principal(&signer.public(), NAMESPACE, Utc::now());
            assert_eq!(ours.is_ok(), allowed, "{options}: {ours:?}");
            let theirs = ssh_keygen(
                &["-Y", "verify", "-f", file.to_str().unwrap(), "-I", "alice@example.org", "-n", NAMESPACE, "-s"]
                    .into_iter()
                    .chain([sig_file.to_str().unwrap()])
                    .collect::<Vec<_>>(),
                message,
            );
            assert_eq!(theirs.status.success(), allowed, "ssh-keygen with {options}");
        }
        let file = format!("alice@example.org namespaces=\"git\",valid-before=\"20200101\" {line}\n");
        let signers = AllowedSigners::parse(&file).unwrap();
        let refused = signers.principal(&signer.public(), NAMESPACE, now()).unwrap_err().to_string();
        assert!(refused.contains("alice@example.org may sign only for namespaces \"git\""), "{refused}");
    }

    #[test]
    fn a_malformed_line_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let (_, line) = key(dir.path(), "alice");
        let cases = [
            ("alice@example.org".to_string(), "expected principals"),
            ("\"alice@example.org ssh-ed25519 AAAA".to_string(), "not closed"),
            ("alice@example.org ssh-ed25519 AAAA".to_string(), "not a public key"),
            (format!("alice@example.org shoe-size=\"42\" {line}"), "unknown option \"shoe-size=\\\"42\\\"\""),
            (format!("alice@example.org namespaces=git {line}"), "not in double quotes"),
            (format!("alice@example.org valid-after=\"2026-01-01\" {line}"), "not a time"),
            (format!("alice@example.org valid-after=\"20261301\" {line}"), "not a time"),
            (format!("alice@example.org namespaces=\"git\",,cert-authority {line}"), "an empty option"),
        ];
        for (bad, reason) in cases {
            let err = AllowedSigners::parse(&format!("# ok\nbob@example.org {line}\n{bad}\n")).unwrap_err().to_string();
            assert!(err.starts_with("the allowed signers, line 3: "), "{err}");
            assert!(err.contains(reason), "{bad}: {err}");
        }
        let file = dir.path().join("signers");
        std::fs::write(&file, "x\n").unwrap();
        let err = AllowedSigners::read(&file).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}, line 1: ", file.display())), "{err}");
    }

    #[test]
    fn patterns_are_openssh_patterns() {
        for (value, pattern, matched) in [
            ("debate-record@v1", "debate-record@v1", true),
            ("debate-record@v1", "debate-*", true),
            ("debate-record@v1", "*@v?", true),
            ("debate-record@v1", "*@v", false),
            ("git", "*", true),
            ("", "*", true),
            ("git", "gi", false),
            ("a*b", "a[*]b", false),
        ] {
            assert_eq!(matches(value, pattern), matched, "{value} ~ {pattern}");
        }
        assert!(matches_list("debate-record@v1", "git, debate-*"));
        assert!(!matches_list("debate-record@v1", "*,!debate-*"));
        assert!(!matches_list("file", "git,!file"));
    }
}
