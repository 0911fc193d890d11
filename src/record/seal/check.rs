//! A sealed record checked from its text alone, offline: its parts against the digests
//! its seal lists, in their order (an edit is named by the part it is in; a change of
//! status by another tool is told apart, `seal::lifecycle`), the digest against what it
//! covers (by the seal format's own rules), the note against the seal, the signature
//! against the digest, and the signer against an allowed-signers file; the earlier
//! signatures each against the digest it names. What the checks found, not a verdict:
//! the command decides what fails. Pure.

use chrono::{DateTime, Utc};

use crate::attest::{AllowedSigners, NAMESPACE, SshSignature};
use crate::record::seal::block::{self, Seal};
use crate::record::seal::lifecycle;
use crate::record::seal::make::{intact, note, signed_by};
use crate::record::seal::parts::{self, FORMAT, FORMAT_1};

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
    /// The parts a change of its status touched since it was sealed (another ADR tool,
    /// or a person): no failure, but said.
    pub lifecycle: Vec<String>,
    /// The status the record states now, when a change of status touched it.
    pub status_now: Option<String>,
    /// What the seal's format does not cover, when it is an older one.
    pub format_note: Option<String>,
    /// Everything that failed, one sentence each.
    pub failures: Vec<String>,
}

/// What a seal of format 1 leaves out, said with every record that has one.
pub const FORMAT_1_NOTE: &str = "sealed in format 1, read by its rules: its signature covers its text, its act and its key (through the note above the seal), not when it was signed nor the order of its earlier signatures' acts; a change of status is told apart only under `## Status`";

