//! The guards in the pull-request loop: `debate check --github-event` run as the
//! workflow's check job runs it, against a stand-in GitHub API that keeps its comments
//! and issues as GitHub does — one comment created, then edited, then deleted as the pull
//! request changes; a stranger's comment with the same marker left alone; a token that
//! may not write said, the check's exit code kept. And `debate list --due --github-issue`
//! keeping one issue of the decisions due for review.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::common::*;

const TOKEN: &str = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
const MARKER: &str = "<!-- debate:check -->";

/// What the stand-in holds: comments on pull request #7 and issues, each `(number,
/// body, author type)`.
#[derive(Default)]
struct Held {
    comments: Vec<(u64, String, &'static str)>,
    issues: Vec<(u64, String, &'static str, bool)>,
    next: u64,
    /// Answer every write with this status (a fork's read-only token: 403).
    refuse_writes: Option<u16>,
}

#[derive(Clone, Default)]
struct StandIn(Arc<Mutex<Held>>);

impl Respond for StandIn {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut held = self.0.lock().unwrap();
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let (verb, path) = (request.method.as_str(), request.url.path().to_string());
        if verb != "GET"
            && let Some(status) = held.refuse_writes
        {
            return ResponseTemplate::new(status)
                .set_body_json(json!({"message": "Resource not accessible by integration"}));
        }
        let page = request.url.query_pairs().find(|(k, _)| k == "page").map_or(1, |(_, v)| v.parse().unwrap());
        let user =
            |kind: &str| json!({"login": if kind == "Bot" { "github-actions[bot]" } else { "mallory" }, "type": kind});
        held.next += 1;
        let id = 1000 + held.next;
        match (verb, path.as_str()) {
            ("GET", "/repos/acme/shop/issues/7/comments") => {
                let all = held.comments.iter().map(|(id, b, k)| json!({"id": id, "body": b, "user": user(k)}));
                let listed: Vec<Value> = if page == 1 { all.collect() } else { Vec::new() };
                ResponseTemplate::new(200).set_body_json(listed)
            }
            ("POST", "/repos/acme/shop/issues/7/comments") => {
                held.comments.push((id, body["body"].as_str().unwrap().to_string(), "Bot"));
                ResponseTemplate::new(201).set_body_json(json!({"id": id}))
            }
            ("GET", "/repos/acme/shop/issues") => {
                let open = held.issues.iter().filter(|i| i.3);
                let all = open.map(|(n, b, k, _)| json!({"id": n, "number": n, "body": b, "user": user(k)}));
                let listed: Vec<Value> = if page == 1 { all.collect() } else { Vec::new() };
                ResponseTemplate::new(200).set_body_json(listed)
            }
            ("POST", "/repos/acme/shop/issues") => {
                held.issues.push((id, body["body"].as_str().unwrap().to_string(), "Bot", true));
                ResponseTemplate::new(201).set_body_json(json!({"number": id}))
            }
            (verb, path) => {
                let number: u64 = path.rsplit('/').next().unwrap().parse().unwrap_or(0);
                if path.starts_with("/repos/acme/shop/issues/comments/") {
                    let at = held.comments.iter().position(|c| c.0 == number);
                    match (verb, at) {
                        ("PATCH", Some(at)) => held.comments[at].1 = body["body"].as_str().unwrap().to_string(),
                        ("DELETE", Some(at)) => {
                            held.comments.remove(at);
                            return ResponseTemplate::new(204);
                        }
                        _ => return ResponseTemplate::new(404),
                    }
                    return ResponseTemplate::new(200).set_body_json(json!({"id": number}));
                }
                match held.issues.iter_mut().find(|i| i.0 == number) {
                    Some(issue) if verb == "PATCH" => {
                        if let Some(text) = body["body"].as_str() {
                            issue.1 = text.to_string();
                        }
                        if body["state"] == "closed" {
                            issue.3 = false;
                        }
                        ResponseTemplate::new(200).set_body_json(json!({"number": number}))
                    }
                    _ => ResponseTemplate::new(404),
                }
            }
        }
    }
}

async fn github() -> (MockServer, StandIn) {
    let server = MockServer::start().await;
    let held = StandIn::default();
    Mock::given(any()).respond_with(held.clone()).mount(&server).await;
    (server, held)
}

const PACKAGE: &str = "{\n  \"dependencies\": {\n    \"pg\": \"^8\"\n  }\n}\n";
const RECORD: &str = "# Sessions in Postgres, not Redis\n\n## Status\n\nAccepted\n\n## Decision Outcome\n\nPostgres.\n\n### Guards\n\n- `forbid dependency redis`\n";

/// A repository whose main branch holds an accepted record forbidding redis, and the
/// pull request's branch checked out as the job checks it out; the event file.
fn pull_request(sandbox: &Sandbox, record_title: &str) -> PathBuf {
    let repo = &sandbox.repo;
    git(repo, &["config", "user.name", "Ada"]);
    git(repo, &["config", "user.email", "ada@example.com"]);
    write(repo, "package.json", PACKAGE);
    write(repo, "docs/adr/0001-sessions.md", &RECORD.replace("Sessions in Postgres, not Redis", record_title));
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "start"]);
    git(repo, &["checkout", "-qb", "sessions"]);
    let event = json!({"action": "opened", "number": 7, "repository": {"full_name": "acme/shop"},
                       "pull_request": {"number": 7, "head": {"ref": "sessions"}, "base": {"ref": "main"}}});
    let file = sandbox.home.join("event.json");
    std::fs::write(&file, event.to_string()).unwrap();
    file
}

