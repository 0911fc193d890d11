//! Every way a command can fail. The modules below keep their own typed errors, with
//! their causes, and each answers `exit_code()` and `hint()` (the README lists the
//! exit codes); this is where they meet, and `main` reports one of them in one
//! or two lines (`-v`: with its causes).

use crate::catalog::CatalogError;
use crate::github::GithubError;
use crate::moderator::selection::SelectionError;
use crate::providers::ProviderError;
use crate::record::RecordError;
use crate::repo::RepoError;
use crate::settings::SettingsError;
use crate::store::StoreError;
use crate::terminal::OutputError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Invalid arguments or input: exit 2.
    #[error("{message}")]
    Input { message: String, hint: Option<String> },
    /// Configuration that cannot be used: exit 4.
    #[error("{message}")]
    Config { message: String, hint: Option<String> },
    /// Interrupted before anything was saved: exit 130.
    #[error("{message}")]
    Interrupted { message: String, hint: Option<String> },
    /// Records that did not verify (exit 1), or that are not signed by a named signer
    /// where one is required (exit 3): `debate verify` has printed each one.
    #[error("{message}")]
    Unverified { message: String, hint: String, code: u8 },
    /// A bug, caught where it could still be answered (a panic in the pull-request
    /// handler): exit 1.
    #[error("internal error: {0}")]
    Internal(String),
    /// Stopped by a signal, every finished step saved: exit 128 + the signal's number.
    #[error("stopped by {}; every finished step is saved", signal.name())]
    Stopped { signal: Signal },
    #[error(transparent)]
    Repository(#[from] RepoError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    Selection(#[from] SelectionError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error(transparent)]
    Github(#[from] GithubError),
    /// A failure that left the debate paused: exit code and message of the failure,
    /// and the way to resume.
    #[error("{source}")]
    Paused {
        id: String,
        #[source]
        source: Box<Error>,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The signals that stop a debate; each pauses it like a checkpoint's Pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Ctrl-C (SIGINT).
    Interrupt,
    /// SIGTERM: a service manager, `kill`, a closing container.
    Terminate,
    /// SIGHUP: the terminal went away.
    HangUp,
    /// Ctrl-Break (Windows).
    Break,
    /// The console closing, or the user logging off (Windows).
    Closed,
    /// Not a signal: the front end that runs the debate stopped it (an MCP client
    /// cancelled its request or closed the connection).
    Cancelled,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "Ctrl-C",
            Signal::Terminate => "SIGTERM",
            Signal::HangUp => "SIGHUP",
            Signal::Break => "Ctrl-Break",
            Signal::Closed => "the console closing",
            Signal::Cancelled => "the client's cancellation",
        }
    }

    /// 128 + the signal's number, as a shell reports a process the signal killed; on
    /// Windows, Ctrl-Break as Ctrl-C and a closing console as a hang-up.
    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt | Signal::Break => 130,
            Signal::Terminate => 143,
            Signal::HangUp | Signal::Closed => 129,
            Signal::Cancelled => 130,
        }
    }
}

impl Error {
    pub fn input(message: impl Into<String>) -> Error {
        Error::Input { message: message.into(), hint: None }
    }

    pub fn config(message: impl Into<String>) -> Error {
        Error::Config { message: message.into(), hint: None }
    }

    pub fn unverified(message: impl Into<String>, hint: impl Into<String>, code: u8) -> Error {
        Error::Unverified { message: message.into(), hint: hint.into(), code }
    }

    pub fn interrupted(message: impl Into<String>) -> Error {
        Error::Interrupted { message: message.into(), hint: None }
    }

    /// The debate a failure left paused, if one did.
    pub fn paused(&self) -> Option<&str> {
        match self {
            Error::Paused { id, .. } => Some(id),
            _ => None,
        }
    }

