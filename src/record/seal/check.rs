//! A sealed record checked from its text alone, offline: its parts against the digests
//! its seal lists (an edit is named by the part it is in), the digest against what it
//! covers, the signature against the digest, and the signer against an allowed-signers
//! file; the earlier signatures each against the digest it names. What the checks
//! found, not a verdict: the command decides what fails. Pure.

use chrono::{DateTime, Utc};

use crate::attest::{AllowedSigners, NAMESPACE, SshSignature};
use crate::record::seal::block::{self, Seal};
use crate::record::seal::make::{intact, note, signed_by};
use crate::record::seal::parts;

/// A signature as checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Signed {
    /// What the version it signed recorded (`recorded`, `accepted`, …).
    pub act: String,
    pub signed_at: String,
    /// The digest it signed.
    pub digest: String,
    /// The key's fingerprint, `SHA256:…`; empty when the signature cannot be read.
    pub key: String,
    /// Whether it is a signature of the digest by that key.
    pub valid: bool,
    /// Who the key belongs to, as the allowed-signers file names them.
    pub principal: Option<String>,
    /// Why the allowed-signers file names nobody for it, when it does not.
    pub unknown: Option<String>,
    /// The armored signature, for `ssh-keygen -Y verify`.
    pub sshsig: String,
}

/// What checking a sealed record found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checked {
    /// The digest the seal states.
    pub digest: String,
    /// The signature of this version, when it is signed.
    pub signature: Option<Signed>,
    /// Why this version is not signed, when it is not.
    pub unsigned: Option<String>,
    /// The signatures of earlier versions, oldest first.
    pub earlier: Vec<Signed>,
    /// The parts edited since the record was sealed.
    pub edited: Vec<String>,
    /// Everything that failed, one sentence each.
    pub failures: Vec<String>,
}

/// The sealed record `text` (with the transcript file beside it, if it has one)
/// checked; `None` when it has no seal. `signers` names the keys' owners; without it
/// no signer is known or unknown. `now` is the time the signers' validity is checked at.
pub fn check(
    text: &str,
    sidecar: Option<&str>,
    signers: Option<&AllowedSigners>,
    now: DateTime<Utc>,
) -> Option<Checked> {
    let text = text.replace("\r\n", "\n");
    let opened = block::open(&text);
    let (note, seal) = match opened.seal? {
        Ok(found) => found,
        Err(why) => {
            return Some(Checked { failures: vec![format!("its seal is damaged: {why}")], ..Checked::default() });
        }
    };
    let mut checked = Checked { digest: seal.digest.clone(), unsigned: seal.unsigned.clone(), ..Checked::default() };
    let now_parts = parts::parts(opened.body, sidecar);
    checked.edited = parts::differing(&seal.parts, &now_parts);
    if !checked.edited.is_empty() {
        checked.failures.push(format!("edited since it was sealed, in: {}", checked.edited.join(", ")));
    } else if !intact(&seal, &note) {
        checked.failures.push(match note == expected_note(&seal) {
            true => "its seal's digest is not the digest of what the seal lists: the seal was edited".into(),
            false => "the note above its seal was edited".into(),
        });
    }
    if seal.format != parts::FORMAT {
        checked.failures.push(format!("its seal is {:?}, a format this debate does not know", seal.format));
    }
    match (&seal.signature, &seal.unsigned) {
        (Some(signature), None) => {
            let signed = signed(&signature.sshsig, &seal.digest, &seal.act, &signature.signed_at, signers, now);
            if !signed.valid {
                checked.failures.push(format!(
                    "its signature{} does not match its digest: the record or its seal changed after it was signed",
                    by_key(&signed)
                ));
            } else if let Some(unknown) = &signed.unknown {
                checked.failures.push(format!("its signer is unknown: {unknown}"));
            }
            checked.signature = Some(signed);
        }
        (None, Some(_)) => {}
        _ => checked.failures.push("its seal is damaged: it must be signed or say why not, not both".into()),
    }
    for (at, earlier) in seal.earlier.iter().enumerate() {
        let signed = signed(&earlier.sshsig, &earlier.digest, &earlier.act, &earlier.signed_at, signers, now);
        if !signed.valid {
            checked.failures.push(format!(
                "earlier signature {} (when it was {}){} does not match the digest it names",
                at + 1,
                earlier.act,
                by_key(&signed)
            ));
        }
        checked.earlier.push(signed);
    }
    Some(checked)
}

/// The note the seal's own contents call for.
fn expected_note(seal: &Seal) -> String {
    match (&seal.signature, &seal.unsigned) {
        (Some(signature), _) => match SshSignature::from_armored(&signature.sshsig).and_then(|s| s.signer()) {
            Ok(key) => note(Ok(&key), &seal.act),
            Err(_) => String::new(),
        },
        (None, Some(reason)) => note(Err(reason), &seal.act),
        (None, None) => String::new(),
    }
}

fn signed(
    sshsig: &str,
    digest: &str,
    act: &str,
    signed_at: &str,
    signers: Option<&AllowedSigners>,
    now: DateTime<Utc>,
) -> Signed {
    let key = SshSignature::from_armored(sshsig).and_then(|s| s.signer()).ok();
    let valid = key.is_some() && signed_by(sshsig, digest) == key;
    let found = match (key, signers) {
        (Some(key), Some(signers)) if valid => Some(signers.principal(&key, NAMESPACE, now).map(str::to_string)),
        _ => None,
    };
    Signed {
        act: act.to_string(),
        signed_at: signed_at.to_string(),
        digest: digest.to_string(),
        key: key.map(|k| k.fingerprint()).unwrap_or_default(),
        valid,
        principal: found.as_ref().and_then(|f| f.as_ref().ok().cloned()),
        unknown: found.and_then(|f| f.err().map(|err| err.to_string())),
        sshsig: sshsig.to_string(),
    }
}