fn change(sandbox: &Sandbox, package: &str, requirements: Option<&str>) {
    write(&sandbox.repo, "package.json", package);
    match requirements {
        Some(text) => write(&sandbox.repo, "requirements.txt", text),
        None => {
            let _ = std::fs::remove_file(sandbox.repo.join("requirements.txt"));
        }
    }
    git(&sandbox.repo, &["add", "-A"]);
    git(&sandbox.repo, &["commit", "-qm", "change"]);
}

fn check_job(sandbox: &Sandbox, server: &MockServer, event: &Path) -> (i32, String) {
    let out = sandbox
        .cmd()
        .env("GITHUB_API_URL", server.uri())
        .env("GITHUB_TOKEN", TOKEN)
        .args(["check", "--base", "main", "--github-event", event.to_str().unwrap()])
        .output()
        .unwrap();
    (out.status.code().unwrap(), text(&out.stderr))
}

fn comments(held: &StandIn) -> Vec<(u64, String)> {
    held.0.lock().unwrap().comments.iter().map(|(id, body, _)| (*id, body.clone())).collect()
}

#[tokio::test]
async fn one_comment_is_created_then_updated_then_removed() {
    let sandbox = Sandbox::new();
    let event = pull_request(&sandbox, "Sessions in Postgres, not Redis");
    let (server, held) = github().await;
    // A stranger's comment with the marker is not ours, whatever it says.
    held.0.lock().unwrap().comments.push((1, format!("{MARKER}\nkeep me"), "User"));

    let with_both = "{\n  \"dependencies\": {\n    \"ioredis\": \"^5\",\n    \"pg\": \"^8\"\n  }\n}\n";
    change(&sandbox, with_both, Some("redis==5.0.1\n"));
    let (code, stderr) = check_job(&sandbox, &server, &event);
    assert_eq!(code, 1, "{stderr}");
    let now = comments(&held);
    assert_eq!(now.len(), 2, "one comment created: {now:?}");
    let (ours, body) = now[1].clone();
    assert!(body.starts_with(MARKER), "{body}");
    for named in [
        "package.json line 3: **ioredis** (brings redis)",
        "requirements.txt line 1: **redis**",
        "`forbid dependency redis`",
        "#1 **Sessions in Postgres, not Redis**",
        "docs/adr/0001-sessions.md",
    ] {
        assert!(body.contains(named), "{named} in {body}");
    }

    // One violation left: the same comment, edited.
    change(&sandbox, with_both, None);
    let (code, _) = check_job(&sandbox, &server, &event);
    assert_eq!(code, 1);
    let now = comments(&held);
    assert_eq!(now.len(), 2, "{now:?}");
    assert_eq!(now[1].0, ours, "the same comment");
    assert!(!now[1].1.contains("requirements.txt") && now[1].1.contains("ioredis"), "{}", now[1].1);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.iter().filter(|r| r.method.as_str() == "PATCH").count(), 1);
    // Run again unchanged: nothing written.
    check_job(&sandbox, &server, &event);
    let writes = |requests: &[Request]| requests.iter().filter(|r| r.method.as_str() != "GET").count();
    assert_eq!(writes(&server.received_requests().await.unwrap()), 2, "create and one edit");

    // Nothing left: the comment goes, the stranger's stays.
    change(&sandbox, PACKAGE, None);
    let (code, stderr) = check_job(&sandbox, &server, &event);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(comments(&held), [(1, format!("{MARKER}\nkeep me"))]);
    for request in server.received_requests().await.unwrap() {
        let auth = request.headers.get("authorization").map(|v| v.to_str().unwrap().to_string());
        assert_eq!(auth.as_deref(), Some(format!("Bearer {TOKEN}").as_str()));
    }
}

