//! One error type for the whole program: what went wrong, what to do about it, and the
//! exit code SPEC §8 assigns to it. `main` prints it in one or two lines.

use std::fmt;

/// The exit-code classes of SPEC §8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    General,
    Input,
    Provider,
    Config,
    Record,
    Interrupted,
    /// A provider error that a shorter prompt may cure.
    ContextLength,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::General => 1,
            Kind::Input => 2,
            Kind::Provider | Kind::ContextLength => 3,
            Kind::Config => 4,
            Kind::Record => 5,
            Kind::Interrupted => 130,
        }
    }
}

#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), hint: None }
    }
    pub fn general(message: impl Into<String>) -> Self {
        Self::new(Kind::General, message)
    }
    pub fn input(message: impl Into<String>) -> Self {
        Self::new(Kind::Input, message)
    }
    pub fn provider(message: impl Into<String>) -> Self {
        Self::new(Kind::Provider, message)
    }
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(Kind::Config, message)
    }
    pub fn record(message: impl Into<String>) -> Self {
        Self::new(Kind::Record, message)
    }
    pub fn interrupted(message: impl Into<String>) -> Self {
        Self::new(Kind::Interrupted, message)
    }
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        Error::general(format!("state database: {err}"))
            .with_hint("check that the --db path (or $DEBATE_HOME) is writable and not used by an older debate version")
    }
}
