//! Which key signs a repository's records, and whose keys a repository knows: the key
//! git signs commits with, found as git finds it (`repo::signing`: `user.signingkey` as
//! a key file, a `.pub` beside its private key, a `key::` literal, or
//! `gpg.ssh.defaultKeyCommand`'s key; `gpg.ssh.program` signs when the user set one),
//! unless the settings name one (`signing.key`); and git's
//! `gpg.ssh.allowedSignersFile`. Nothing is set up twice, and nothing asks for a
//! passphrase: a key that cannot sign here leaves the record unsigned, saying why (how
//! to unlock a locked key), with a warning; a repository that signs with OpenPGP gets
//! records that say so.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::attest::{AttestError, ProgramKey, PublicKey, Signer};
use crate::repo::GitConfig;
use crate::repo::config::expand_home;
use crate::repo::signing::{Format, Setup, SshKey};

/// Why a record is unsigned when no key is set up.
pub const NO_KEY: &str = "no ssh signing key is set up (git's gpg.format=ssh with user.signingkey, or signing.key)";
/// Why a record is unsigned when the key that is set up could not sign.
pub const KEY_UNUSABLE: &str = "the signing key that is set up could not be used when it was written";
/// Why a record is unsigned in a repository that signs with OpenPGP.
pub const OPENPGP: &str = "this repository signs with OpenPGP (gpg.format=openpgp), and a record is signed only with an ssh key; its commit carries the OpenPGP signature";
/// Why a record is unsigned in a repository that signs with X.509.
pub const X509: &str = "this repository signs with X.509 (gpg.format=x509), and a record is signed only with an ssh key; its commit carries the X.509 signature";

/// The key a repository's records are signed with, read when the first record is sealed.
pub struct Sealer {
    root: PathBuf,
    /// `signing.key` in the settings, over git's key.
    configured: Option<PathBuf>,
    loaded: OnceLock<Loaded>,
}

/// The signer, or why there is none and what the user should hear of it.
struct Loaded {
    signer: Option<Signer>,
    unsigned: &'static str,
    warning: Option<String>,
}

impl Sealer {
    /// The sealer of the repository at `root`, with the settings' `signing.key` if any.
    pub fn new(root: &Path, configured: Option<PathBuf>) -> Sealer {
        Sealer { root: root.to_path_buf(), configured, loaded: OnceLock::new() }
    }

    /// A sealer that signs with `signer` (tests, and a key already read).
    pub fn with(signer: Signer) -> Sealer {
        let loaded = Loaded { signer: Some(signer), unsigned: NO_KEY, warning: None };
        Sealer { root: PathBuf::new(), configured: None, loaded: OnceLock::from(loaded) }
    }

    /// A sealer that never signs.
    pub fn unsigned() -> Sealer {
        let loaded = Loaded { signer: None, unsigned: NO_KEY, warning: None };
        Sealer { root: PathBuf::new(), configured: None, loaded: OnceLock::from(loaded) }
    }

    fn loaded(&self) -> &Loaded {
        self.loaded.get_or_init(|| load(&self.root, self.configured.as_deref()))
    }

    /// The key that signs, or why none does (as the record says it).
    pub fn signer(&self) -> Result<&Signer, &'static str> {
        let loaded = self.loaded();
        loaded.signer.as_ref().ok_or(loaded.unsigned)
    }

    /// What the user should hear about signing: a key set up that cannot sign.
    pub fn warning(&self) -> Option<String> {
        self.loaded().warning.clone()
    }
}

fn load(root: &Path, configured: Option<&Path>) -> Loaded {
    let agent = crate::attest::running_agent();
    let (named, signer) = match configured {
        Some(path) => {
            let path = expand_home(&path.to_string_lossy());
            (format!("signing.key {}", path.display()), Signer::from_file(&path, agent.as_deref()))
        }
        None => {
            let config = GitConfig::at(root);
            let setup = match Setup::read(&config) {
                Ok(setup) => setup,
                Err(why) => return unusable("git's gpg.format".into(), why),
            };
            match setup.format {
                Format::Ssh => {}
                Format::OpenPgp | Format::X509 if setup.sign_commits || setup.key.is_some() => {
                    let unsigned = if setup.format == Format::OpenPgp { OPENPGP } else { X509 };
                    return Loaded { signer: None, unsigned, warning: None };
                }
                _ => return Loaded { signer: None, unsigned: NO_KEY, warning: None },
            }
            let key = match setup.ssh_key(root) {
                Ok(Some(key)) => key,
                Ok(None) => return Loaded { signer: None, unsigned: NO_KEY, warning: None },
                Err(why) => return unusable("git's ssh signing key".into(), why),
            };
            git_signer(&setup, key, agent.as_deref())
        }
    };
    match signer {
        Ok(signer) => Loaded { signer: Some(signer), unsigned: NO_KEY, warning: None },
        Err(err @ AttestError::Locked(_)) => Loaded {
            signer: None,
            unsigned: KEY_UNUSABLE,
            warning: Some(format!("records are written unsigned: {err}")),
        },
        Err(err) => unusable(named, err.to_string()),
    }
}

/// No signer: the key set up cannot sign, and the warning says why.
fn unusable(named: String, why: String) -> Loaded {
    Loaded {
        signer: None,
        unsigned: KEY_UNUSABLE,
        warning: Some(format!(
            "records are written unsigned: {named} cannot sign ({why}); add it to an ssh-agent (ssh-add), or set signing.key to a key that can"
        )),
    }
}

/// The signer of git's ssh key, as git would sign with it: through `gpg.ssh.program`
/// when the user set one (a password manager's signer); else the key file or the agent
/// that holds it, which sign byte for byte as `ssh-keygen -Y sign` does.
fn git_signer(setup: &Setup, key: SshKey, agent: Option<&Path>) -> (String, crate::attest::Result<Signer>) {
    match key {
        SshKey::File(path) => {
            let named = format!("git's user.signingkey {}", path.display());
            let signer = match setup.default_program() {
                true => Signer::from_file(&path, agent),
                false => PublicKey::of_file(&path)
                    .map(|public| Signer::through_program(&setup.program, ProgramKey::File(path.clone()), public)),
            };
            (named, signer)
        }
        SshKey::Literal(line) => {
            let signer = PublicKey::from_openssh(&line).and_then(|public| match (setup.default_program(), agent) {
                (false, _) => Ok(Signer::through_program(&setup.program, ProgramKey::Literal(line.clone()), public)),
                (true, Some(socket)) => Signer::from_agent(socket, public),
                (true, None) => Err(AttestError::Key(
                    "it is a public key, whose private half only an ssh-agent can use, and there is no ssh-agent (SSH_AUTH_SOCK)"
                        .into(),
                )),
            });
            ("git's signing key".to_string(), signer)
        }
    }
}

/// The allowed-signers file git's config names (`gpg.ssh.allowedSignersFile`) for the
/// repository at `root`; a relative path is taken from the repository's root.
pub fn allowed_signers_file(root: &Path) -> Option<PathBuf> {
    let path = GitConfig::at(root).path("gpg.ssh.allowedSignersFile")?;
    Some(if path.is_relative() { root.join(path) } else { path })
}
