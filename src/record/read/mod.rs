//! A committed record read back: the debate it carries, checked against the file, and
//! the records a repository holds on its branches.

pub mod back;
pub mod carried;
pub mod listing;
