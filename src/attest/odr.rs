//! Signing and verifying an Open Decision Receipt v0.2 exactly as `aragora-verify`
//! 0.2.0 does, so a receipt debate signs is accepted there and one edited anywhere is
//! refused here as there:
//!
//! - the digest is SHA-256 over the RFC 8785 form of the receipt without its
//!   `signatures` member; it is not stored, every verifier computes it again;
//! - a key's id is `ed25519-` and the first 16 hex digits of SHA-256 of its 32 bytes;
//! - a signature is plain Ed25519 over the RFC 8785 form of
//!   `{"odr_digest": …, "odr_signature_input": "0.2", "protected": <its entry but the
//!   signature>}`, so the entry's issuer, role and times are signed too; it is written
//!   in padded standard base64.
//!
//! The key is the one git signs with (see `key`), its seed or its agent signing the
//! bytes directly.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::canonical::{canonical, hex, sha256_hex};
use super::error::{AttestError, Result};
use super::key::{PublicKey, Signer};
use super::receipt::{ODR_VERSION, Receipt, Role, SignatureEntry, timestamp};

/// The receipt's digest: lowercase hex SHA-256 of its canonical form without
/// `signatures`, as the verifier prints it (`odr_digest`).
pub fn digest(receipt: &Value) -> Result<String> {
    let mut payload = receipt.clone();
    if let Some(object) = payload.as_object_mut() {
        object.remove("signatures");
    }
    Ok(sha256_hex(&canonical(&payload)?))
}

/// The id a receipt names a key by.
pub fn key_id(public: &PublicKey) -> String {
    format!("ed25519-{}", &sha256_hex(public.as_bytes())[..16])
}

/// The public key as a file `aragora-verify --pubkey` reads: its 32 bytes in lowercase
/// hex and a newline (it does not read OpenSSH's `ssh-ed25519 …` form).
pub fn pubkey_file(public: &PublicKey) -> String {
    format!("{}\n", hex(public.as_bytes()))
}

/// Who signs a receipt, as what, and for how long.
#[derive(Debug, Clone)]
pub struct Signing {
    /// The signer's name, e.g. the principal of the key (`alice@example.org`).
    pub issuer: String,
    pub role: Role,
    pub signed_at: DateTime<Utc>,
    /// When the signature stops vouching for the receipt, if ever.
    pub expires_at: Option<DateTime<Utc>>,
}

/// Adds `signer`'s signature to `receipt`. Signatures already there stay valid: none
/// covers another.
pub fn sign(receipt: &mut Receipt, signer: &Signer, signing: &Signing) -> Result<()> {
    let document = serde_json::to_value(&*receipt).map_err(|err| AttestError::Receipt(err.to_string()))?;
    let digest = digest(&document)?;
    let mut entry = SignatureEntry {
        alg: "Ed25519".into(),
        key_id: key_id(&signer.public()),
        issuer: Some(signing.issuer.clone()),
        role: Some(signing.role),
        signed_at: Some(timestamp(signing.signed_at)),
        expires_at: signing.expires_at.map(timestamp),
        signature: String::new(),
    };
    let protected = serde_json::to_value(&entry).map_err(|err| AttestError::Receipt(err.to_string()))?;
    entry.signature = STANDARD.encode(signer.sign(&signed_message(&digest, protected)?)?);
    receipt.signatures.push(entry);
    Ok(())
}

/// The bytes a v0.2 signature signs: the digest and the signature's entry without
/// its `signature` member, canonical.
fn signed_message(digest: &str, mut entry: Value) -> Result<Vec<u8>> {
    if let Some(object) = entry.as_object_mut() {
        object.remove("signature");
    }
    canonical(&json!({"odr_digest": digest, "odr_signature_input": ODR_VERSION, "protected": entry}))
}

/// A receipt that verified: its digest and the signature by the key asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    pub digest: String,
    pub signature: SignatureEntry,
}

