//! The REST calls a review in a pull request makes: react to the comment, ask for the
//! commenter's permission on the repository, read the pull request (its branch, and
//! whether it comes from a fork) and answer in its thread; and the one comment `debate
//! check` keeps on a pull request, created, edited or deleted. The address is
//! `GITHUB_API_URL` (Actions sets it; a test points it at a local server), the token
//! `GITHUB_TOKEN`, which joins the secret gate before anything is sent.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::{GithubError, Result};
use crate::text::secrets;

/// Where the repository's pages are (`GITHUB_SERVER_URL`), for links in a reply.
pub fn server_url() -> String {
    std::env::var("GITHUB_SERVER_URL")
        .map_or_else(|_| "https://github.com".into(), |url| url.trim_end_matches('/').into())
}

pub struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

/// What the review needs of a pull request.
#[derive(Debug, Clone, PartialEq)]
pub struct Pull {
    /// The branch its commits are on, in `head_repository`.
    pub head_ref: String,
    /// `owner/name` of the repository the branch is in: another one for a fork (`None`
    /// when that fork was deleted).
    pub head_repository: Option<String>,
    /// The branch it would merge into.
    pub base_ref: String,
}

#[derive(Deserialize)]
struct PullJson {
    head: Side,
    base: Side,
}

#[derive(Deserialize)]
struct Side {
    #[serde(rename = "ref")]
    branch: String,
    repo: Option<RepoJson>,
}

#[derive(Deserialize)]
struct RepoJson {
    full_name: String,
}

/// What became of the comment `keep_comment` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    Created,
    Updated,
    Unchanged,
    Removed,
    /// None was there and none was needed.
    Nothing,
}

impl Kept {
    /// In a word or two, for the job's log.
    pub fn said(self) -> &'static str {
        match self {
            Kept::Created => "created",
            Kept::Updated => "edited",
            Kept::Unchanged => "unchanged",
            Kept::Removed => "removed (or closed)",
            Kept::Nothing => "none needed",
        }
    }
}

/// A comment or an issue, as much as keeping one needs.
#[derive(Deserialize)]
struct Written {
    #[serde(default)]
    id: u64,
    /// An issue's number (none for a comment).
    #[serde(default)]
    number: u64,
    #[serde(default)]
    body: Option<String>,
    user: Option<Author>,
}

#[derive(Deserialize)]
struct Author {
    #[serde(rename = "type", default)]
    kind: String,
}

impl Written {
    fn by_bot(&self) -> bool {
        self.user.as_ref().is_some_and(|u| u.kind == "Bot")
    }

    fn body(&self) -> &str {
        self.body.as_deref().unwrap_or_default()
    }
}

