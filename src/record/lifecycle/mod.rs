//! A record's life after its commit: its status read and changed, earlier records
//! superseded, and its scores or guards amended.

pub mod amend;
pub mod change;
pub mod status;
pub mod supersede;

pub use change::{Changed, Request, change};