/// The sealed record `text` (with the transcript file beside it, if it has one)
/// checked; `None` when it has no seal. `signers` names the keys' owners; without it
/// no signer is known or unknown. `now` is the time the signers' validity is checked at.
pub fn check(
    text: &str,
    sidecar: Option<&str>,
    signers: Option<&AllowedSigners>,
    now: DateTime<Utc>,
) -> Option<Checked> {
    let text = parts::lf(text);
    let opened = block::open(&text);
    let (note, seal) = match opened.seal? {
        Ok(found) => found,
        Err(why) => {
            return Some(Checked { failures: vec![format!("its seal is damaged: {why}")], ..Checked::default() });
        }
    };
    let mut checked = Checked { digest: seal.digest.clone(), unsigned: seal.unsigned.clone(), ..Checked::default() };
    if seal.format != FORMAT && seal.format != FORMAT_1 {
        checked.failures.push(format!("its seal is {:?}, a format this debate does not know", seal.format));
        return Some(checked);
    }
    if seal.format == FORMAT_1 {
        checked.format_note = Some(FORMAT_1_NOTE.into());
    }
    let now_parts = parts::parts_in(&seal.format, opened.body, sidecar);
    let differing = parts::differing(&seal.parts, &now_parts);
    let status_only = lifecycle::parts_of(&seal.format);
    match differing.iter().all(|name| status_only.contains(&name.as_str())) {
        true if !differing.is_empty() => match lifecycle::only_status(opened.body) {
            Ok(()) => {
                checked.status_now = Some(lifecycle::now(opened.body));
                checked.lifecycle = differing;
            }
            Err(line) => {
                checked.failures.push(format!(
                    "edited since it was sealed, in: {} (where its status goes, {line:?} is no status)",
                    differing.join(", ")
                ));
                checked.edited = differing;
            }
        },
        true => {}
        false => {
            checked.failures.push(format!("edited since it was sealed, in: {}", differing.join(", ")));
            checked.edited = differing;
        }
    }
    if let Some(moved) = moved(&seal.parts, &now_parts) {
        checked.failures.push(format!("its parts are not in the order it was sealed in: {}", moved.join(", ")));
    }
    if !intact(&seal, &note) {
        checked.failures.push(match note == expected_note(&seal) {
            true => "its seal's digest is not the digest of what the seal covers: the seal was edited (its act, signer, time or parts)".into(),
            false => "the note above its seal, or the act or key its seal states, was edited".into(),
        });
    } else if note != expected_note(&seal) {
        // Format 1's digest covers the note, which names the act and the key: a seal
        // whose own act or key says otherwise was edited.
        checked
            .failures
            .push("its seal's act or key is not the one the note above it names: the seal was edited".into());
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
        // An earlier signature's act and time are covered by this version's digest.
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

/// The names of the parts that are where the seal did not list them, when the record
/// holds the same parts in another order (two sections swapped, say).
fn moved(sealed: &[parts::Part], now: &[parts::Part]) -> Option<Vec<String>> {
    let names = |parts: &[parts::Part]| parts.iter().map(|(name, _)| name.clone()).collect::<Vec<_>>();
    let (sealed, now) = (names(sealed), names(now));
    let mut sorted = (sealed.clone(), now.clone());
    sorted.0.sort();
    sorted.1.sort();
    (sealed != now && sorted.0 == sorted.1)
        .then(|| now.iter().zip(&sealed).filter(|(a, b)| a != b).map(|(a, _)| a.clone()).collect())
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
    use crate::record::seal::make::{Act, note, seal};
    use crate::record::seal::signer::Sealer;

    const RECORD: &str = "---\nid: DEB-abc123\nstatus: proposed\n\n---\n# Cache\n\n## Question\n\nWhich cache?\n\n## Recommendation\n\nUse Postgres.\n";

    fn now() -> DateTime<Utc> {
        Utc::now()
    }

    /// `record` sealed in format 1, as debate sealed records before format 2.
    fn sealed_in_format_1(record: &str, dir: &std::path::Path, act: &str) -> String {
        let signer = seed_signer(dir, &RFC8032_SEED);
        let parts = parts::parts_in(FORMAT_1, record, None);
        let note = note(Ok(&signer.public()), act);
        let earlier = serde_json::json!([]);
        let covered =
            parts::Covered { format: FORMAT_1, note: &note, earlier: &earlier, act, signer: None, signed_at: None };
        let digest = parts::digest(&parts, &covered);
        let sshsig = crate::attest::sshsig::sign(&signer, digest.as_bytes()).unwrap();
        let seal = Seal {
            format: FORMAT_1.into(),
            digest,
            parts,
            act: act.into(),
            signature: Some(block::Signature { signed_at: "2026-05-20T14:05:30Z".into(), sshsig }),
            unsigned: None,
            earlier: Vec::new(),
        };
        block::close(record, &note, &seal)
    }

    /// `text` with its Question and Recommendation sections (each whole) swapped.
    fn swap(text: &str) -> String {
        let (question, recommendation) = ("## Question\n\nWhich cache?\n\n", "## Recommendation\n\nUse Postgres.\n\n");
        let swapped = text.replacen(&format!("{question}{recommendation}"), &format!("{recommendation}{question}"), 1);
        assert_ne!(swapped, text);
        swapped
    }

    /// The seal of `text` changed by `change`, put back.
    fn reseal_json(text: &str, change: impl Fn(&mut serde_json::Value)) -> String {
        let line = text.lines().last().unwrap();
        let mut json: serde_json::Value =
            serde_json::from_str(line.strip_prefix("<!-- debate:seal ").unwrap().strip_suffix(" -->").unwrap())
                .unwrap();
        change(&mut json);
        text.replace(line, &format!("<!-- debate:seal {json} -->"))
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
        forged.digest = crate::record::seal::make::digest_of(&forged, &note);
        let forgery = block::close(block::body(&edited), &note, &forged);
        let checked = check(&forgery, None, None, now()).unwrap();
        assert!(checked.edited.is_empty());
        assert_eq!(checked.failures.len(), 1, "{:?}", checked.failures);
        assert!(
            checked.failures[0].starts_with("its signature by SHA256:")
                && checked.failures[0].contains("does not match its digest")
        );

        let note_edited = sealed.replace("when it was recorded", "when it was accepted");
        assert_eq!(
            check(&note_edited, None, None, now()).unwrap().failures,
            ["the note above its seal, or the act or key its seal states, was edited"]
        );
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
    fn the_act_the_time_and_the_order_of_the_parts_are_signed() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let (sealed, _) = seal(RECORD, None, None, Act::Recorded, &sealer);
        assert!(check(&sealed, None, None, now()).unwrap().failures.is_empty());
        let accepted = reseal_json(&sealed, |seal| seal["act"] = "accepted".into());
        let failures = check(&accepted, None, None, now()).unwrap().failures;
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].contains("the act or key its seal states, was edited"), "{failures:?}");
        let later = reseal_json(&sealed, |seal| seal["signature"]["signed_at"] = "2030-01-01T00:00:00Z".into());
        assert!(check(&later, None, None, now()).unwrap().failures[0].contains("the seal was edited"));

        let (sealed, _) = seal(&format!("{RECORD}\n## Notes\n\nNone.\n"), None, None, Act::Recorded, &sealer);
        let swapped = swap(&sealed);
        let checked = check(&swapped, None, None, now()).unwrap();
        assert_eq!(
            checked.failures,
            ["its parts are not in the order it was sealed in: Recommendation, Question"],
            "the same parts, another order"
        );
    }

    #[test]
    fn a_seal_of_format_1_is_read_by_its_own_rules_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let sealed = sealed_in_format_1(RECORD, dir.path(), "recorded");
        let checked = check(&sealed, None, Some(&signers(dir.path(), "alice@example.org")), now()).unwrap();
        assert_eq!(checked.failures, Vec::<String>::new());
        assert_eq!(checked.signature.unwrap().principal.as_deref(), Some("alice@example.org"));
        assert_eq!(checked.format_note.as_deref(), Some(FORMAT_1_NOTE));
        // Its act is bound through its note: changed in the seal alone, it fails.
        let accepted = reseal_json(&sealed, |seal| seal["act"] = "accepted".into());
        let failures = check(&accepted, None, None, now()).unwrap().failures;
        assert_eq!(failures, ["its seal's act or key is not the one the note above it names: the seal was edited"]);
        // A status line is part of its front matter: changed, it is an edit.
        let status = sealed.replacen("status: proposed", "status: accepted", 1);
        assert_eq!(check(&status, None, None, now()).unwrap().edited, ["front matter"]);
        // Its parts' order too.
        let swapped = swap(&sealed_in_format_1(&format!("{RECORD}\n## Notes\n\nNone.\n"), dir.path(), "recorded"));
        let failures = check(&swapped, None, None, now()).unwrap().failures;
        assert_eq!(failures, ["its parts are not in the order it was sealed in: Recommendation, Question"]);
    }

    #[test]
    fn a_change_of_status_by_another_tool_passes_and_an_edit_beside_it_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let sealer = Sealer::with(seed_signer(dir.path(), &RFC8032_SEED));
        let record = RECORD.replace("# Cache\n", "# Cache\n\n- Status: proposed\n\n## Status\n\nProposed\n");
        let (sealed, _) = seal(&record, None, None, Act::Recorded, &sealer);
        let superseded = sealed.replacen("\nProposed\n", "\nSuperseded by [3. Memcached](0003-memcached.md)\n", 1);
        let checked = check(&superseded, None, None, now()).unwrap();
        assert_eq!((checked.failures.len(), checked.lifecycle.as_slice()), (0, &["Status".to_string()][..]));
        assert_eq!(checked.status_now.as_deref(), Some("Superseded by [3. Memcached](0003-memcached.md)"));
        let by_hand = sealed.replacen("status: proposed", "status: accepted", 1).replacen(
            "- Status: proposed",
            "- Status: accepted",
            1,
        );
        let checked = check(&by_hand, None, None, now()).unwrap();
        assert!(checked.failures.is_empty() && checked.lifecycle == [parts::STATUS_LINES], "{checked:?}");
        // The decision edited along with it: an edit, named.
        let both = superseded.replacen("Use Postgres.", "Use Redis.", 1);
        assert_eq!(check(&both, None, None, now()).unwrap().edited, ["Status", "Recommendation"]);
        // Prose where the status goes is no status.
        let prose = sealed.replacen("\nProposed\n", "\nAccepted; use Redis instead.\n", 1);
        let checked = check(&prose, None, None, now()).unwrap();
        assert_eq!(checked.edited, ["Status"]);
        assert!(checked.failures[0].contains("is no status"), "{:?}", checked.failures);
        // Saved with CR line endings, an edit is still found.
        let cr = sealed.replacen("Use Postgres.", "Use Redis.", 1).replace('\n', "\r");
        assert_eq!(check(&cr, None, None, now()).unwrap().edited, ["Recommendation"]);
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
