//! A record sealed as it is written: its parts' digests, the digest of them all, and
//! the signature of that digest by the writer's key — or, without a key that can sign,
//! the reason, in the record for all to read. The signatures of the version it
//! replaces are kept as its earlier signatures, so a review or a change of status adds
//! a signer and loses none. Sealing the same text again with the same key changes
//! nothing, so a command repeated after a crash writes the bytes it wrote before.

use chrono::Utc;
use serde_json::Value;

use crate::attest::{PublicKey, SshSignature, sshsig};
use crate::record::seal::block::{self, Earlier, Seal, Signature};
use crate::record::seal::parts::{self, Covered, FORMAT};
use crate::record::seal::signer::{KEY_UNUSABLE, Sealer};

/// What was done to the record that a version records: its signature says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Recorded,
    Revised,
    Accepted,
    Rejected,
    Deprecated,
    Scored,
    Superseded,
    Guarded,
}

impl Act {
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Recorded => "recorded",
            Act::Revised => "revised",
            Act::Accepted => "accepted",
            Act::Rejected => "rejected",
            Act::Deprecated => "deprecated",
            Act::Scored => "scored",
            Act::Superseded => "superseded",
            Act::Guarded => "guarded",
        }
    }
}

/// The line a reader of the record sees above the seal.
pub fn note(signed_by: Result<&PublicKey, &str>, act: &str) -> String {
    match signed_by {
        Ok(key) => format!(
            "*Signed with the SSH key `{}` when it was {act}: `debate verify` checks the signature and names the signer.*",
            key.fingerprint()
        ),
        Err(reason) => format!("*Not signed when it was {act}: {reason}.*"),
    }
}

/// `record` (a seal it has is taken off) sealed for `act` by `sealer`'s key, keeping
/// the signatures of `before` (the file it replaces, if any); the transcript file beside
/// it, if any, is covered too. With it, what the user should hear: the key could not
/// sign.
pub fn seal(
    record: &str,
    sidecar: Option<&str>,
    before: Option<&str>,
    act: Act,
    sealer: &Sealer,
) -> (String, Option<String>) {
    let body = block::body(record);
    let parts = parts::parts(body, sidecar);
    let before = before.map(|text| parts::lf(text).into_owned());
    let prior = before.as_deref().and_then(|text| block::open(text).seal?.ok());
    let mut warning = sealer.warning();
    let signer = sealer.signer();
    if let Some((note, seal)) = &prior
        && seal.format == FORMAT
        && seal.parts == parts
        && intact(seal, note)
        && same_signer(seal, signer.map(|s| s.public()))
    {
        return (block::close(body, note, seal), warning);
    }
    let earlier = prior.map(|(note, seal)| kept(&note, seal)).unwrap_or_default();
    let earlier_json = serde_json::to_value(&earlier).unwrap_or(Value::Null);
    let act_name = act.as_str();
    let unsigned_covers =
        Covered { format: FORMAT, note: "", earlier: &earlier_json, act: act_name, signer: None, signed_at: None };
    let unsigned = |reason: &'static str| {
        let note = note(Err(reason), act_name);
        let digest = parts::digest(&parts, &Covered { note: &note, ..unsigned_covers });
        let seal = Seal {
            format: FORMAT.into(),
            digest,
            parts: parts.clone(),
            act: act_name.into(),
            signature: None,
            unsigned: Some(reason.into()),
            earlier: earlier.clone(),
        };
        block::close(body, &note, &seal)
    };
    let signer = match signer {
        Ok(signer) => signer,
        Err(reason) => return (unsigned(reason), warning),
    };
    let note = note(Ok(&signer.public()), act_name);
    // The time is chosen before the digest is taken: the signature covers it.
    let signed_at = Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    let fingerprint = signer.public().fingerprint();
    let covered = Covered { note: &note, signer: Some(&fingerprint), signed_at: Some(&signed_at), ..unsigned_covers };
    let digest = parts::digest(&parts, &covered);
    match sshsig::sign(signer, digest.as_bytes()) {
        Ok(sshsig) => {
            let signature = Signature { signed_at, sshsig };
            let seal = Seal {
                format: FORMAT.into(),
                digest,
                parts,
                act: act_name.into(),
                signature: Some(signature),
                unsigned: None,
                earlier,
            };
            (block::close(body, &note, &seal), warning)
        }
        Err(err) => {
            warning.get_or_insert(format!(
                "the record was written unsigned: the signing key {} could not sign ({err})",
                signer.public().fingerprint()
            ));
            (unsigned(KEY_UNUSABLE), warning)
        }
    }
}