fn by_key(signed: &Signed) -> String {
    match signed.key.is_empty() {
        true => String::new(),
        false => format!(" by {}", signed.key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::testing::{RFC8032_SEED, seed_signer};
    use crate::record::seal::make::{Act, seal};
    use crate::record::seal::signer::Sealer;

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Cache\n\n## Question\n\nWhich cache?\n\n## Recommendation\n\nUse Postgres.\n";

    fn now() -> DateTime<Utc> {
        Utc::now()
    }

    /// An allowed-signers file naming `principal` for the RFC 8032 key.
    fn signers(dir: &std::path::Path, principal: &str) -> AllowedSigners {
        let public = ssh_key::PublicKey::new(seed_signer(dir, &RFC8032_SEED).public().key_data(), "");
        AllowedSigners::parse(&format!("{principal} {}\n", public.to_openssh().unwrap())).unwrap()
    }

    #[test]
    fn a_signed_record_checks_and_names_its_signer() {
        let dir = tempfile::tempdir().unwrap();
        let (sealed, _) =
            seal(RECORD, None, None, Act::Recorded, &Sealer::with(seed_signer(dir.path(), &RFC8032_SEED)));
        let checked = check(&sealed, None, Some(&signers(dir.path(), "alice@example.org")), now()).unwrap();
        assert_eq!(checked.failures, Vec::<String>::new());
        let signature = checked.signature.unwrap();
        assert_eq!((signature.principal.as_deref(), signature.act.as_str()), (Some("alice@example.org"), "recorded"));
        assert!(signature.valid && signature.key.starts_with("SHA256:"));
        // Without an allowed-signers file, the key but no name.
        let anonymous = check(&sealed, None, None, now()).unwrap();
        assert!(anonymous.failures.is_empty() && anonymous.signature.unwrap().principal.is_none());
        assert!(check(RECORD, None, None, now()).is_none(), "no seal, nothing to check here");
    }

    #[test]
    fn an_edit_is_named_and_a_digest_made_again_fails_on_the_signature() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let (sealed, _) = seal(RECORD, None, None, Act::Recorded, &sealer);
        let edited = sealed.replacen("Use Postgres.", "Use Redis.", 1);
        let checked = check(&edited, None, None, now()).unwrap();
        assert_eq!(checked.edited, ["Recommendation"]);
        assert_eq!(checked.failures, ["edited since it was sealed, in: Recommendation"]);

        // The digest made again over the edit, the old signature kept: it does not match.
        let (resealed, _) = seal(&edited, None, None, Act::Recorded, &Sealer::unsigned());
        let (_, mut forged) = block::open(&resealed).seal.unwrap().unwrap();
        let (note, original) = block::open(&sealed).seal.unwrap().unwrap();
        forged.signature = original.signature.clone();
        forged.unsigned = None;
        let earlier = serde_json::to_value(&forged.earlier).unwrap();
        forged.digest = parts::digest(&forged.parts, &note, &earlier);
        let forgery = block::close(block::body(&edited), &note, &forged);
        let checked = check(&forgery, None, None, now()).unwrap();
        assert!(checked.edited.is_empty());
        assert_eq!(checked.failures.len(), 1, "{:?}", checked.failures);
        assert!(
            checked.failures[0].starts_with("its signature by SHA256:")
                && checked.failures[0].contains("does not match its digest")
        );

        let note_edited = sealed.replace("when it was recorded", "when it was accepted");
        assert_eq!(check(&note_edited, None, None, now()).unwrap().failures, ["the note above its seal was edited"]);
    }

    #[test]
    fn an_unknown_signer_fails_and_an_unsigned_record_only_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let (sealed, _) = seal(RECORD, None, None, Act::Recorded, &Sealer::with(seed_signer(dir.path(), &[9; 32])));
        let checked = check(&sealed, None, Some(&signers(other.path(), "alice@example.org")), now()).unwrap();
        assert_eq!(checked.failures.len(), 1);
        assert!(checked.failures[0].starts_with("its signer is unknown: no allowed signer has the key SHA256:"));

        let (unsigned, _) = seal(RECORD, None, None, Act::Recorded, &Sealer::unsigned());
        let checked = check(&unsigned, None, None, now()).unwrap();
        assert!(checked.failures.is_empty() && checked.signature.is_none());
        assert_eq!(checked.unsigned.as_deref(), Some(super::super::signer::NO_KEY));
        let checked = check(&unsigned.replacen("Which cache?", "Which?", 1), None, None, now()).unwrap();
        assert_eq!(checked.edited, ["Question"]);
    }

    #[test]
    fn earlier_signatures_are_checked_against_the_digests_they_name() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let (first, _) = seal(RECORD, None, None, Act::Recorded, &sealer);
        let accepted = first.replace("status: proposed", "status: accepted");
        let (second, _) = seal(&accepted, None, Some(&first), Act::Accepted, &sealer);
        let checked = check(&second, None, Some(&signers(dir.path(), "alice@example.org")), now()).unwrap();
        assert!(checked.failures.is_empty(), "{:?}", checked.failures);
        assert_eq!(checked.earlier.len(), 1);
        assert_eq!((checked.earlier[0].act.as_str(), checked.earlier[0].valid), ("recorded", true));
        assert_eq!(checked.signature.unwrap().act, "accepted");
    }
}
