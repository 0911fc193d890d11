//! A record's life after its commit: its status read and changed, earlier records
//! superseded, and its scores written in.

pub mod change;
pub mod scores;
pub mod status;
pub mod supersede;

pub use change::{Changed, Request, Verdict, change};
