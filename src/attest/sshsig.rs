//! SSH signatures (OpenSSH's SSHSIG), the armored text `ssh-keygen -Y sign` writes
//! and `ssh-keygen -Y verify` checks, so anyone can check a record's signature with
//! the tool git already uses, without debate.
//!
//! Every signature is made in one namespace, [`NAMESPACE`]: the key that signs git's
//! commits (namespace `git`) signs records too, and neither signature can be passed
//! off as the other.

use ssh_key::{Algorithm, HashAlg, LineEnding, SshSig};

use super::error::{AttestError, Result};
use super::key::{PublicKey, Signer};

/// The SSHSIG namespace of a record's signature: `ssh-keygen -Y … -n debate-record@v1`.
/// OpenSSH recommends a domain-like name for namespaces of one's own; `@v1` leaves room
/// for another meaning of what is signed.
pub const NAMESPACE: &str = "debate-record@v1";

/// The armored SSH signature of `message` in [`NAMESPACE`], byte for byte what
/// `ssh-keygen -Y sign -n debate-record@v1` writes with the same key. The signer
/// signs SSHSIG's own envelope of the message's SHA-512, so a key held by an
/// ssh-agent signs exactly as a key file does; git's signing program, when the key
/// signs through one, is run as git runs it, and what it gives must verify.
pub fn sign(signer: &Signer, message: &[u8]) -> Result<String> {
    if let Some(program) = signer.program() {
        let armored = program.sign(NAMESPACE, message)?;
        SshSignature::from_armored(&armored)?.verify(&signer.public(), message)?;
        return Ok(armored);
    }
    let failed = |err: ssh_key::Error| AttestError::Signature(format!("cannot make an SSH signature: {err}"));
    let envelope = SshSig::signed_data(NAMESPACE, HashAlg::Sha512, message).map_err(failed)?;
    let raw = signer.sign(&envelope)?;
    let signature = ssh_key::Signature::new(Algorithm::Ed25519, raw.to_vec()).map_err(failed)?;
    SshSig::new(signer.public().key_data(), NAMESPACE, HashAlg::Sha512, signature)
        .and_then(|sig| sig.to_pem(LineEnding::LF))
        .map_err(failed)
}

/// An armored SSH signature, read.
#[derive(Debug)]
pub struct SshSignature(SshSig);

impl SshSignature {
    /// The signature in `-----BEGIN SSH SIGNATURE-----` armor.
    pub fn from_armored(text: &str) -> Result<SshSignature> {
        SshSig::from_pem(text.trim())
            .map(SshSignature)
            .map_err(|err| AttestError::Signature(format!("not an SSH signature: {err}")))
    }

    /// The key the signature says made it; only [`verify`](Self::verify) shows it did.
    pub fn signer(&self) -> Result<PublicKey> {
        PublicKey::from_key_data(self.0.public_key())
    }

    /// Whether `public` signed `message` in [`NAMESPACE`]; the error says which of the
    /// three is not so.
    pub fn verify(&self, public: &PublicKey, message: &[u8]) -> Result<()> {
        let claimed = self.signer()?;
        if claimed != *public {
            return Err(AttestError::Signature(format!(
                "the signature is by the key {}, not {}",
                claimed.fingerprint(),
                public.fingerprint()
            )));
        }
        if self.0.namespace() != NAMESPACE {
            return Err(AttestError::Signature(format!(
                "the signature was made for {:?}, not for a record ({NAMESPACE:?})",
                self.0.namespace()
            )));
        }
        ssh_key::PublicKey::new(public.key_data(), "").verify(NAMESPACE, message, &self.0).map_err(|_| {
            AttestError::Signature(format!(
                "the signature by {} does not match the text: the text or the signature changed since it was signed",
                public.fingerprint()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::attest::testing::{keygen, ssh_keygen};

    const MESSAGE: &[u8] = b"# 0007. Redis as the read-through cache\n\nStatus: accepted\n";

    /// An allowed-signers file naming `principal` for the key `key` (its `.pub`).
    fn allowed(dir: &Path, key: &Path, principal: &str) -> String {
        let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        let file = dir.join("allowed_signers");
        std::fs::write(&file, format!("{principal} {public}")).unwrap();
        file.to_str().unwrap().to_string()
    }

    /// `ssh-keygen -Y verify` of `signature` over `message`, as a reviewer runs it.
    fn keygen_verifies(allowed: &str, signature: &str, message: &[u8]) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sig");
        std::fs::write(&file, signature).unwrap();
        let file = file.to_str().unwrap();
        ssh_keygen(&["-Y", "verify", "-f", allowed, "-I", "alice@example.org", "-n", NAMESPACE, "-s", file], message)
            .status
            .success()
    }

    #[test]
    fn a_signature_made_here_verifies_with_ssh_keygen_and_is_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id", "ed25519", "");
        let signer = Signer::from_file(&key, None).unwrap();
        let signature = sign(&signer, MESSAGE).unwrap();
        assert!(signature.starts_with("-----BEGIN SSH SIGNATURE-----\n"), "{signature}");

        let allowed = allowed(dir.path(), &key, "alice@example.org");
        assert!(keygen_verifies(&allowed, &signature, MESSAGE));
        assert!(!keygen_verifies(&allowed, &signature, b"# 0007. Postgres as the cache\n"), "a changed text fails");

        // Ed25519 is deterministic: ssh-keygen writes the very same bytes.
        let theirs = ssh_keygen(&["-Y", "sign", "-q", "-f", key.to_str().unwrap(), "-n", NAMESPACE], MESSAGE);
        assert!(theirs.status.success(), "{}", String::from_utf8_lossy(&theirs.stderr));
        assert_eq!(String::from_utf8(theirs.stdout).unwrap(), signature);
    }

    #[test]
    fn a_signature_ssh_keygen_made_verifies_here_and_only_for_its_text_key_and_namespace() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id", "ed25519", "");
        let public = Signer::from_file(&key, None).unwrap().public();
        let signed = |namespace: &str| {
            let out = ssh_keygen(&["-Y", "sign", "-q", "-f", key.to_str().unwrap(), "-n", namespace], MESSAGE);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            SshSignature::from_armored(&String::from_utf8(out.stdout).unwrap()).unwrap()
        };
        let signature = signed(NAMESPACE);
        assert_eq!(signature.signer().unwrap(), public);
        signature.verify(&public, MESSAGE).unwrap();

        let changed = signature.verify(&public, b"# 0007. Postgres as the cache\n").unwrap_err().to_string();
        assert!(changed.contains("does not match the text"), "{changed}");

        let other = Signer::from_file(&keygen(dir.path(), "other", "ed25519", ""), None).unwrap().public();
        let wrong_key = signature.verify(&other, MESSAGE).unwrap_err().to_string();
        assert!(wrong_key.contains(&public.fingerprint()) && wrong_key.contains(&other.fingerprint()), "{wrong_key}");

        // A commit's signature (namespace `git`) is not a record's.
        let commit = signed("git").verify(&public, MESSAGE).unwrap_err().to_string();
        assert!(commit.contains("\"git\""), "{commit}");
    }

    #[test]
    fn what_is_not_a_signature_is_an_error() {
        for text in ["", "hello", "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n"] {
            let err = SshSignature::from_armored(text).unwrap_err().to_string();
            assert!(err.starts_with("not an SSH signature"), "{err}");
        }
    }
}
