//! The ed25519 key that signs, and its public half. The key is the one git signs
//! commits with (`user.signingkey` with `gpg.format=ssh`), so nothing is set up twice:
//! an unencrypted OpenSSH private key file signs by itself; a key that is only public
//! here (a `.pub` file, git's `key::ssh-ed25519 …`) or protected by a passphrase signs
//! through a running ssh-agent. Debate never asks for a passphrase: it does not own
//! the terminal it would ask on.
//!
//! Only ed25519: it is deterministic (the same message gives the same signature, so
//! tests pin bytes), it is what Open Decision Receipts sign with, and its seed signs
//! a receipt with plain Ed25519 as it signs an SSH signature.

use std::fmt;
use std::path::{Path, PathBuf};

use ed25519_dalek::Signer as _;
use ssh_key::public::{Ed25519PublicKey, KeyData};
use ssh_key::{HashAlg, PrivateKey};

use super::agent::Agent;
use super::error::{AttestError, Result};

/// An ed25519 public key: the 32 bytes receipts and signatures name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey([u8; 32]);

impl PublicKey {
    /// A key as OpenSSH writes it on one line: `ssh-ed25519 AAAA… [comment]`. The text
    /// is never repeated in the error: it may be a private key given by mistake.
    pub fn from_openssh(line: &str) -> Result<PublicKey> {
        let key = ssh_key::PublicKey::from_openssh(line.trim())
            .map_err(|err| AttestError::Key(format!("not an OpenSSH public key ({err})")))?;
        PublicKey::from_key_data(key.key_data())
    }

    /// The ed25519 key in an SSH key's data; any other kind is refused by name.
    pub(crate) fn from_key_data(data: &KeyData) -> Result<PublicKey> {
        match data.ed25519() {
            Some(key) => Ok(PublicKey(key.0)),
            None => Err(AttestError::Key(format!(
                "a {} key; debate signs and verifies with ed25519 keys only",
                data.algorithm()
            ))),
        }
    }

    pub(crate) fn key_data(&self) -> KeyData {
        KeyData::Ed25519(Ed25519PublicKey(self.0))
    }

    /// The raw 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key's fingerprint as `ssh-keygen -l` shows it (`SHA256:…`), to name it in messages.
    pub fn fingerprint(&self) -> String {
        self.key_data().fingerprint(HashAlg::Sha256).to_string()
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.fingerprint())
    }
}

/// A key that can sign: its seed read from a file, or held by an ssh-agent.
pub struct Signer {
    public: PublicKey,
    holder: Holder,
}

enum Holder {
    Seed(ed25519_dalek::SigningKey),
    /// The agent's socket: connected to for each signature, which is rare, so no
    /// connection is held open between them.
    Agent(PathBuf),
}

