//! A record as `debate verify` found it (`--json`), and the line `show`, the dashboard
//! and `--json` summaries give of its signature: one verdict in one vocabulary.

use serde::Serialize;

/// What checking a record came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Unchanged since it was sealed, signed, and the signer named by an allowed-signers
    /// file.
    Verified,
    /// Unchanged and signed, but no allowed-signers file was there to name the signer.
    Signed,
    /// Unchanged, as far as anything can tell, but signed by nobody.
    Unsigned,
    /// Edited since it was sealed, a signature that does not match, an unknown signer.
    Failed,
    /// Not a record debate wrote: nothing to check.
    Skipped,
}

/// A signature of a record (this version's, or an earlier one's).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignatureView {
    /// What the version it signed recorded: `recorded`, `revised`, `accepted`, …
    pub act: String,
    pub signed_at: String,
    /// The key's fingerprint, `SHA256:…`.
    pub key: String,
    /// Who the key belongs to, as the allowed-signers file names them.
    pub signer: Option<String>,
    /// Whether it is that key's signature of the digest it names.
    pub valid: bool,
    /// The digest it signed.
    pub digest: String,
}

/// One record, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordCheck {
    /// Its path in the repository.
    pub path: String,
    /// The debate it records, when its front matter names one.
    pub id: Option<String>,
    pub verdict: Verdict,
    /// The digest its seal states (`sha256:…`); none without a seal.
    pub digest: Option<String>,
    /// This version's signature.
    pub signature: Option<SignatureView>,
    /// Why it is unsigned, when it is.
    pub unsigned: Option<String>,
    /// The signatures of its earlier versions, oldest first.
    pub earlier: Vec<SignatureView>,
    /// The sections (and parts) edited since it was sealed.
    pub edited: Vec<String>,
    /// The parts a change of its status touched since it was signed — another ADR tool
    /// (adr-tools' `adr new -s`, log4brains) or a person moved it: not an edit of the
    /// decision, so no failure.
    pub status_changed: Vec<String>,
    /// The status it states now, when a change of status touched it.
    pub status_now: Option<String>,
    /// What failed, a sentence each.
    pub failures: Vec<String>,
    /// What else to know: how a record written before records were sealed was checked,
    /// a change of status, an older seal format's rules.
    pub note: Option<String>,
}

impl RecordCheck {
    /// A record that is none of debate's, or cannot be read, with why.
    pub fn plain(path: &str, verdict: Verdict, why: String) -> RecordCheck {
        let (failures, note) = match verdict {
            Verdict::Failed => (vec![why], None),
            _ => (Vec::new(), Some(why)),
        };
        RecordCheck {
            path: path.to_string(),
            id: None,
            verdict,
            digest: None,
            signature: None,
            unsigned: None,
            earlier: Vec::new(),
            edited: Vec::new(),
            status_changed: Vec::new(),
            status_now: None,
            failures,
            note,
        }
    }

    /// Its signature in a few words: `signed by alice@example.org when it was accepted`,
    /// `unsigned: no ssh signing key is set up …`, `does not verify: …`.
    pub fn said(&self) -> String {
        let signature = self.signature.as_ref();
        let when = signature.map(|s| format!(" when it was {}", s.act)).unwrap_or_default();
        let noted = self.note.as_ref().map(|note| format!("; {note}")).unwrap_or_default();
        match self.verdict {
            Verdict::Verified => {
                format!("signed by {}{when}{noted}", signature.and_then(|s| s.signer.as_deref()).unwrap_or("?"))
            }
            Verdict::Signed => format!(
                "signed with the key {}{when} (no allowed-signers file names it){noted}",
                signature.map_or("?", |s| s.key.as_str())
            ),
            Verdict::Unsigned => match (&self.unsigned, &self.note) {
                (Some(why), Some(note)) => format!("unsigned: {why}; {note}"),
                (Some(why), None) | (None, Some(why)) => format!("unsigned: {why}"),
                (None, None) => "unsigned".into(),
            },
            Verdict::Failed => format!("does not verify: {}", self.failures.join("; ")),
            Verdict::Skipped => self.note.clone().unwrap_or_else(|| "not a record debate wrote".into()),
        }
    }
}

