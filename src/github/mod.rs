//! The GitHub edge, for the review loop in a pull request (`debate review
//! --github-event`): the comment event Actions hands the job (`event.rs`, pure), the
//! REST calls it needs — the pull request, a reply — on reqwest (`api.rs`), and fetching
//! and pushing the pull request's branch with the `git` command, which holds the
//! credentials Actions configured (`git.rs`).

pub mod api;
pub mod event;
pub mod git;

/// Why the GitHub side of a review could not be done.
#[derive(Debug, thiserror::Error)]
pub enum GithubError {
    #[error("cannot read the event {path}: {why}")]
    Event { path: String, why: String },
    #[error("{0} is not set: the workflow passes it")]
    Missing(&'static str),
    #[error("GitHub answered {status} to {what}: {message}")]
    Api { what: String, status: u16, message: String },
    #[error("cannot reach GitHub for {what}: {source}")]
    Http {
        what: String,
        #[source]
        source: reqwest::Error,
    },
    #[error("git {args}: {message}")]
    Git { args: String, message: String },
}

impl GithubError {
    pub fn exit_code(&self) -> u8 {
        match self {
            GithubError::Event { .. } => 2,
            GithubError::Missing(_) => 4,
            GithubError::Api { .. } | GithubError::Http { .. } => 1,
            GithubError::Git { .. } => 5,
        }
    }

    pub fn hint(&self) -> Option<String> {
        Some(match self {
            GithubError::Event { .. } => "give the file Actions names in $GITHUB_EVENT_PATH".into(),
            GithubError::Missing(_) => "run it from the workflow `debate ci github` writes".into(),
            GithubError::Api { .. } | GithubError::Http { .. } => {
                "check the workflow's permissions (contents and issues: write, pull-requests: read)".into()
            }
            GithubError::Git { .. } => return None,
        })
    }
}

pub type Result<T, E = GithubError> = std::result::Result<T, E>;
