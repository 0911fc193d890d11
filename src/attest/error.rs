//! Why a key, a signature, an allowed-signers file or a receipt could not be used.
//! Every message names the thing and what is wrong with it, since the commands that
//! show it (`debate verify`, `debate export`, the record's signing) print it as it is.

use std::path::PathBuf;

/// What went wrong in `attest`.
#[derive(Debug, thiserror::Error)]
pub enum AttestError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A key that cannot sign or be read: not ed25519, encrypted, malformed.
    #[error("{0}")]
    Key(String),
    /// A key locked with a passphrase that no agent holds: the message says how to unlock it.
    #[error("{0}")]
    Locked(String),
    /// git's signing program did not sign: what it said.
    #[error("{program} could not sign: {why}")]
    Program { program: String, why: String },
    /// The ssh-agent could not be reached, does not hold the key, or refused to sign.
    #[error("ssh-agent: {0}")]
    Agent(String),
    /// An SSH signature that is malformed or does not verify.
    #[error("{0}")]
    Signature(String),
    /// A line of an allowed-signers file that is not in its format.
    #[error("{file}, line {line}: {reason}")]
    AllowedSigners { file: String, line: usize, reason: String },
    /// A key that no allowed signer has, or not for this namespace or time.
    #[error("{0}")]
    Signer(String),
    /// A value that JSON canonicalisation refuses (a number that is not finite).
    #[error("cannot canonicalise the JSON: {0}")]
    Canonical(String),
    /// A receipt's inputs that an Open Decision Receipt cannot carry.
    #[error("{0}")]
    Receipt(String),
}

pub type Result<T> = std::result::Result<T, AttestError>;