/// A record's signature as a debate's summary gives it (`show`, the dashboard, `--json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordSignature {
    pub verdict: Verdict,
    /// Who signed this version, as the allowed-signers file names them.
    pub signer: Option<String>,
    /// The key that signed it, `SHA256:…`.
    pub key: Option<String>,
    /// In a few words, as `show` prints it.
    pub said: String,
}

impl From<&RecordCheck> for RecordSignature {
    fn from(check: &RecordCheck) -> RecordSignature {
        RecordSignature {
            verdict: check.verdict,
            signer: check.signature.as_ref().and_then(|s| s.signer.clone()),
            key: check.signature.as_ref().map(|s| s.key.clone()),
            said: check.said(),
        }
    }
}

/// `debate verify --json`: every record checked, and the counts the exit code comes from.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    pub records: Vec<RecordCheck>,
    /// The allowed-signers file that named the signers, and where it was named
    /// (`--allowed-signers`, git's `gpg.ssh.allowedSignersFile`); none: nobody is named.
    pub allowed_signers: Option<String>,
    pub verified: usize,
    pub signed: usize,
    pub unsigned: usize,
    pub failed: usize,
    pub skipped: usize,
    /// 0 all verified; 1 a record failed; 3 a record unsigned (or its signer not named)
    /// with `--require-signature`.
    pub exit_code: u8,
}

impl Verification {
    pub fn of(records: Vec<RecordCheck>, require_signature: bool) -> Verification {
        let count = |verdict: Verdict| records.iter().filter(|r| r.verdict == verdict).count();
        let (verified, signed, unsigned, failed, skipped) = (
            count(Verdict::Verified),
            count(Verdict::Signed),
            count(Verdict::Unsigned),
            count(Verdict::Failed),
            count(Verdict::Skipped),
        );
        let exit_code = match (failed, require_signature && signed + unsigned > 0) {
            (1.., _) => 1,
            (0, true) => 3,
            (0, false) => 0,
        };
        Verification { records, allowed_signers: None, verified, signed, unsigned, failed, skipped, exit_code }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(verdict: Verdict) -> RecordCheck {
        RecordCheck::plain("docs/decisions/a.md", verdict, "why".into())
    }

    #[test]
    fn the_exit_code_is_aragora_verifys() {
        let of = |verdicts: &[Verdict], require| {
            Verification::of(verdicts.iter().map(|v| record(*v)).collect(), require).exit_code
        };
        assert_eq!(of(&[Verdict::Verified, Verdict::Skipped], true), 0);
        assert_eq!(of(&[Verdict::Unsigned, Verdict::Signed], false), 0);
        assert_eq!(of(&[Verdict::Unsigned], true), 3);
        assert_eq!(of(&[Verdict::Signed], true), 3, "a signer nobody names is no signature to require");
        assert_eq!(of(&[Verdict::Unsigned, Verdict::Failed], true), 1);
        assert_eq!(of(&[], true), 0);
    }

    #[test]
    fn each_verdict_is_said_in_a_few_words() {
        assert_eq!(record(Verdict::Failed).said(), "does not verify: why");
        assert_eq!(record(Verdict::Unsigned).said(), "unsigned: why");
        let mut signed = record(Verdict::Verified);
        signed.note = None;
        signed.signature = Some(SignatureView {
            act: "accepted".into(),
            signed_at: "2026-05-20T14:05:30Z".into(),
            key: "SHA256:abc".into(),
            signer: Some("alice@example.org".into()),
            valid: true,
            digest: "sha256:00".into(),
        });
        assert_eq!(signed.said(), "signed by alice@example.org when it was accepted");
        signed.verdict = Verdict::Signed;
        assert_eq!(
            signed.said(),
            "signed with the key SHA256:abc when it was accepted (no allowed-signers file names it)"
        );
        signed.note = Some("its status was changed since it was signed".into());
        assert!(signed.said().ends_with("names it); its status was changed since it was signed"), "a note is said");
    }
}