impl Signer {
    /// The signer a key file names, as `ssh-keygen -Y sign -f FILE` reads it: an
    /// unencrypted OpenSSH private key signs itself; a public key, or a private key
    /// protected by a passphrase, signs through the ssh-agent at `agent` when it holds
    /// the key. A passphrase is never asked for.
    pub fn from_file(path: &Path, agent: Option<&Path>) -> Result<Signer> {
        let text =
            std::fs::read_to_string(path).map_err(|source| AttestError::Read { path: path.to_path_buf(), source })?;
        let named = |message: String| AttestError::Key(format!("the key {}: {message}", path.display()));
        let (public, encrypted) = if text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
            let private = PrivateKey::from_openssh(&text).map_err(|err| named(format!("unreadable ({err})")))?;
            let public = PublicKey::from_key_data(private.public_key().key_data()).map_err(|e| named(e.to_string()))?;
            if !private.is_encrypted() {
                return Signer::from_private(&private).map_err(|e| named(e.to_string()));
            }
            (public, true)
        } else {
            (PublicKey::from_openssh(&text).map_err(|e| named(e.to_string()))?, false)
        };
        let why = if encrypted {
            "is protected by a passphrase, which debate never asks for"
        } else {
            "is a public key, whose private half only an ssh-agent can use"
        };
        match agent {
            None => Err(named(format!("{why}, and there is no ssh-agent (SSH_AUTH_SOCK) to sign with"))),
            Some(socket) => Signer::from_agent(socket, public).map_err(|err| named(format!("{why}; {err}"))),
        }
    }

    fn from_private(private: &PrivateKey) -> Result<Signer> {
        let Some(pair) = private.key_data().ed25519() else {
            return Err(AttestError::Key(format!(
                "a {} key; debate signs with ed25519 keys only",
                private.algorithm()
            )));
        };
        let seed = ed25519_dalek::SigningKey::from_bytes(&pair.private.to_bytes());
        // A file whose public half is not its private half's would sign with a key
        // other than the one it names.
        if seed.verifying_key().to_bytes() != pair.public.0 {
            return Err(AttestError::Key("its public key is not its private key's".into()));
        }
        Ok(Signer { public: PublicKey(pair.public.0), holder: Holder::Seed(seed) })
    }

    /// The key `public`, held by the ssh-agent listening on `socket`.
    pub fn from_agent(socket: &Path, public: PublicKey) -> Result<Signer> {
        if !Agent::at(socket).ed25519_keys()?.contains(public.as_bytes()) {
            return Err(AttestError::Agent(format!("the agent does not hold the key {}", public.fingerprint())));
        }
        Ok(Signer { public, holder: Holder::Agent(socket.to_path_buf()) })
    }

    /// The public half.
    pub fn public(&self) -> PublicKey {
        self.public
    }

    /// The plain Ed25519 signature (RFC 8032) of `message`.
    pub fn sign(&self, message: &[u8]) -> Result<[u8; 64]> {
        match &self.holder {
            Holder::Seed(key) => Ok(key.sign(message).to_bytes()),
            Holder::Agent(socket) => {
                let signature = Agent::at(socket).sign(self.public.as_bytes(), message)?;
                // An agent that signed with another key (or badly) is caught here.
                let key = ed25519_dalek::VerifyingKey::from_bytes(self.public.as_bytes())
                    .map_err(|err| AttestError::Agent(format!("the key {}: {err}", self.public.fingerprint())))?;
                key.verify_strict(message, &ed25519_dalek::Signature::from_bytes(&signature))
                    .map_err(|_| AttestError::Agent("gave a signature that does not verify".into()))?;
                Ok(signature)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attest::testing::keygen;

    fn refused(path: &Path) -> String {
        Signer::from_file(path, None).err().expect("refused").to_string()
    }

    #[test]
    fn a_key_file_signs_with_its_own_public_key() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id", "ed25519", "");
        let signer = Signer::from_file(&key, None).unwrap();
        let line = std::fs::read_to_string(key.with_extension("pub")).unwrap();
        assert_eq!(signer.public(), PublicKey::from_openssh(&line).unwrap());
        let signature = ed25519_dalek::Signature::from_bytes(&signer.sign(b"text").unwrap());
        let public = ed25519_dalek::VerifyingKey::from_bytes(signer.public().as_bytes()).unwrap();
        public.verify_strict(b"text", &signature).unwrap();
        // The fingerprint is ssh-keygen's.
        let listed = std::process::Command::new("ssh-keygen").arg("-lf").arg(&key).output().unwrap();
        assert!(String::from_utf8(listed.stdout).unwrap().contains(&signer.public().fingerprint()));
    }

    #[test]
    fn a_key_that_cannot_sign_here_is_refused_by_name_and_never_asks() {
        let dir = tempfile::tempdir().unwrap();
        let encrypted = keygen(dir.path(), "locked", "ed25519", "correct horse");
        let err = refused(&encrypted);
        assert!(err.contains("locked") && err.contains("passphrase") && err.contains("ssh-agent"), "{err}");

        let public = refused(&encrypted.with_extension("pub"));
        assert!(public.contains("is a public key") && public.contains("no ssh-agent"), "{public}");

        let rsa = refused(&keygen(dir.path(), "rsa", "rsa", ""));
        assert!(rsa.contains("ssh-rsa key") && rsa.contains("ed25519 keys only"), "{rsa}");

        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTu\n-----END PRIVATE KEY-----\n")
            .unwrap();
        let err = refused(&garbage);
        assert!(err.contains("not an OpenSSH public key") && !err.contains("MC4C"), "never repeats a key: {err}");

        let missing = refused(&dir.path().join("missing"));
        assert!(missing.starts_with("cannot read") && missing.contains("missing"), "{missing}");
    }

    #[test]
    fn an_agent_that_is_not_there_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id", "ed25519", "");
        let public = Signer::from_file(&key, None).unwrap().public();
        let err = Signer::from_agent(&dir.path().join("no.sock"), public).err().unwrap().to_string();
        assert!(err.starts_with("ssh-agent: cannot connect to") && err.contains("no.sock"), "{err}");
    }
}
