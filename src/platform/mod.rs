//! What differs between Unix and Windows, one job a file and the same interface on both,
//! so the rest of the crate is written once: directories and files opened without
//! following links (`dir`, `files`), the terminal (`console`), what stops a debate
//! (`signals`), the ssh-agent's connection (`agent`), stdout kept for a protocol
//! (`stdout`) and a `file:` URI's path (`path`).

pub mod stop;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(unix)]
pub use unix::{agent, console, dir, files, path, signals, stdout};
#[cfg(windows)]
pub use windows::{agent, console, dir, files, path, signals, stdout};