impl Client {
    /// The client the workflow's environment describes.
    pub fn from_env() -> Result<Client> {
        let token =
            std::env::var("GITHUB_TOKEN").ok().filter(|t| !t.is_empty()).ok_or(GithubError::Missing("GITHUB_TOKEN"))?;
        secrets::guard([token.clone()]);
        let base = std::env::var("GITHUB_API_URL").unwrap_or_else(|_| "https://api.github.com".into());
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .user_agent(concat!("debate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|source| GithubError::Http { what: "a client".into(), source })?;
        Ok(Client { http, base: base.trim_end_matches('/').to_string(), token })
    }

    /// Mark the comment as seen (`eyes`) or answered (`rocket`, `confused`); a reaction
    /// already there is no error.
    pub async fn react(&self, repository: &str, comment: u64, content: &str) -> Result<()> {
        let request = self
            .http
            .post(format!("{}/repos/{repository}/issues/comments/{comment}/reactions", self.base))
            .json(&json!({ "content": content }));
        self.send(request, &format!("a reaction to comment {comment}")).await?;
        Ok(())
    }

    /// The commenter's permission on the repository: `admin`, `write` (which `maintain`
    /// maps to), `read` or `none`. Someone who is no collaborator reads as `read` on a
    /// public repository and `none` on a private one.
    pub async fn permission(&self, repository: &str, login: &str) -> Result<String> {
        #[derive(Deserialize)]
        struct Permission {
            permission: String,
        }
        let what = format!("the permission of {login}");
        let login = percent_encoding::utf8_percent_encode(login, percent_encoding::NON_ALPHANUMERIC);
        let request = self.http.get(format!("{}/repos/{repository}/collaborators/{login}/permission", self.base));
        let found: Permission =
            self.send(request, &what).await?.json().await.map_err(|source| GithubError::Http { what, source })?;
        Ok(found.permission)
    }

    pub async fn pull(&self, repository: &str, number: u64) -> Result<Pull> {
        let what = format!("pull request #{number}");
        let request = self.http.get(format!("{}/repos/{repository}/pulls/{number}", self.base));
        let pull: PullJson =
            self.send(request, &what).await?.json().await.map_err(|source| GithubError::Http { what, source })?;
        Ok(Pull {
            head_ref: pull.head.branch,
            head_repository: pull.head.repo.map(|r| r.full_name),
            base_ref: pull.base.branch,
        })
    }

    /// Answer in the pull request's thread; the body passes the secret gate first.
    pub async fn reply(&self, repository: &str, number: u64, body: &str) -> Result<()> {
        let request = self
            .http
            .post(format!("{}/repos/{repository}/issues/{number}/comments", self.base))
            .json(&json!({ "body": secrets::gate(body) }));
        self.send(request, &format!("a reply on #{number}")).await?;
        Ok(())
    }

    /// Keep one comment on the pull request `number`, known by `marker` at its start and
    /// written by a bot (the workflow's token): created with `body` when there is none,
    /// edited when its text differs, deleted when `body` is `None`. A comment of anyone
    /// else is never touched, whatever it says.
    pub async fn keep_comment(&self, repository: &str, number: u64, marker: &str, body: Option<&str>) -> Result<Kept> {
        let body = body.map(|b| format!("{marker}\n{}", secrets::gate(b)));
        let ours =
            self.comments(repository, number).await?.into_iter().find(|c| c.by_bot() && c.body().starts_with(marker));
        let comments = format!("{}/repos/{repository}/issues/comments", self.base);
        match (ours, body) {
            (None, None) => Ok(Kept::Nothing),
            (None, Some(body)) => {
                self.reply(repository, number, &body).await?;
                Ok(Kept::Created)
            }
            (Some(found), Some(body)) if found.body() == body => Ok(Kept::Unchanged),
            (Some(found), Some(body)) => {
                let request = self.http.patch(format!("{comments}/{}", found.id)).json(&json!({ "body": body }));
                self.send(request, &format!("comment {}", found.id)).await?;
                Ok(Kept::Updated)
            }
            (Some(found), None) => {
                let request = self.http.delete(format!("{comments}/{}", found.id));
                self.send(request, &format!("comment {}", found.id)).await?;
                Ok(Kept::Removed)
            }
        }
    }

    /// Keep one open issue, known by `marker` at the start of its body and opened by a
    /// bot: opened as `title` with `body` when there is none, its body edited when it
    /// differs, closed when `body` is `None`.
    pub async fn keep_issue(&self, repository: &str, marker: &str, title: &str, body: Option<&str>) -> Result<Kept> {
        let body = body.map(|b| format!("{marker}\n{}", secrets::gate(b)));
        let issues = format!("{}/repos/{repository}/issues", self.base);
        let ours = self.listed(&format!("{issues}?state=open&per_page=100"), "the open issues").await?;
        let ours = ours.into_iter().find(|i| i.by_bot() && i.body().starts_with(marker));
        let (request, kept) = match (ours, body) {
            (None, None) => return Ok(Kept::Nothing),
            (None, Some(body)) => {
                (self.http.post(&issues).json(&json!({ "title": title, "body": body })), Kept::Created)
            }
            (Some(found), Some(body)) if found.body() == body => return Ok(Kept::Unchanged),
            (Some(found), Some(body)) => {
                (self.http.patch(format!("{issues}/{}", found.number)).json(&json!({ "body": body })), Kept::Updated)
            }
            (Some(found), None) => (
                self.http.patch(format!("{issues}/{}", found.number)).json(&json!({ "state": "closed" })),
                Kept::Removed,
            ),
        };
        self.send(request, &format!("the issue \"{title}\"")).await?;
        Ok(kept)
    }

    /// The pull request's comments, a page of 100 at a time, up to 3,000.
    async fn comments(&self, repository: &str, number: u64) -> Result<Vec<Written>> {
        let url = format!("{}/repos/{repository}/issues/{number}/comments?per_page=100", self.base);
        self.listed(&url, &format!("the comments on #{number}")).await
    }

    /// Every page of a list at `url` (which asks for 100 a page), up to 30 pages.
    async fn listed(&self, url: &str, what: &str) -> Result<Vec<Written>> {
        let mut all = Vec::new();
        for page in 1..=30 {
            let what = what.to_string();
            let request = self.http.get(format!("{url}&page={page}"));
            let found: Vec<Written> =
                self.send(request, &what).await?.json().await.map_err(|source| GithubError::Http { what, source })?;
            let last = found.len() < 100;
            all.extend(found);
            if last {
                break;
            }
        }
        Ok(all)
    }

    async fn send(&self, request: reqwest::RequestBuilder, what: &str) -> Result<reqwest::Response> {
        let response = request
            .bearer_auth(&self.token)
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .send()
            .await
            .map_err(|source| GithubError::Http { what: what.to_string(), source })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let body = response.text().await.unwrap_or_default();
        let message = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["message"].as_str().map(str::to_string))
            .unwrap_or(body);
        let message = secrets::gate(&crate::text::shorten(&crate::text::untrusted::one_line(&message), 300));
        Err(GithubError::Api { what: what.to_string(), status: status.as_u16(), message })
    }
}
