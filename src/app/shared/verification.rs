//! A record's text checked as `debate verify` checks it, into the view every front end
//! shows: its seal (`record::seal`), the signers named by an allowed-signers file, and
//! what a record without a seal is — one written before records were sealed, or none of
//! debate's. `verify`, `show`, the dashboard and `--json` summaries all say it so.

use std::path::Path;

use chrono::Utc;

use crate::attest::AllowedSigners;
use crate::error::{Error, Result};
use crate::model::is_debate_id;
use crate::record::read::carried;
use crate::record::seal::{self, Checked, Signed};
use crate::view::{RecordCheck, SignatureView, Verdict};

/// Why a record without a seal that carries its debate has no digest to check.
pub const BEFORE_SEALS: &str = "written before records were sealed, so it has no digest or signature";

/// The record at `path` (in the repository), its text and its transcript file's, checked.
pub fn check(path: &str, text: &str, sidecar: Option<&str>, signers: Option<&AllowedSigners>) -> RecordCheck {
    let id = crate::adr::read(path, text).and_then(|fields| fields.id).filter(|id| is_debate_id(id));
    let Some(checked) = seal::check(text, sidecar, signers, Utc::now()) else {
        let mut check = match (carries_debate(text), &id) {
            (true, _) => RecordCheck::plain(path, Verdict::Unsigned, BEFORE_SEALS.into()),
            (false, Some(_)) => RecordCheck::plain(
                path,
                Verdict::Unsigned,
                "it carries neither a seal nor its debate: nothing vouches for its text".into(),
            ),
            (false, None) => RecordCheck::plain(path, Verdict::Skipped, "not a record debate wrote".into()),
        };
        check.id = id;
        return check;
    };
    of(path, id, checked)
}

/// Whether `text` is a record sealed or carrying its debate: one `verify` says more of
/// than that it is unsigned.
pub fn carries_debate(text: &str) -> bool {
    text.lines().any(|line| carried::state_json(line.trim_end_matches('\r')).is_some())
}

fn of(path: &str, id: Option<String>, checked: Checked) -> RecordCheck {
    let signature = checked.signature.as_ref().map(view);
    let verdict = match (&checked.failures.is_empty(), &signature) {
        (false, _) => Verdict::Failed,
        (true, Some(signature)) if signature.signer.is_some() => Verdict::Verified,
        (true, Some(_)) => Verdict::Signed,
        (true, None) => Verdict::Unsigned,
    };
    RecordCheck {
        path: path.to_string(),
        id,
        verdict,
        digest: Some(checked.digest).filter(|d| !d.is_empty()),
        signature,
        unsigned: checked.unsigned,
        earlier: checked.earlier.iter().map(view).collect(),
        edited: checked.edited,
        failures: checked.failures,
        note: None,
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

/// The allowed-signers file that names the signers: `given` (`--allowed-signers`, an
/// input error when it cannot be read), else git's `gpg.ssh.allowedSignersFile` for the
/// repository at `root` (a warning when it cannot be read); none: nobody is named.
pub fn signers(root: &Path, given: Option<&Path>) -> Result<(Option<AllowedSigners>, Option<String>)> {
    if let Some(file) = given {
        return AllowedSigners::read(file).map(|signers| (Some(signers), None)).map_err(|err| {
            Error::input(format!("--allowed-signers: {err}"))
                .with_hint("give a file in ssh-keygen's allowed-signers format (`principal ssh-ed25519 AAAA…` a line)")
        });
    }
    let Some(file) = seal::allowed_signers_file(root) else { return Ok((None, None)) };
    Ok(match AllowedSigners::read(&file) {
        Ok(signers) => (Some(signers), None),
        Err(err) => (None, Some(format!("git's gpg.ssh.allowedSignersFile: {err}; no signer can be named"))),
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
        let bare = check("a.md", "---\nid: DEB-abc123\n---\n# A\n", None, None);
        assert_eq!((bare.verdict, bare.id.as_deref()), (Verdict::Unsigned, Some("DEB-abc123")));
        assert_eq!(check("a.md", "# 1. Use Postgres\n\n## Status\n\nAccepted\n", None, None).verdict, Verdict::Skipped);
    }
}
