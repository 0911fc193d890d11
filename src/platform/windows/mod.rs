//! Windows: files opened as reparse points and checked on the handle, the console API
//! (through crossterm), console events (through tokio), the agent's named pipe.

pub mod agent;
pub mod console;
pub mod dir;
pub mod files;
pub mod path;
pub mod signals;
pub mod stdout;
