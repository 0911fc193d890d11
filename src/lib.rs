//! `debate`: turn a hard engineering question into a reviewed decision record.
//!
//! Data flows one way: command line → settings → engine → (providers, store) →
//! record. See `docs/architecture.md`.

#![forbid(unsafe_code)]

pub mod adr;
pub mod app;
pub mod attest;
pub mod catalog;
pub mod cli;
pub mod confine;
pub mod context;
pub mod engine;
pub mod error;
pub mod eval;
pub mod github;
pub mod mcp;
pub mod model;
pub mod moderator;
pub mod platform;
pub mod providers;
pub mod record;
pub mod repo;
pub mod serve;
pub mod settings;
pub mod store;
pub mod terminal;
pub mod text;
pub mod view;