/// Why a receipt did not verify.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Failure {
    #[error("not a receipt debate can check: {0}")]
    Malformed(String),
    #[error("the key cannot verify: {0}")]
    Key(String),
    #[error("the receipt carries no signature")]
    Unsigned,
    #[error("no signature is by the key {key_id} (the receipt's are by {})", found.join(", "))]
    NotSignedBy { key_id: String, found: Vec<String> },
    #[error("signature {index} is not 64 bytes in base64 or hex")]
    Undecodable { index: usize },
    #[error(
        "signature {index} by {key_id} does not match the receipt (digest {digest}): the receipt or the signature's entry was changed after it was signed"
    )]
    Invalid { index: usize, key_id: String, digest: String },
    #[error("signature {index} is by the key {key_id} but names the key {named}")]
    Relabelled { index: usize, key_id: String, named: String },
    #[error("signature {index} expired at {at}")]
    Expired { index: usize, at: String },
    #[error("signature {index}'s expiry {at:?} is not an RFC 3339 time")]
    BadExpiry { index: usize, at: String },
}

impl Failure {
    /// The exit code aragora-verify gives for it: 3 when the receipt is unsigned (it
    /// says nothing wrong, only nothing), 2 when the key is not one, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Unsigned => 3,
            Failure::Key(_) => 2,
            _ => 1,
        }
    }
}

/// Whether the receipt `text` is signed by `public`, unchanged since, and its signature
/// not expired at `now`. Every signature labelled with the key's id must verify; where
/// none does, one labelled with another id that verifies with this key is a
/// relabelling. Unlike
/// aragora-verify without `--strict-expiry`, an expired signature fails. The digest is
/// computed from the document as written, members debate does not know included; the
/// receipt's schema and quorum are aragora-verify's to check, not this function's.
pub fn verify(text: &str, public: &PublicKey, now: DateTime<Utc>) -> std::result::Result<Verified, Failure> {
    let document: Value = serde_json::from_str(text).map_err(|err| Failure::Malformed(format!("not JSON: {err}")))?;
    let version = document.get("odr_version").and_then(Value::as_str);
    if version != Some(ODR_VERSION) {
        return Err(Failure::Malformed(format!("odr_version is {version:?}, not \"{ODR_VERSION}\"")));
    }
    let digest = digest(&document).map_err(|err| Failure::Malformed(err.to_string()))?;
    let entries = document
        .get("signatures")
        .and_then(Value::as_array)
        .ok_or_else(|| Failure::Malformed("no signatures list".into()))?;
    if entries.is_empty() {
        return Err(Failure::Unsigned);
    }
    let key = ed25519_dalek::VerifyingKey::from_bytes(public.as_bytes())
        .map_err(|err| Failure::Key(format!("{}: {err}", public.fingerprint())))?;
    let wanted = key_id(public);
    let (mut verified, mut relabelled) = (None, None);
    for (index, raw) in entries.iter().enumerate() {
        let entry: SignatureEntry = serde_json::from_value(raw.clone())
            .map_err(|err| Failure::Malformed(format!("signature {index}: {err}")))?;
        if entry.alg != "Ed25519" {
            return Err(Failure::Malformed(format!("signature {index} is {:?}, not Ed25519", entry.alg)));
        }
        let message = signed_message(&digest, raw.clone()).map_err(|err| Failure::Malformed(err.to_string()))?;
        let signature = decode(&entry.signature).map(|bytes| ed25519_dalek::Signature::from_bytes(&bytes));
        let good = signature.is_some_and(|s| key.verify_strict(&message, &s).is_ok());
        match (entry.key_id == wanted, signature, good) {
            (true, None, _) => return Err(Failure::Undecodable { index }),
            (true, Some(_), false) => {
                return Err(Failure::Invalid { index, key_id: wanted, digest: digest.clone() });
            }
            (true, Some(_), true) => {
                expiry(index, &entry, now)?;
                verified.get_or_insert(entry);
            }
            (false, _, true) => {
                relabelled.get_or_insert(Failure::Relabelled { index, key_id: wanted.clone(), named: entry.key_id });
            }
            (false, _, false) => {}
        }
    }
    match (verified, relabelled) {
        (Some(signature), _) => Ok(Verified { digest, signature }),
        (None, Some(relabelled)) => Err(relabelled),
        (None, None) => Err(Failure::NotSignedBy {
            key_id: wanted,
            found: entries.iter().map(|e| e.get("key_id").and_then(Value::as_str).unwrap_or("?").into()).collect(),
        }),
    }
}

