//! Which key signs a repository's records, and whose keys a repository knows: the key
//! git signs commits with (`gpg.format=ssh` and `user.signingkey`, a key file or a
//! `key::ssh-ed25519 …` the ssh-agent holds), unless the settings name one
//! (`signing.key`); and git's `gpg.ssh.allowedSignersFile`. Nothing is set up twice,
//! and nothing asks for a passphrase: a key that cannot sign here leaves the record
//! unsigned, saying why, with a warning.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::attest::{PublicKey, Signer};
use crate::record::write::sign::expand_home;

/// Why a record is unsigned when no key is set up.
pub const NO_KEY: &str = "no ssh signing key is set up (git's gpg.format=ssh with user.signingkey, or signing.key)";
/// Why a record is unsigned when the key that is set up could not sign.
pub const KEY_UNUSABLE: &str = "the signing key that is set up could not be used when it was written";

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
    let agent = crate::platform::agent::address();
    let (named, signer) = match (configured, git_key(root)) {
        (Some(path), _) => {
            let path = expand_home(&path.to_string_lossy());
            (format!("signing.key {}", path.display()), Signer::from_file(&path, agent.as_deref()))
        }
        (None, Some(GitKey::Literal(line))) => {
            let signer = PublicKey::from_openssh(&line).and_then(|public| match &agent {
                Some(socket) => Signer::from_agent(socket, public),
                None => Err(crate::attest::AttestError::Key(
                    "it is a public key, whose private half only an ssh-agent can use, and there is no ssh-agent (SSH_AUTH_SOCK)"
                        .into(),
                )),
            });
            ("git's user.signingkey".to_string(), signer)
        }
        (None, Some(GitKey::File(path))) => {
            (format!("git's user.signingkey {}", path.display()), Signer::from_file(&path, agent.as_deref()))
        }
        (None, None) => return Loaded { signer: None, unsigned: NO_KEY, warning: None },
    };
    match signer {
        Ok(signer) => Loaded { signer: Some(signer), unsigned: NO_KEY, warning: None },
        Err(err) => Loaded {
            signer: None,
            unsigned: KEY_UNUSABLE,
            warning: Some(format!(
                "records are written unsigned: {named} cannot sign ({err}); add it to an ssh-agent (ssh-add), or set signing.key to a key that can"
            )),
        },
    }
}

/// The key git signs with, as `user.signingkey` gives it.
enum GitKey {
    /// `key::ssh-ed25519 AAAA…` or `ssh-ed25519 AAAA…`: a public key an agent holds.
    Literal(String),
    File(PathBuf),
}

/// git's ssh signing key for the repository at `root`, when git signs with ssh.
fn git_key(root: &Path) -> Option<GitKey> {
    let config = git_config(root)?;
    let text = |key: &str| config.get_string(key).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if text("gpg.format").as_deref() != Some("ssh") {
        return None;
    }
    let key = text("user.signingkey")?;
    Some(match key.strip_prefix("key::") {
        Some(literal) => GitKey::Literal(literal.to_string()),
        None if key.starts_with("ssh-") => GitKey::Literal(key),
        None => GitKey::File(expand_home(&key)),
    })
}

/// The allowed-signers file git's config names (`gpg.ssh.allowedSignersFile`) for the
/// repository at `root`; a relative path is taken from the repository's root.
pub fn allowed_signers_file(root: &Path) -> Option<PathBuf> {
    let config = git_config(root)?;
    let file = config.get_string("gpg.ssh.allowedSignersFile").ok().filter(|v| !v.trim().is_empty())?;
    let path = expand_home(file.trim());
    Some(if path.is_relative() { root.join(path) } else { path })
}

/// The repository's git config (with the user's and the system's), or the user's
/// outside a repository.
fn git_config(root: &Path) -> Option<git2::Config> {
    match crate::repo::open(root).ok().flatten() {
        Some(repo) => repo.config().ok(),
        None => git2::Config::open_default().ok(),
    }
}