    /// The same error with this hint (for the kinds that carry their own).
    pub fn with_hint(mut self, text: impl Into<String>) -> Error {
        if let Error::Input { hint, .. } | Error::Config { hint, .. } | Error::Interrupted { hint, .. } = &mut self {
            *hint = Some(text.into());
        }
        self
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Input { .. } => 2,
            Error::Config { .. } => 4,
            Error::Interrupted { .. } => 130,
            Error::Unverified { code, .. } => *code,
            Error::Internal(_) => 1,
            Error::Stopped { signal } => signal.exit_code(),
            Error::Repository(err) => err.exit_code(),
            Error::Settings(err) => err.exit_code(),
            Error::Catalog(err) => err.exit_code(),
            Error::Selection(err) => err.exit_code(),
            Error::Provider(err) => err.exit_code(),
            Error::Store(err) => err.exit_code(),
            Error::Record(err) => err.exit_code(),
            Error::Output(err) => err.exit_code(),
            Error::Github(err) => err.exit_code(),
            Error::Paused { source, .. } => source.exit_code(),
        }
    }

    /// What to do about it, in one line.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Input { hint, .. } | Error::Config { hint, .. } | Error::Interrupted { hint, .. } => hint.clone(),
            Error::Unverified { hint, .. } => Some(hint.clone()),
            Error::Internal(_) => Some("please report this with the command you ran".into()),
            Error::Stopped { .. } => None,
            Error::Repository(err) => err.hint(),
            Error::Settings(err) => err.hint(),
            Error::Catalog(err) => err.hint(),
            Error::Selection(err) => err.hint(),
            Error::Provider(err) => err.hint(),
            Error::Store(err) => err.hint(),
            Error::Record(err) => err.hint(),
            Error::Output(err) => err.hint(),
            Error::Github(err) => err.hint(),
            Error::Paused { id, source } => Some(match source.hint() {
                Some(hint) => format!("{hint}; the debate is paused: {}", source.resume_command(id)),
                None => format!("the debate is paused; continue it with: {}", source.resume_command(id)),
            }),
        }
    }

    /// The command that continues debate `id` after this failure: with a higher cap when
    /// the cap stopped it.
    pub fn resume_command(&self, id: &str) -> String {
        let flags = match self {
            Error::Provider(err) => err.resume_flags(),
            Error::Paused { source, .. } => return source.resume_command(id),
            _ => None,
        };
        match flags {
            Some(flags) => format!("debate resume {id} {flags}"),
            None => format!("debate resume {id}"),
        }
    }

    /// The chain of causes below the message, outermost first; a cause the line above
    /// already says is left out.
    pub fn causes(&self) -> Vec<String> {
        let mut causes: Vec<String> = Vec::new();
        let mut above = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            let text = cause.to_string();
            if !above.contains(&text) {
                causes.push(text.clone());
            }
            above = text;
            source = cause.source();
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_add_only_what_the_message_does_not_say() {
        let sqlite = rusqlite::Connection::open_in_memory().unwrap().execute("NOT SQL", []).unwrap_err();
        let err = Error::from(StoreError::Sqlite(sqlite));
        assert!(err.to_string().starts_with("state database: "), "{err}");
        assert_eq!(err.exit_code(), 1);
        let paused = Error::Paused { id: "DEB-abc123".into(), source: Box::new(err) };
        assert_eq!(paused.exit_code(), 1, "a pause keeps the exit code of its cause");
        let causes = paused.causes();
        assert!(causes.iter().all(|c| !paused.to_string().contains(c.as_str())), "{causes:?}");
        assert!(paused.hint().unwrap().ends_with("the debate is paused: debate resume DEB-abc123"));
    }

    #[test]
    fn each_kind_of_failure_has_its_exit_code() {
        let cases: Vec<(Error, u8)> = vec![
            (Error::input("empty question"), 2),
            (StoreError::UnknownId("DEB-x".into()).into(), 2),
            (RecordError::BranchExists("main".into()).into(), 2),
            (ProviderError::Refused { message: "HTTP 401".into(), hint: None, status: Some(401) }.into(), 3),
            (ProviderError::Setup { message: "no key".into(), hint: None }.into(), 4),
            (Error::config("bad"), 4),
            (RecordError::NoOutcome.into(), 5),
            (Error::interrupted("Ctrl-C"), 130),
        ];
        for (err, code) in cases {
            assert_eq!(err.exit_code(), code, "{err}");
        }
    }
}
