//! The `issue_comment` event a pull request comment starts the workflow with, and what
//! the comment asks: `/debate <objection>` on its first line, the objection running on
//! over the lines below; and the `pull_request` event `debate check` answers. Pure.

use serde::Deserialize;

use super::{GithubError, Result};

/// What the review needs of the event.
#[derive(Debug, Clone, PartialEq)]
pub struct Comment {
    /// `owner/name` of the repository the workflow runs in.
    pub repository: String,
    /// The pull request's (issue's) number.
    pub number: u64,
    /// Whether the comment is on a pull request rather than an issue.
    pub on_pull_request: bool,
    /// The comment's own id, which its reactions name.
    pub id: u64,
    pub author: String,
    /// `OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, …
    pub association: String,
    pub body: String,
}

/// The associations whose comments may spend the repository's keys.
const TRUSTED: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

impl Comment {
    pub fn by_collaborator(&self) -> bool {
        TRUSTED.contains(&self.association.as_str())
    }

    /// The objection a `/debate` comment makes: `None` when the comment is not one,
    /// an empty string when it gives none. `/Debate` is one too: the workflow's
    /// `startsWith` ignores case, so whatever starts a job is answered.
    pub fn objection(&self) -> Option<String> {
        let body = self.body.trim_start();
        let rest =
            body.get(.."/debate".len()).filter(|c| c.eq_ignore_ascii_case("/debate")).map(|c| &body[c.len()..])?;
        if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
            // `/debates`, `/debate-foo`: another command.
            return None;
        }
        Some(rest.trim().to_string())
    }
}

#[derive(Deserialize)]
struct Event {
    repository: Repository,
    issue: Issue,
    comment: CommentBody,
}

#[derive(Deserialize)]
struct Repository {
    full_name: String,
}

#[derive(Deserialize)]
struct Issue {
    number: u64,
    #[serde(default)]
    pull_request: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct CommentBody {
    id: u64,
    #[serde(default)]
    body: String,
    author_association: String,
    user: User,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

/// The comment in the event JSON `text` (from `path`, for errors).
pub fn parse(path: &str, text: &str) -> Result<Comment> {
    let event: Event = serde_json::from_str(text).map_err(|err| GithubError::Event {
        path: path.to_string(),
        why: format!("not an issue_comment event ({err})"),
    })?;
    Ok(Comment {
        repository: event.repository.full_name,
        number: event.issue.number,
        on_pull_request: event.issue.pull_request.is_some_and(|p| !p.is_null()),
        id: event.comment.id,
        author: event.comment.user.login,
        association: event.comment.author_association,
        body: event.comment.body,
    })
}

/// The pull request a `pull_request` event is about.
#[derive(Debug, Clone, PartialEq)]
pub struct PullRequest {
    /// `owner/name` of the repository the workflow runs in.
    pub repository: String,
    pub number: u64,
}

/// The pull request in the event JSON `text` (from `path`, for errors).
pub fn parse_pull_request(path: &str, text: &str) -> Result<PullRequest> {
    #[derive(Deserialize)]
    struct Event {
        repository: Repository,
        pull_request: Number,
    }
    #[derive(Deserialize)]
    struct Number {
        number: u64,
    }
    let event: Event = serde_json::from_str(text).map_err(|err| GithubError::Event {
        path: path.to_string(),
        why: format!("not a pull_request event ({err})"),
    })?;
    Ok(PullRequest { repository: event.repository.full_name, number: event.pull_request.number })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(body: &str) -> Comment {
        Comment {
            repository: "acme/shop".into(),
            number: 7,
            on_pull_request: true,
            id: 2511029384,
            author: "rui".into(),
            association: "MEMBER".into(),
            body: body.into(),
        }
    }

    #[test]
    fn a_debate_comment_gives_its_objection_from_its_first_line_on() {
        assert_eq!(comment("/debate what about cost?").objection().as_deref(), Some("what about cost?"));
        assert_eq!(comment("  /debate\nwhat about\ncost?\n").objection().as_deref(), Some("what about\ncost?"));
        assert_eq!(comment("/debate").objection().as_deref(), Some(""));
        assert_eq!(comment("/debate   \n").objection().as_deref(), Some(""));
        assert_eq!(comment("/debates are fun").objection(), None);
        assert_eq!(comment("I think /debate x").objection(), None);
        assert_eq!(comment("/Debate cost?").objection().as_deref(), Some("cost?"), "as the workflow's startsWith");
        assert_eq!(comment("/dé").objection(), None);
    }

    #[test]
    fn only_owners_members_and_collaborators_are_trusted() {
        for (association, trusted) in
            [("OWNER", true), ("MEMBER", true), ("COLLABORATOR", true), ("CONTRIBUTOR", false), ("NONE", false)]
        {
            let c = Comment { association: association.into(), ..comment("/debate x") };
            assert_eq!(c.by_collaborator(), trusted, "{association}");
        }
    }

    #[test]
    fn an_event_that_is_not_a_comment_is_refused_with_the_file() {
        let err = parse("event.json", r#"{"action": "opened"}"#).unwrap_err();
        assert!(err.to_string().starts_with("cannot read the event event.json: not an issue_comment event"), "{err}");
        let issue = r#"{"repository": {"full_name": "a/b"}, "issue": {"number": 3, "pull_request": null},
            "comment": {"id": 1, "body": "/debate x", "author_association": "OWNER", "user": {"login": "a"}}}"#;
        assert!(!parse("e", issue).unwrap().on_pull_request);
    }

    #[test]
    fn a_pull_request_event_names_its_repository_and_number() {
        let event = r#"{"action": "synchronize", "number": 12, "repository": {"full_name": "acme/shop"},
            "pull_request": {"number": 12, "head": {"ref": "x"}}}"#;
        assert_eq!(parse_pull_request("e", event).unwrap(), PullRequest { repository: "acme/shop".into(), number: 12 });
        let err = parse_pull_request("e.json", r#"{"comment": {}}"#).unwrap_err();
        assert!(err.to_string().starts_with("cannot read the event e.json: not a pull_request event"), "{err}");
    }
}
