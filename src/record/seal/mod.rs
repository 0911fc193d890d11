//! A record's seal (docs/security.md, "What a signed record proves"): the digest of
//! the record in a canonical form, and the signature of that digest by the key git
//! signs with, carried at the record's end so the record vouches for itself wherever it
//! is copied; checked offline from the record alone by `debate verify`.

pub mod block;
pub mod check;
pub mod lifecycle;
pub mod make;
pub mod parts;
pub mod reseal;
pub mod signer;

pub use block::body as unsealed;
pub use check::{Checked, Signed, check};
pub use make::{Act, seal};
pub use reseal::{reseal, status_changed};
pub use signer::{Sealer, allowed_signers_file};
