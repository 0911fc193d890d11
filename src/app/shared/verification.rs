//! A record's text checked as `debate verify` checks it, into the view every front end
//! shows: its seal (`record::seal`), the signers named by an allowed-signers file, and
//! what a record without a seal is — one written before records were sealed, a decision
//! record debate did not write (unsigned), a file that is no decision record, or one
//! that was debate's at a base revision and lost what made it so (a failure). `verify`,
//! `show`, the dashboard and `--json` summaries all say it so.

use std::path::Path;

use chrono::Utc;

use crate::attest::AllowedSigners;
use crate::error::{Error, Result};
use crate::model::is_debate_id;
use crate::record::read::carried;
use crate::record::seal::parts::lf;
use crate::record::seal::{self, Checked, Signed};
use crate::view::{RecordCheck, SignatureView, Verdict};

/// Why a record without a seal that carries its debate has no digest to check.
pub const BEFORE_SEALS: &str = "written before records were sealed, so it has no digest or signature";
/// Why a decision record debate did not write is unsigned.
pub const NOT_DEBATES: &str = "a decision record debate did not write: no seal vouches for its text";
/// Why a file is no decision record.
pub const NOT_A_RECORD: &str = "not a decision record (no seal, no debate it carries, no status)";

/// The record at `path` (in the repository), its text and its transcript file's, checked.
/// Line endings are read as git's any (CRLF, and a lone CR): no form of them hides a seal.
pub fn check(path: &str, text: &str, sidecar: Option<&str>, signers: Option<&AllowedSigners>) -> RecordCheck {
    let text = lf(text);
    let id = crate::adr::read(path, &text).and_then(|fields| fields.id).filter(|id| is_debate_id(id));
    let Some(checked) = seal::check(&text, sidecar, signers, Utc::now()) else {
        let mut check = match (carries_debate(&text), &id) {
            (true, _) => RecordCheck::plain(path, Verdict::Unsigned, BEFORE_SEALS.into()),
            (false, Some(_)) => RecordCheck::plain(
                path,
                Verdict::Unsigned,
                "it carries neither a seal nor its debate: nothing vouches for its text".into(),
            ),
            (false, None) if states_a_status(path, &text) => {
                RecordCheck::plain(path, Verdict::Unsigned, NOT_DEBATES.into())
            }
            (false, None) => RecordCheck::plain(path, Verdict::Skipped, NOT_A_RECORD.into()),
        };
        check.id = id;
        return check;
    };
    of(path, id, checked)
}

/// Whether `text` is a record sealed or carrying its debate: one `verify` says more of
/// than that it is unsigned.
pub fn carries_debate(text: &str) -> bool {
    lf(text).lines().any(|line| carried::state_json(line).is_some())
}

/// Whether `text` is a record debate wrote, as far as its form shows: sealed, carrying
/// its debate, or with a debate's id in its front matter; and which of those, said.
pub fn debates(path: &str, text: &str) -> Option<&'static str> {
    let text = lf(text);
    if seal::block::open(&text).seal.is_some() {
        return Some("sealed");
    }
    if carries_debate(&text) {
        return Some("carrying its debate");
    }
    let id = crate::adr::read(path, &text).and_then(|fields| fields.id);
    id.is_some_and(|id| is_debate_id(&id)).then_some("with a debate's id")
}

/// `check` of a record that was debate's at `rev` (as `base` says it was there): what
/// makes it no longer checkable as one — its seal, its debate or its id taken off — is
/// a failure, never an unsigned record or a skip.
pub fn against_base(mut check: RecordCheck, path: &str, text: &str, base: &str, rev: &str) -> RecordCheck {
    let (Some(was), now) = (debates(path, base), debates(path, text)) else { return check };
    let lost = match (was, now) {
        ("sealed", Some("sealed")) => return check,
        ("sealed", _) => "its seal was taken off",
        ("carrying its debate", Some("sealed" | "carrying its debate")) => return check,
        ("carrying its debate", _) => "the debate it carries was taken off",
        (_, Some(_)) => return check,
        (_, None) => "its debate's id was taken off",
    };
    check.verdict = Verdict::Failed;
    check.failures.push(format!("it was a record debate wrote at {rev} ({was}), and {lost}"));
    check.note = None;
    check
}

/// Whether `text` states a status as a decision record does (adr-tools', MADR's).
fn states_a_status(path: &str, text: &str) -> bool {
    crate::adr::read(path, text).is_some_and(|fields| !fields.status.eq_ignore_ascii_case("unknown"))
}