/// Whether the seal's digest is the digest of what it covers, by its format's rules:
/// the parts it lists, the note, the earlier signatures, and (format 2) its act, the
/// key its signature names and when it was signed.
pub(super) fn intact(seal: &Seal, note: &str) -> bool {
    digest_of(seal, note) == seal.digest
}

/// The digest of what `seal` (with `note` above it) covers, by its format's rules.
pub fn digest_of(seal: &Seal, note: &str) -> String {
    let earlier = serde_json::to_value(&seal.earlier).unwrap_or(Value::Null);
    let signer = seal
        .signature
        .as_ref()
        .and_then(|s| SshSignature::from_armored(&s.sshsig).and_then(|s| s.signer()).ok())
        .map(|key| key.fingerprint());
    let covered = Covered {
        format: &seal.format,
        note,
        earlier: &earlier,
        act: &seal.act,
        signer: signer.as_deref(),
        signed_at: seal.signature.as_ref().map(|s| s.signed_at.as_str()),
    };
    parts::digest(&seal.parts, &covered)
}

/// The key an armored SSH signature of `digest` in debate's namespace is by, when it is
/// one: `None` for one that does not verify or cannot be read.
pub fn signed_by(sshsig: &str, digest: &str) -> Option<PublicKey> {
    let signature = SshSignature::from_armored(sshsig).ok()?;
    let key = signature.signer().ok()?;
    signature.verify(&key, digest.as_bytes()).ok().map(|()| key)
}

/// Whether `seal` was made by `signer` (or, both unsigned, for the same reason).
fn same_signer(seal: &Seal, signer: Result<PublicKey, &str>) -> bool {
    match (&seal.signature, signer) {
        (Some(signature), Ok(key)) => signed_by(&signature.sshsig, &seal.digest) == Some(key),
        (None, Err(reason)) => seal.unsigned.as_deref() == Some(reason),
        _ => false,
    }
}

/// The signatures an earlier version's seal hands on: its earlier ones and its own,
/// each only if it is a signature of the digest it names (a forged one is dropped
/// rather than vouched for by the next signer).
fn kept(note: &str, seal: Seal) -> Vec<Earlier> {
    let whole = intact(&seal, note);
    let own = seal.signature.filter(|_| whole).map(|signature| Earlier {
        digest: seal.digest.clone(),
        act: seal.act.clone(),
        signed_at: signature.signed_at,
        sshsig: signature.sshsig,
    });
    seal.earlier
        .into_iter()
        .chain(own)
        .filter(|earlier| signed_by(&earlier.sshsig, &earlier.digest).is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::testing::{RFC8032_SEED, seed_signer};

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Cache\n\n## Question\n\nWhich?\n";

    #[test]
    fn sealing_again_with_the_same_key_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let (sealed, warning) = seal(RECORD, None, None, Act::Recorded, &sealer);
        assert!(warning.is_none());
        assert!(sealed.starts_with(RECORD) && sealed.contains("*Signed with the SSH key `SHA256:"), "{sealed}");
        let (again, _) = seal(&sealed, None, Some(&sealed), Act::Recorded, &sealer);
        assert_eq!(again, sealed);
        let (crlf, _) = seal(RECORD, None, Some(&sealed.replace('\n', "\r\n")), Act::Recorded, &sealer);
        assert_eq!(crlf, sealed, "a checkout with CRLF is the same record");
    }

    #[test]
    fn a_new_version_keeps_the_earlier_signature_and_an_unsigned_one_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let author = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let (first, _) = seal(RECORD, None, None, Act::Recorded, &author);
        let accepted = RECORD.replace("status: proposed", "status: accepted");
        let (second, _) = seal(&accepted, None, Some(&first), Act::Accepted, &Sealer::unsigned());
        let (note, seal) = block::open(&second).seal.unwrap().unwrap();
        assert_eq!(note, format!("*Not signed when it was accepted: {}.*", super::super::signer::NO_KEY));
        assert_eq!(seal.earlier.len(), 1);
        assert_eq!(seal.earlier[0].act, "recorded");
        assert!(seal.signature.is_none() && intact(&seal, &note));

        // A forged earlier signature is not handed on.
        let forged = first.replace(&block::open(&first).seal.unwrap().unwrap().1.digest, "sha256:00");
        let (third, _) = super::seal(&accepted, None, Some(&forged), Act::Accepted, &Sealer::unsigned());
        assert!(block::open(&third).seal.unwrap().unwrap().1.earlier.is_empty());
    }
}