fn expiry(index: usize, entry: &SignatureEntry, now: DateTime<Utc>) -> std::result::Result<(), Failure> {
    let Some(at) = &entry.expires_at else { return Ok(()) };
    let expires =
        DateTime::parse_from_rfc3339(at).map_err(|_| Failure::BadExpiry { index, at: at.clone() })?.with_timezone(&Utc);
    match now >= expires {
        true => Err(Failure::Expired { index, at: at.clone() }),
        false => Ok(()),
    }
}

/// A signature's 64 bytes from padded standard base64 or hex, the two forms the
/// verifier reads.
fn decode(text: &str) -> Option<[u8; 64]> {
    let bytes = match text.len() {
        128 if text.bytes().all(|b| b.is_ascii_hexdigit()) => (0..128)
            .step_by(2)
            .map(|at| text.get(at..at + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
            .collect::<Option<Vec<u8>>>()?,
        _ => STANDARD.decode(text).ok()?,
    };
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::testing::{RFC8032_SEED, decision, seed_signer};

    /// The receipt of the notes on ODR (`/work/notes/odr.md`, section 7.1), signed by
    /// aragora's reference emitter in Python with the RFC 8032 key.
    const SIGNED_ELSEWHERE: &str = include_str!("../../tests/data/odr-v0.2-signed.json");

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn now() -> DateTime<Utc> {
        at("2026-06-01T00:00:00Z")
    }

    fn signing(role: Role, expires_at: Option<&str>) -> Signing {
        Signing {
            issuer: "alice@example.org".into(),
            role,
            signed_at: at("2026-05-20T14:05:30Z"),
            expires_at: expires_at.map(at),
        }
    }

    /// A receipt's JSON with `change` made to it.
    fn edited(text: &str, change: impl FnOnce(&mut Value)) -> String {
        let mut document: Value = serde_json::from_str(text).unwrap();
        change(&mut document);
        serde_json::to_string_pretty(&document).unwrap()
    }

    #[test]
    fn the_rfc_8032_key_has_the_id_and_file_the_verifier_expects() {
        let dir = tempfile::tempdir().unwrap();
        let public = seed_signer(dir.path(), &RFC8032_SEED).public();
        assert_eq!(key_id(&public), "ed25519-21fe31dfa154a261");
        assert_eq!(pubkey_file(&public), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a\n");
    }

    /// The reference emitter's receipt: the same digest, its signature verifies here,
    /// and an edit anywhere fails as it fails there.
    #[test]
    fn a_receipt_signed_by_the_reference_emitter_verifies_here() {
        let dir = tempfile::tempdir().unwrap();
        let public = seed_signer(dir.path(), &RFC8032_SEED).public();
        let verified = verify(SIGNED_ELSEWHERE, &public, now()).unwrap();
        assert_eq!(verified.digest, "36fb6d04df98c3be5c7a4abd77eb78894e768c7f96e7f0f1787261cf80c805f6");
        assert_eq!(verified.signature.key_id, "ed25519-21fe31dfa154a261");

        // Spelling does not matter: minified, and 0.6 written 6e-1.
        let minified = serde_json::to_string(&serde_json::from_str::<Value>(SIGNED_ELSEWHERE).unwrap()).unwrap();
        verify(&minified.replace("\"value\":0.6", "\"value\":6e-1"), &public, now()).unwrap();

        let claim = edited(SIGNED_ELSEWHERE, |r| r["claim"]["statement"] = "Use Postgres.".into());
        match verify(&claim, &public, now()) {
            Err(Failure::Invalid { index: 0, digest, .. }) => assert_ne!(digest, verified.digest),
            other => panic!("{other:?}"),
        }
        let expiry = edited(SIGNED_ELSEWHERE, |r| r["signatures"][0]["expires_at"] = "2099-01-01T00:00:00Z".into());
        assert!(matches!(verify(&expiry, &public, now()), Err(Failure::Invalid { index: 0, .. })));
        // A relabelled key id signs nothing: it is covered by the signature.
        let relabelled = edited(SIGNED_ELSEWHERE, |r| r["signatures"][0]["key_id"] = "ed25519-0000000000000000".into());
        let failure = verify(&relabelled, &public, now()).unwrap_err();
        assert_eq!(
            failure.to_string(),
            "no signature is by the key ed25519-21fe31dfa154a261 (the receipt's are by ed25519-0000000000000000)"
        );
        // After its expiry, it is expired.
        let late = verify(SIGNED_ELSEWHERE, &public, at("2031-05-20T14:05:30Z")).unwrap_err();
        assert_eq!(late, Failure::Expired { index: 0, at: "2031-05-20T14:05:30Z".into() });
    }

    /// The receipt debate makes of a fixed decision, signed with the RFC 8032 key:
    /// its canonical bytes and signature pinned, so any change to either is seen. The
    /// digest and signature are the ones aragora-verify's own `jcs_canonicalize` and
    /// Python's `cryptography` give for the snapshot's bytes.
    #[test]
    fn a_receipt_made_here_has_pinned_bytes_and_signature() {
        let dir = tempfile::tempdir().unwrap();
        let signer = seed_signer(dir.path(), &RFC8032_SEED);
        let mut receipt = Receipt::new(&decision()).unwrap();
        sign(&mut receipt, &signer, &signing(Role::Emitter, Some("2031-05-20T14:05:30Z"))).unwrap();
        let document = serde_json::to_value(&receipt).unwrap();
        let mut payload = document.clone();
        payload.as_object_mut().unwrap().remove("signatures");
        insta::assert_snapshot!(String::from_utf8(canonical(&payload).unwrap()).unwrap());
        assert_eq!(digest(&document).unwrap(), "455e2061612ae439e0949a9970915a5f349b12fa30325f2148b5aea33e8ae87d");
        assert_eq!(
            serde_json::to_value(&receipt.signatures[0]).unwrap(),
            json!({
                "alg": "Ed25519",
                "key_id": "ed25519-21fe31dfa154a261",
                "issuer": "alice@example.org",
                "role": "emitter",
                "signed_at": "2026-05-20T14:05:30Z",
                "expires_at": "2031-05-20T14:05:30Z",
                "signature": "RQI84SIb5mH/hRzWXvSnZZMzC2G0+Mxe1l/pge1NrAhojmljdwriN5ipKKESSt85R+cYRK1Yxa6uBsdx3IhOBA=="
            })
        );
        let text = serde_json::to_string_pretty(&receipt).unwrap();
        assert_eq!(verify(&text, &signer.public(), now()).unwrap().signature, receipt.signatures[0]);
    }

    #[test]
    fn a_reviewer_signs_beside_the_author_and_each_verifies_with_their_key() {
        let dir = tempfile::tempdir().unwrap();
        let author = seed_signer(dir.path(), &RFC8032_SEED);
        let reviewer = seed_signer(dir.path(), &[7; 32]);
        let mut receipt = Receipt::new(&decision()).unwrap();
        sign(&mut receipt, &author, &signing(Role::Emitter, None)).unwrap();
        sign(&mut receipt, &reviewer, &signing(Role::Reviewer, None)).unwrap();
        let text = serde_json::to_string(&receipt).unwrap();
        assert_eq!(verify(&text, &author.public(), now()).unwrap().signature.role, Some(Role::Emitter));
        assert_eq!(verify(&text, &reviewer.public(), now()).unwrap().signature.role, Some(Role::Reviewer));
        let stranger = seed_signer(dir.path(), &[9; 32]).public();
        assert!(matches!(verify(&text, &stranger, now()), Err(Failure::NotSignedBy { found, .. }) if found.len() == 2));
    }

    /// Entries no honest signer writes, signed by hand with the RFC 8032 key.
    #[test]
    fn a_signature_labelled_for_another_key_or_with_a_bad_expiry_fails() {
        let dir = tempfile::tempdir().unwrap();
        let signer = seed_signer(dir.path(), &RFC8032_SEED);
        let unsigned = serde_json::to_value(Receipt::new(&decision()).unwrap()).unwrap();
        let signed_as = |entry: Value| {
            let message = signed_message(&digest(&unsigned).unwrap(), entry.clone()).unwrap();
            let mut entry = entry;
            entry["signature"] = STANDARD.encode(signer.sign(&message).unwrap()).into();
            let mut document = unsigned.clone();
            document["signatures"] = json!([entry]);
            document.to_string()
        };
        let other_label = signed_as(json!({"alg": "Ed25519", "key_id": "ed25519-0000000000000000"}));
        assert_eq!(
            verify(&other_label, &signer.public(), now()).unwrap_err(),
            Failure::Relabelled {
                index: 0,
                key_id: "ed25519-21fe31dfa154a261".into(),
                named: "ed25519-0000000000000000".into()
            }
        );
        let kid = key_id(&signer.public());
        let bad_expiry = signed_as(json!({"alg": "Ed25519", "key_id": kid, "expires_at": "next year"}));
        assert!(matches!(verify(&bad_expiry, &signer.public(), now()), Err(Failure::BadExpiry { index: 0, .. })));

        // The signature in hex is read as the verifier reads it.
        let good = signed_as(json!({"alg": "Ed25519", "key_id": kid}));
        let hex_form = edited(&good, |r| {
            let bytes = STANDARD.decode(r["signatures"][0]["signature"].as_str().unwrap()).unwrap();
            r["signatures"][0]["signature"] = hex(&bytes).into();
        });
        verify(&hex_form, &signer.public(), now()).unwrap();
        let unpadded = edited(&good, |r| {
            let padded = r["signatures"][0]["signature"].as_str().unwrap().trim_end_matches('=').to_string();
            r["signatures"][0]["signature"] = padded.into();
        });
        assert_eq!(verify(&unpadded, &signer.public(), now()).unwrap_err(), Failure::Undecodable { index: 0 });
    }

    #[test]
    fn what_is_not_a_signed_v02_receipt_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let public = seed_signer(dir.path(), &RFC8032_SEED).public();
        let unsigned = serde_json::to_string(&Receipt::new(&decision()).unwrap()).unwrap();
        let failure = verify(&unsigned, &public, now()).unwrap_err();
        assert_eq!((failure.clone(), failure.exit_code()), (Failure::Unsigned, 3));

        for (text, says) in [
            ("{", "not JSON"),
            ("[]", "odr_version is None"),
            (&edited(SIGNED_ELSEWHERE, |r| r["odr_version"] = "0.1".into()), "odr_version is Some(\"0.1\")"),
            (&edited(SIGNED_ELSEWHERE, |r| r["signatures"] = json!({})), "no signatures list"),
            (&edited(SIGNED_ELSEWHERE, |r| r["signatures"][0]["note"] = "hi".into()), "unknown field `note`"),
            (&edited(SIGNED_ELSEWHERE, |r| r["signatures"][0]["alg"] = "RS256".into()), "\"RS256\", not Ed25519"),
        ] {
            let failure = verify(text, &public, now()).unwrap_err();
            assert!(failure.to_string().contains(says), "{failure}");
            assert_eq!(failure.exit_code(), 1);
        }
    }
}
