//! The seal as the record holds it, at its very end: a line a reader sees (who signed,
//! or why nobody did) and an HTML comment GitHub hides, one line of ASCII JSON with the
//! digest, each part's digest, the signature and the signatures of earlier versions.
//! Read, written and taken off here; what it means is `make`'s and `check`'s. Pure.

use serde::{Deserialize, Serialize};

use crate::record::read::carried::ascii;
use crate::record::seal::parts::Part;

const LINE: &str = "<!-- debate:seal ";
const END: &str = " -->";

/// A record's seal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seal {
    pub format: String,
    /// `sha256:…` of the parts, the note and the earlier signatures (`parts::digest`).
    pub digest: String,
    pub parts: Vec<Part>,
    /// What was done to the record that this version records: `recorded`, `revised`,
    /// `accepted`, `rejected`, `deprecated`, `scored`, `superseded`.
    pub act: String,
    /// The signature of the digest by whoever wrote this version, when they could sign.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<Signature>,
    /// Why this version is not signed, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsigned: Option<String>,
    /// The signatures of the versions before this one, oldest first, each with the
    /// digest it signed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<Earlier>,
}

/// A signature of a version of the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    /// When, as RFC 3339 in UTC.
    pub signed_at: String,
    /// The armored SSH signature (`ssh-keygen -Y sign -n debate-record@v1`) of the
    /// digest's text.
    pub sshsig: String,
}

/// The signature of an earlier version, with the digest it signed and what that
/// version recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Earlier {
    pub digest: String,
    pub act: String,
    pub signed_at: String,
    pub sshsig: String,
}

/// A record's text taken apart: what the seal covers, and the seal.
#[derive(Debug)]
pub struct Opened<'a> {
    /// The record without its seal.
    pub body: &'a str,
    /// The seal's note and the seal, or why they cannot be read; `None` when the
    /// record has no seal.
    pub seal: Option<Result<(String, Seal), String>>,
}

/// `text` (line endings as LF) taken apart.
pub fn open(text: &str) -> Opened<'_> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(last) = lines.last().map(|line| line.trim_end_matches('\n')) else {
        return Opened { body: text, seal: None };
    };
    let Some(json) = last.strip_prefix(LINE).and_then(|line| line.strip_suffix(END)) else {
        return Opened { body: text, seal: None };
    };
    let n = lines.len();
    let placed = n >= 4 && lines[n - 2] == "\n" && lines[n - 4] == "\n" && !lines[n - 3].trim().is_empty();
    let body_end: usize = lines[..n - if placed { 4 } else { 1 }].iter().map(|line| line.len()).sum();
    let body = &text[..body_end];
    if !placed {
        return Opened { body, seal: Some(Err("the line above its seal is not the seal's note".into())) };
    }
    let note = lines[n - 3].trim_end_matches('\n').to_string();
    let seal = serde_json::from_str::<Seal>(json).map(|seal| (note, seal)).map_err(|err| format!("its seal: {err}"));
    Opened { body, seal: Some(seal) }
}

/// `body` with its seal: a blank line, the note, a blank line, the seal's line.
pub fn close(body: &str, note: &str, seal: &Seal) -> String {
    let json = serde_json::to_string(seal).unwrap_or_default();
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("{body}{newline}\n{note}\n\n{LINE}{}{END}\n", ascii(&json))
}

/// The record's text without its seal (line endings as they are): what re-rendering
/// and every comparison of a record's content see.
pub fn body(text: &str) -> &str {
    open(text).body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal() -> Seal {
        Seal {
            format: "debate-record-seal/1".into(),
            digest: "sha256:00".into(),
            parts: vec![("Question".into(), "ab".into())],
            act: "recorded".into(),
            signature: Some(Signature {
                signed_at: "2026-05-20T14:05:30Z".into(),
                sshsig: "-----BEGIN SSH SIGNATURE-----\nAA==\n-----END SSH SIGNATURE-----\n".into(),
            }),
            unsigned: None,
            earlier: Vec::new(),
        }
    }

    #[test]
    fn a_sealed_record_opens_into_its_body_note_and_seal() {
        let body = "# Cache\n\n## Question\n\nWhich?\n";
        let sealed = close(body, "*Signed.* <b>", &seal());
        assert!(sealed.starts_with(body) && sealed.ends_with(" -->\n"), "{sealed}");
        let last = sealed.lines().last().unwrap();
        assert!(last.chars().all(|c| matches!(c, ' '..='~')) && !last[4..last.len() - 3].contains(['<', '>']));
        let opened = open(&sealed);
        assert_eq!(opened.body, body);
        assert_eq!(opened.seal.unwrap().unwrap(), ("*Signed.* <b>".to_string(), seal()));
        assert_eq!(super::body(body), body, "no seal: all of it is the body");
        assert_eq!(super::body(&close("no newline", "n", &seal())), "no newline\n");
    }

    #[test]
    fn a_seal_out_of_place_or_unreadable_is_said_so() {
        let sealed = close("# Cache\n", "*Note.*", &seal());
        let line = sealed.lines().last().unwrap();
        let moved = format!("# Cache\n{line}\n");
        let opened = open(&moved);
        assert_eq!(opened.body, "# Cache\n");
        assert!(opened.seal.unwrap().unwrap_err().contains("note"));
        let unknown = sealed.replace("\"format\"", "\"extra\":1,\"format\"");
        assert!(open(&unknown).seal.unwrap().unwrap_err().contains("unknown field"));
        assert!(open("").seal.is_none());
    }
}