#[tokio::test]
async fn a_title_cannot_break_the_comment_and_a_read_only_token_keeps_the_exit_code() {
    let sandbox = Sandbox::new();
    let hostile =
        "Sessions @octocat <!-- debate:check --> </details> [x](javascript:alert(1)) <img src=x onerror=alert(1)>";
    let event = pull_request(&sandbox, hostile);
    let (server, held) = github().await;
    change(&sandbox, "{\"dependencies\": {\"redis\": \"4\"}}\n", None);
    let (code, _) = check_job(&sandbox, &server, &event);
    assert_eq!(code, 1);
    let body = comments(&held)[0].1.clone();
    assert_eq!(body.matches("<!--").count(), 1, "only the marker opens a comment: {body}");
    assert!(!body.contains("<img") && !body.contains("</details>"), "{body}");
    assert!(!body.contains("@octocat"), "a title mentions nobody: {body}");

    // A fork's token may not write: said, and the check still fails the job.
    held.0.lock().unwrap().comments.clear();
    held.0.lock().unwrap().refuse_writes = Some(403);
    let (code, stderr) = check_job(&sandbox, &server, &event);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("was not kept up to date") && stderr.contains("403"), "{stderr}");
    assert!(!stderr.contains(TOKEN));
}

#[tokio::test]
async fn the_decisions_due_for_review_are_kept_in_one_issue() {
    let sandbox = Sandbox::new();
    write(&sandbox.repo, "docs/adr/0001-sessions.md", &format!("{RECORD}\n### Review By\n\n2026-01-15\n"));
    let (server, held) = github().await;
    let due = |server: &MockServer| {
        sandbox
            .cmd()
            .env("GITHUB_API_URL", server.uri())
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_REPOSITORY", "acme/shop")
            .args(["list", "--due", "--github-issue"])
            .output()
            .unwrap()
    };
    let out = due(&server);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let issues = held.0.lock().unwrap().issues.clone();
    assert_eq!(issues.len(), 1);
    assert!(
        issues[0].1.contains("**Sessions in Postgres, not Redis** (docs/adr/0001-sessions.md), due 2026-01-15"),
        "{}",
        issues[0].1
    );
    due(&server);
    assert_eq!(held.0.lock().unwrap().issues.len(), 1, "the same issue, not a second");
    // Reviewed: a later date, and the issue closes.
    write(&sandbox.repo, "docs/adr/0001-sessions.md", &format!("{RECORD}\n### Review By\n\n2099-01-15\n"));
    due(&server);
    let issues = held.0.lock().unwrap().issues.clone();
    assert_eq!((issues.len(), issues[0].3), (1, false), "closed once none is due");
}
