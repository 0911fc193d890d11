//! The commands, one file each: what each does with the typed request it is given.

pub mod baseline;
pub mod check;
pub mod ci;
pub mod completion;
pub mod config;
pub mod dashboard;
pub mod doctor;
pub mod eval;
pub mod export;
pub mod github_review;
pub mod give_up;
pub mod guard;
pub mod lifecycle;
pub mod list;
pub mod manual;
pub mod mcp;
pub mod resume;
pub mod search;
pub mod show;
pub mod start;
pub mod suite;
pub mod trust;
pub mod usage;
pub mod verify;
