//! What the tests of `attest` share: keys made by `ssh-keygen` as a user makes them,
//! `ssh-keygen -Y` run as a verifier runs it, and a decided debate to make receipts of.
//! (A key held by an ssh-agent is tested end to end, in tests/it/signed_records.rs.)

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use chrono::{DateTime, Utc};

use super::key::Signer;
use super::receipt::{Acceptance, Decision, Participant, Stance};

/// A new key `dir/name` (and `dir/name.pub`) of `kind` (`ed25519`, `rsa`), protected
/// by `passphrase` when it is not empty.
pub fn keygen(dir: &Path, name: &str, kind: &str, passphrase: &str) -> PathBuf {
    let key = dir.join(name);
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", kind, "-N", passphrase, "-C", "test@example.com", "-f"])
        .arg(&key)
        .status();
    assert!(made.unwrap().success(), "ssh-keygen makes a key (.ci/run installs openssh-client)");
    key
}

/// `ssh-keygen` with `args`, `input` on its stdin.
pub fn ssh_keygen(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new("ssh-keygen")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// RFC 8032's first test key's seed (public, for tests only): the key the notes'
/// receipt vector and aragora's own examples are signed with.
pub const RFC8032_SEED: [u8; 32] = [
    0x9d, 0x61, 0xb1, 0x9d, 0xef, 0xfd, 0x5a, 0x60, 0xba, 0x84, 0x4a, 0xf4, 0x92, 0xec, 0x2c, 0xc4, 0x44, 0x49, 0xc5,
    0x69, 0x7b, 0x32, 0x69, 0x19, 0x70, 0x3b, 0xac, 0x03, 0x1c, 0xae, 0x7f, 0x60,
];

/// A signer of `seed`, read from an OpenSSH key file as a user's key is.
pub fn seed_signer(dir: &Path, seed: &[u8; 32]) -> Signer {
    let pair = ssh_key::private::Ed25519Keypair::from_seed(seed);
    let key = ssh_key::PrivateKey::new(pair.into(), "test@example.com").unwrap();
    let file = dir.join("seed_key");
    std::fs::write(&file, key.to_openssh(ssh_key::LineEnding::LF).unwrap().as_bytes()).unwrap();
    Signer::from_file(&file, None).unwrap()
}

/// A decided debate, as the record's wiring would hand it over.
pub fn decision() -> Decision {
    let at = |text: &str| text.parse::<DateTime<Utc>>().unwrap();
    let seat = |agent: &str, model_id: &str, model_family: &str, stance: Stance| Participant {
        agent: agent.into(),
        model_id: model_id.into(),
        model_family: model_family.into(),
        stance,
    };
    Decision {
        id: "d-20260520-7f3a".into(),
        subject: "debate:docs/decisions/0007-redis-or-postgres.md".into(),
        record_sha256: Some("2dd25cbfef02a5187787a3ef81f6b960b350c7af9dbbbf4ea898ce258af10225".into()),
        question: "Redis or Postgres for caching?".into(),
        chosen: Some("Redis".into()),
        decision: "Use Redis as a read-through cache in front of Postgres — Postgres stays the only source of truth."
            .into(),
        reasoning: Some("Sub-millisecond reads and native expiry decide; p99 < 5 ms is the budget.".into()),
        participants: vec![
            seat("performance", "claude-sonnet-4", "anthropic", Stance::Supports),
            seat("operations", "gpt-4.1", "openai", Stance::Supports),
            seat("cost", "gemini-2.5-pro", "google", Stance::Dissents("a second datastore doubles on-call.".into())),
        ],
        confidence: Some(0.72),
        cruxes: vec!["Will cache traffic exceed what a shared Postgres absorbs?".into()],
        accepted_by: Some(Acceptance {
            id: "alice@example.org".into(),
            name: Some("Alice Example".into()),
            at: at("2026-05-20T14:05:00Z"),
        }),
        decided_at: at("2026-05-20T14:03:11Z"),
        tool_version: "0.1.0".into(),
    }
}