fn of(path: &str, id: Option<String>, checked: Checked) -> RecordCheck {
    let signature = checked.signature.as_ref().map(view);
    let verdict = match (&checked.failures.is_empty(), &signature) {
        (false, _) => Verdict::Failed,
        (true, Some(signature)) if signature.signer.is_some() => Verdict::Verified,
        (true, Some(_)) => Verdict::Signed,
        (true, None) => Verdict::Unsigned,
    };
    let status_change = checked.status_now.as_ref().map(|now| {
        format!(
            "its status was changed since it was signed (in: {}), by another ADR tool or by hand: it now reads {now:?}; the decision is as signed",
            checked.lifecycle.join(", ")
        )
    });
    let notes: Vec<String> = status_change.into_iter().chain(checked.format_note).collect();
    RecordCheck {
        path: path.to_string(),
        id,
        verdict,
        digest: Some(checked.digest).filter(|d| !d.is_empty()),
        signature,
        unsigned: checked.unsigned,
        earlier: checked.earlier.iter().map(view).collect(),
        edited: checked.edited,
        status_changed: checked.lifecycle,
        status_now: checked.status_now,
        failures: checked.failures,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

fn view(signed: &Signed) -> SignatureView {
    SignatureView {
        act: signed.act.clone(),
        signed_at: signed.signed_at.clone(),
        key: signed.key.clone(),
        signer: signed.principal.clone(),
        valid: signed.valid,
        digest: signed.digest.clone(),
    }
}

/// The signers an allowed-signers file names, which file was read, and a warning when
/// the file git names cannot be read.
#[derive(Default)]
pub struct Signers {
    pub named: Option<AllowedSigners>,
    /// The file read and where it was named: `FILE (--allowed-signers)`.
    pub read: Option<String>,
    pub warning: Option<String>,
}

/// The allowed-signers file that names the signers: `given` (`--allowed-signers`, an
/// input error when it cannot be read), else git's `gpg.ssh.allowedSignersFile` for the
/// repository at `root` (a warning when it cannot be read); none: nobody is named.
pub fn signers(root: &Path, given: Option<&Path>) -> Result<Signers> {
    if let Some(file) = given {
        let named = AllowedSigners::read(file).map_err(|err| {
            Error::input(format!("--allowed-signers: {err}"))
                .with_hint("give a file in ssh-keygen's allowed-signers format (`principal ssh-ed25519 AAAA…` a line)")
        })?;
        let read = Some(format!("{} (--allowed-signers)", file.display()));
        return Ok(Signers { named: Some(named), read, warning: None });
    }
    let Some(file) = seal::allowed_signers_file(root) else { return Ok(Signers::default()) };
    let read = Some(format!("{} (git's gpg.ssh.allowedSignersFile)", file.display()));
    Ok(match AllowedSigners::read(&file) {
        Ok(named) => Signers { named: Some(named), read, warning: None },
        Err(err) => Signers {
            named: None,
            read: None,
            warning: Some(format!("git's gpg.ssh.allowedSignersFile: {err}; no signer can be named")),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_without_a_seal_is_said_for_what_it_is() {
        let legacy = "---\nid: DEB-abc123\n---\n# A\n\n<!-- debate:state {} -->\n";
        assert_eq!(check("a.md", legacy, None, None).verdict, Verdict::Unsigned);
        assert_eq!(check("a.md", legacy, None, None).note.as_deref(), Some(BEFORE_SEALS));
        assert_eq!(check("a.md", &legacy.replace('\n', "\r"), None, None).note.as_deref(), Some(BEFORE_SEALS));
        let bare = check("a.md", "---\nid: DEB-abc123\n---\n# A\n", None, None);
        assert_eq!((bare.verdict, bare.id.as_deref()), (Verdict::Unsigned, Some("DEB-abc123")));
        let hand_written = check("a.md", "# 1. Use Postgres\n\n## Status\n\nAccepted\n", None, None);
        assert_eq!((hand_written.verdict, hand_written.note.as_deref()), (Verdict::Unsigned, Some(NOT_DEBATES)));
        let readme = check("README.md", "# Decisions\n\nThe team's records.\n", None, None);
        assert_eq!((readme.verdict, readme.note.as_deref()), (Verdict::Skipped, Some(NOT_A_RECORD)));
    }

    #[test]
    fn a_record_that_was_debates_at_the_base_and_lost_its_seal_or_debate_fails() {
        let sealed =
            "---\nid: DEB-abc123\n---\n# A\n\n## Status\n\nProposed\n\n*Not signed.*\n\n<!-- debate:seal {} -->\n";
        let legacy = "---\nid: DEB-abc123\n---\n# A\n\n## Status\n\nProposed\n\n<!-- debate:state {} -->\n";
        let stripped = "# A\n\n## Status\n\nProposed\n";
        let judged = |base: &str, now: &str| {
            let checked = against_base(check("a.md", now, None, None), "a.md", now, base, "main");
            (checked.verdict, checked.failures)
        };
        assert_eq!(judged(stripped, stripped).0, Verdict::Unsigned, "never debate's: unsigned");
        let (verdict, failures) = judged(sealed, stripped);
        assert_eq!(verdict, Verdict::Failed);
        assert_eq!(failures, ["it was a record debate wrote at main (sealed), and its seal was taken off"]);
        assert_eq!(judged(sealed, legacy).0, Verdict::Failed, "a seal taken off, the debate kept");
        assert_eq!(judged(legacy, stripped).0, Verdict::Failed);
        assert_eq!(judged(legacy, legacy).0, Verdict::Unsigned);
    }
}
