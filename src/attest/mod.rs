//! Attestation: what makes a record checkable by anyone, offline — its canonical form
//! and digest, an SSH signature by the key git signs with, who that key belongs to
//! (git's allowed-signers file), and the Open Decision Receipt a peer's verifier
//! (`aragora-verify`) accepts. Pure but for reading a key file, talking to an
//! ssh-agent and running git's ssh signing program; the record, the commands and the
//! settings that say which key signs wire it in.

mod agent;
pub mod allowed;
pub mod canonical;
pub mod error;
pub mod key;
pub mod odr;
pub mod program;
pub mod receipt;
pub mod sshsig;
#[cfg(test)]
pub(crate) mod testing;

pub use allowed::AllowedSigners;
pub use error::{AttestError, Result};
pub use key::{PublicKey, Signer, running_agent};
pub use odr::{Failure, Signing, Verified};
pub use program::{Program, ProgramKey};
pub use receipt::{Acceptance, Decision, Participant, Receipt, Role, Stance};
pub use sshsig::{NAMESPACE, SshSignature};
