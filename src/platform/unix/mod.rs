//! Unix: files through `openat` and `O_NOFOLLOW`, the terminal through termios and
//! `poll`, signals, the agent's socket (rustix and the standard library).

pub mod agent;
pub mod console;
pub mod dir;
pub mod files;
pub mod path;
pub mod signals;
pub mod stdout;
