//! The ed25519 key that signs, and its public half. The key is the one git signs
//! commits with (`user.signingkey` with `gpg.format=ssh`), found as `ssh-keygen -Y
//! sign` finds it, so nothing is set up twice: a private key file signs by itself
//! unless a passphrase locks it; a public key (a `.pub` file, git's `key::ssh-ed25519
//! …`) signs with its private half beside it, or through a running ssh-agent; and a
//! signing program of git's own (`gpg.ssh.program`) signs through that program. Debate
//! never asks for a passphrase — it does not own the terminal it would ask on — but
//! says how to unlock the key.
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
use super::program::{Program, ProgramKey};

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

    /// The public key of a key file: a private key's own (a locked one's too), a
    /// public key file's, or the `.pub` beside a private key.
    pub fn of_file(path: &Path) -> Result<PublicKey> {
        let named = |err: AttestError| AttestError::Key(format!("the key {}: {err}", path.display()));
        if let Some(private) = read_private(path)? {
            return public_of(&private).map_err(named);
        }
        PublicKey::from_openssh(&read(path)?).map_err(named)
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

/// The ssh-agent the environment names (`SSH_AUTH_SOCK`), as ssh-keygen finds it.
pub fn running_agent() -> Option<PathBuf> {
    crate::platform::agent::address()
}

/// A key that can sign: its seed read from a file, held by an ssh-agent, or signed
/// with by git's signing program.
pub struct Signer {
    public: PublicKey,
    holder: Holder,
}

enum Holder {
    Seed(ed25519_dalek::SigningKey),
    /// The agent's socket: connected to for each signature, which is rare, so no
    /// connection is held open between them.
    Agent(PathBuf),
    /// `gpg.ssh.program`: it makes SSH signatures only.
    Program(Program),
}

impl Signer {
    /// The signer a key file names, as `ssh-keygen -Y sign -f FILE` finds it: an
    /// unlocked private key signs itself; a public key signs with the private key beside
    /// it (`id_ed25519` for `id_ed25519.pub`); either signs through the ssh-agent at
    /// `agent` when the agent holds it. A passphrase is never asked for: a locked key the
    /// agent does not hold is refused, saying how to unlock it.
    pub fn from_file(path: &Path, agent: Option<&Path>) -> Result<Signer> {
        let named = |message: String| AttestError::Key(format!("the key {}: {message}", path.display()));
        let (public, private) = match read_private(path)? {
            Some(private) => {
                (public_of(&private).map_err(|e| named(e.to_string()))?, Some((path.to_path_buf(), private)))
            }
            None => {
                let text = read(path)?;
                let public = PublicKey::from_openssh(&text).map_err(|e| named(e.to_string()))?;
                let beside = path.to_str().and_then(|p| p.strip_suffix(".pub")).map(PathBuf::from);
                let private = match beside.filter(|file| file.is_file()) {
                    Some(file) => read_private(&file)?.map(|private| (file, private)),
                    None => None,
                };
                (public, private)
            }
        };
        if let Some((file, private)) = &private
            && !private.is_encrypted()
        {
            let signer = Signer::from_private(private).map_err(|e| named(e.to_string()))?;
            if signer.public != public {
                return Err(named(format!("it is not the public half of {}", file.display())));
            }
            return Ok(signer);
        }
        let held = match agent.map(|socket| Signer::from_agent(socket, public)) {
            Some(Ok(signer)) => return Ok(signer),
            Some(Err(err)) => format!("and the ssh-agent (SSH_AUTH_SOCK) cannot sign with it ({err})"),
            None => "and there is no ssh-agent (SSH_AUTH_SOCK) to hold it".to_string(),
        };
        match private {
            Some((file, _)) => Err(AttestError::Locked(format!(
                "the key {} is locked with a passphrase, which debate never asks for, {held}: unlock it for this session with `ssh-add {}` (after `eval \"$(ssh-agent)\"` when no agent runs), then run debate again",
                path.display(),
                file.display()
            ))),
            None => Err(named(format!(
                "it is a public key whose private half is not beside it, {held}: add the private key to the agent with `ssh-add`, or name the private key's file"
            ))),
        }
    }

    /// The key `public`, signed with by git's signing program (`gpg.ssh.program`) with
    /// `key`, exactly as git runs it for a commit. Such a signer makes SSH signatures
    /// only.
    pub fn through_program(program: &str, key: ProgramKey, public: PublicKey) -> Signer {
        Signer { public, holder: Holder::Program(Program { program: program.to_string(), key }) }
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

    /// The program that signs for this key, when one does (its SSH signatures are its).
    pub(crate) fn program(&self) -> Option<&Program> {
        match &self.holder {
            Holder::Program(program) => Some(program),
            _ => None,
        }
    }

    /// The plain Ed25519 signature (RFC 8032) of `message`.
    pub fn sign(&self, message: &[u8]) -> Result<[u8; 64]> {
        match &self.holder {
            Holder::Program(program) => Err(AttestError::Key(format!(
                "the key {} signs through {} (git's gpg.ssh.program), which makes SSH signatures only; a plain Ed25519 signature needs the key in a file or an ssh-agent",
                self.public.fingerprint(),
                program.program
            ))),
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

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| AttestError::Read { path: path.to_path_buf(), source })
}

/// The private key in the file at `path`, when it holds one (locked or not).
fn read_private(path: &Path) -> Result<Option<PrivateKey>> {
    let text = read(path)?;
    if !text.contains("-----BEGIN OPENSSH PRIVATE KEY-----") {
        return Ok(None);
    }
    PrivateKey::from_openssh(&text)
        .map(Some)
        .map_err(|err| AttestError::Key(format!("the key {}: unreadable ({err})", path.display())))
}

/// The ed25519 public half of a private key (a locked one's too: it is not encrypted).
fn public_of(private: &PrivateKey) -> Result<PublicKey> {
    PublicKey::from_key_data(private.public_key().key_data())
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
        let unlock = format!("`ssh-add {}`", encrypted.display());
        assert!(err.contains("locked with a passphrase") && err.contains(&unlock), "says how to unlock it: {err}");
        // Its `.pub`, as git's user.signingkey often names it: the private key beside it is locked.
        let public = refused(&encrypted.with_extension("pub"));
        assert!(public.contains("locked with a passphrase") && public.contains(&unlock), "{public}");

        let alone = dir.path().join("alone.pub");
        std::fs::copy(encrypted.with_extension("pub"), &alone).unwrap();
        let alone = refused(&alone);
        assert!(alone.contains("private half is not beside it") && alone.contains("no ssh-agent"), "{alone}");

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
    fn a_public_key_file_signs_with_the_private_key_beside_it_as_ssh_keygen_does() {
        let dir = tempfile::tempdir().unwrap();
        let key = keygen(dir.path(), "id_ed25519", "ed25519", "");
        let signer = Signer::from_file(&key.with_extension("pub"), None).unwrap();
        assert_eq!(signer.public(), Signer::from_file(&key, None).unwrap().public());
        assert!(signer.sign(b"text").is_ok(), "no agent needed");
        assert_eq!(PublicKey::of_file(&key).unwrap(), signer.public());
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
