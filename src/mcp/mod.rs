//! `debate mcp`: the decision tools inside coding agents, served over the Model Context
//! Protocol on stdin and stdout. A door like the dashboard: each tool runs a command
//! `app` hands in ([`Commands`]) from the request the command line would build, and
//! answers with the document that command's `--json` prints; the engine reports to the
//! call's own events (progress notifications; checkpoints as elicitation requests, or
//! at 2026-07-28 as input-required results or a task's status).

pub mod arguments;
mod commands;
mod conversation;
mod debates;
mod events;
mod outputs;
mod prompts;
mod replies;
mod scope;
mod server;
mod tasks;
mod tools;
mod transport;

pub use commands::{Commands, Debate, Record, Reply};
pub use server::serve;
