//! The command line resolved once: flags joined wherever they stand, the typed request
//! each command takes, and one run's description built from flags and settings.

pub mod flags;
pub mod request;
pub mod resolve;
