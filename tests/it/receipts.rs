//! Open Decision Receipts as a peer checks them: a receipt debate builds and signs with
//! an ssh-keygen key is accepted by aragora's own offline verifier, `aragora-verify`
//! 0.2.0 (from PyPI), refused once a field is edited, and left unverified without a
//! key — and debate's own verification agrees with it on each.
//!
//! Runs when `DEBATE_ARAGORA_VERIFY` names the verifier's executable (installed with
//! pip into a cache outside the repository); otherwise it says it is skipped. It needs
//! no network.

use std::path::Path;
use std::process::Command;

use chrono::{DateTime, Utc};
use debate::attest::odr::{self, Failure};
use debate::attest::{Acceptance, Decision, Participant, Receipt, Role, Signer, Signing, Stance};
use serde_json::Value;

use crate::common::*;

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn decision() -> Decision {
    let seat = |agent: &str, model_id: &str, model_family: &str, stance: Stance| Participant {
        agent: agent.into(),
        model_id: model_id.into(),
        model_family: model_family.into(),
        stance,
    };
    Decision {
        id: "d-20260520-0001".into(),
        subject: "debate:docs/decisions/0001-sqlite-or-postgres.md".into(),
        record_sha256: Some("5b1e0c4c3ea08f1cbd6c3f1ad5fd0c6e7ad2f6a1f3f5b8b7c2f0e4d1c9a8b7e6".into()),
        question: "SQLite or Postgres for the job queue?".into(),
        chosen: Some("SQLite".into()),
        decision: "Keep the job queue in SQLite with WAL; move to Postgres past one writer — «ça suffit».".into(),
        reasoning: Some("One writer, no new service to run; the move is cheap later.".into()),
        participants: vec![
            seat("simplicity", "claude-sonnet-4", "anthropic", Stance::Supports),
            seat("operations", "qwen3-8b", "qwen", Stance::Supports),
            seat("scale", "gpt-4.1", "openai", Stance::Dissents("two writers are a month away.".into())),
            seat("cost", "llama-3.3-70b", "", Stance::Abstains),
        ],
        confidence: Some(0.65),
        cruxes: vec!["Will a second writer arrive within the quarter?".into()],
        accepted_by: Some(Acceptance { id: "alice@example.org".into(), name: None, at: at("2026-05-20T15:00:00Z") }),
        decided_at: at("2026-05-20T14:58:02Z"),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// The verifier's exit code and its `--json` report.
fn aragora_verify(verifier: &Path, receipt: &Path, pubkey: Option<&Path>) -> (i32, Value) {
    let mut command = Command::new(verifier);
    command.arg(receipt).arg("--json").args(["--now", "2026-06-01T00:00:00Z"]);
    if let Some(pubkey) = pubkey {
        command.arg("--pubkey").arg(pubkey);
    }
    let out = command.output().unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}{}", text(&out.stdout), text(&out.stderr)));
    (out.status.code().unwrap(), report)
}

#[test]
fn a_receipt_signed_here_is_accepted_by_aragora_verify_and_refused_once_edited() {
    let Some(verifier) = std::env::var_os("DEBATE_ARAGORA_VERIFY") else {
        eprintln!("skipped: no aragora-verify (pip install aragora-verify==0.2.0; then set DEBATE_ARAGORA_VERIFY)");
        return;
    };
    let verifier = Path::new(&verifier);
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("id_ed25519");
    let made =
        Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f"]).arg(&key).status();
    assert!(made.unwrap().success(), "ssh-keygen makes a key (.ci/run installs openssh-client)");
    let signer = Signer::from_file(&key, None).unwrap();
    let pubkey = dir.path().join("signer.pub.hex");
    std::fs::write(&pubkey, odr::pubkey_file(&signer.public())).unwrap();

    let mut receipt = Receipt::new(&decision()).unwrap();
    let signing = Signing {
        issuer: "alice@example.org".into(),
        role: Role::Emitter,
        signed_at: at("2026-05-20T15:00:05Z"),
        expires_at: Some(at("2031-05-20T15:00:05Z")),
    };
    odr::sign(&mut receipt, &signer, &signing).unwrap();
    let signed = serde_json::to_string_pretty(&receipt).unwrap();
    let file = dir.path().join("receipt.json");
    let now = at("2026-06-01T00:00:00Z");

    // Signed and unchanged: verified there and here, with the same digest and key id.
    std::fs::write(&file, &signed).unwrap();
    let (code, report) = aragora_verify(verifier, &file, Some(&pubkey));
    assert_eq!(code, 0, "{report:#}");
    let ours = odr::verify(&signed, &signer.public(), now).unwrap();
    assert_eq!(report["odr_digest"], ours.digest.as_str());
    assert_eq!(report["key_id"], odr::key_id(&signer.public()).as_str());
    let failed: Vec<&Value> = report["checks"].as_array().unwrap().iter().filter(|c| c["status"] == "fail").collect();
    assert!(failed.is_empty(), "{failed:?}");

    // One field edited: refused there and here.
    let mut document: Value = serde_json::from_str(&signed).unwrap();
    document["quorum"]["dissent"]["views"][0] = "scale: no objection.".into();
    let edited = serde_json::to_string_pretty(&document).unwrap();
    std::fs::write(&file, &edited).unwrap();
    let (code, report) = aragora_verify(verifier, &file, Some(&pubkey));
    assert_eq!(code, 1, "{report:#}");
    let failure = odr::verify(&edited, &signer.public(), now).unwrap_err();
    assert!(matches!(failure, Failure::Invalid { index: 0, .. }), "{failure}");
    assert_eq!(failure.exit_code(), code);

    // No key given: signed, but not verified (exit 3).
    std::fs::write(&file, &signed).unwrap();
    let (code, report) = aragora_verify(verifier, &file, None);
    assert_eq!(code, 3, "{report:#}");
    assert_eq!(report["authenticity_unverified"], true);

    // Unsigned, with a key: unverified there, and here with the same code.
    let unsigned = serde_json::to_string_pretty(&Receipt::new(&decision()).unwrap()).unwrap();
    std::fs::write(&file, &unsigned).unwrap();
    let (code, report) = aragora_verify(verifier, &file, Some(&pubkey));
    assert_eq!(code, 3, "{report:#}");
    assert_eq!(odr::verify(&unsigned, &signer.public(), now).unwrap_err().exit_code(), code);
}
