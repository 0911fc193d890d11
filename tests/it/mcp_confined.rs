//! `debate mcp` works only where it was allowed (issue 49, items 1, 2, 3 and 14; issue 52,
//! "confinement by the server"): a server started in repository A refuses to start,
//! resume or show a debate of repository B — named by B's path, by B's record, or by a
//! debate id of B's — and B is left as it was; roots a client sends narrow what the
//! server allows and never widen it, and roots that name no directory here narrow it to
//! nothing; a record's relative path is the repository's, never the server's working
//! directory's; and two resumptions of one debate at once run it once, the other told
//! it is already running.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::llm::{MockLlm, ok, reply};
use crate::common::*;
use crate::mcp::{Session, text_of};

fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

/// A git repository with an identity for commits at `dir`.
fn repository_at(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    std::fs::canonicalize(dir).unwrap()
}

/// The sandbox's repository (A), with an identity for commits.
fn sandbox() -> Sandbox {
    let sandbox = Sandbox::new();
    repository_at(&sandbox.repo);
    sandbox
}

/// Everything under a repository, git's objects and refs included, with its bytes:
/// two equal snapshots mean nothing in it changed.
fn everything(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, found: &mut Vec<(PathBuf, Vec<u8>)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, found);
            } else {
                found.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    let mut found = Vec::new();
    walk(root, &mut found);
    found
}

fn offline(question: &str, rounds: u32) -> Value {
    json!({"question": question, "offline": true, "max_rounds": rounds})
}

/// A debate of the repository at `dir` (a session started there), paused at its first
/// checkpoint: its id.
fn paused_in(sandbox: &Sandbox, dir: &Path, question: &str) -> String {
    let elicits = json!({"elicitation": {"form": {}}});
    let mut session = Session::open(sandbox, dir, &[], &[], elicits);
    let call = session.ask("tools/call", json!({"name": "start_debate", "arguments": offline(question, 3)}));
    let asked = session.until("the first checkpoint", |m| m["method"] == "elicitation/create");
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "cancel"}}));
    let result = session.answer(call)["result"].clone();
    assert_eq!(result["structuredContent"]["status"], "paused", "{result}");
    session.close();
    result["structuredContent"]["id"].as_str().unwrap().to_string()
}

/// A complete offline debate of the repository at `dir`, run by a session started there:
/// its id and its record's path in the repository.
fn complete_in(sandbox: &Sandbox, dir: &Path, question: &str) -> (String, String) {
    let mut session = Session::open(sandbox, dir, &[], &[], json!({}));
    let result = session.call("start_debate", offline(question, 1));
    assert!(!is_error(&result), "{result}");
    session.close();
    let debate = &result["structuredContent"];
    let record = debate["record_path"].as_str().unwrap_or_else(|| panic!("a record: {debate}"));
    let relative = Path::new(record).strip_prefix(dir).map(Path::to_path_buf).unwrap_or_else(|_| record.into());
    (debate["id"].as_str().unwrap().to_string(), relative.display().to_string())
}

/// Issue 49.1 and 52's acceptance: a server started in A refuses B by path, by record
/// and by debate id — start, resume, show, review, verify, status, evaluate, search and
/// the resources — and B is unchanged.
#[test]
fn a_server_started_in_a_refuses_every_door_into_b_and_b_is_unchanged() {
    let sandbox = sandbox();
    let b = repository_at(&sandbox.repo.parent().unwrap().join("b"));
    let paused = paused_in(&sandbox, &b, "Kafka or RabbitMQ for the order events?");
    let (complete, record) = complete_in(&sandbox, &b, QUESTION);
    let before = everything(&b);

    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let b_path = b.display().to_string();
    let absolute_record = b.join(&record).display().to_string();
    let refused = [
        ("start_debate", json!({"question": QUESTION, "offline": true, "repository": b_path})),
        ("resume_debate", json!({"id": paused})),
        ("resume_debate", json!({"id": paused, "repository": b_path})),
        ("show_debate", json!({"id": complete})),
        ("show_debate", json!({"id": paused.to_lowercase()[..8]})),
        ("show_debate", json!({"id": absolute_record})),
        ("show_debate", json!({"id": record, "repository": b_path})),
        ("review_decision", json!({"id": complete, "objection": "Weigh the cost of running Redis."})),
        ("verify_decision", json!({"id": absolute_record})),
        ("set_decision_status", json!({"id": complete, "status": "accepted"})),
        ("set_decision_status", json!({"id": absolute_record, "status": "accepted"})),
        ("evaluate_decision", json!({"id": complete, "offline": true})),
        ("search_decisions", json!({"query": "caching", "repository": b_path})),
        ("list_debates", json!({"repository": b_path})),
    ];
    for (tool, arguments) in refused {
        let result = session.call(tool, arguments.clone());
        assert!(is_error(&result), "{tool} {arguments} was not refused: {result}");
        let said = text_of(&result);
        assert!(said.contains("outside what this server may touch"), "{tool} {arguments}: {said}");
        assert!(result.get("structuredContent").is_none_or(Value::is_null), "{tool} showed B: {result}");
    }
    // The listing of every repository leaves B's debates out.
    let all = session.call("list_debates", json!({"all": true}));
    assert!(!text_of(&all).contains(&paused) && !text_of(&all).contains(&complete), "{all}");
    let read = session.request("resources/read", json!({"uri": format!("decision://{complete}")}));
    assert!(read["error"]["message"].as_str().is_some_and(|m| m.contains("no decision record")), "{read}");
    session.close();

    assert_eq!(everything(&b), before, "nothing in B changed");
    assert_eq!(sandbox.show(&paused)["status"], "paused", "B's paused debate is still paused");
    assert!(sandbox.records().is_empty(), "nothing was written into A either");
}

/// Issue 49.1 as the probe found it: the client's roots name A only, and a debate of
/// B's, paused, is resumed by id.
#[test]
fn resume_by_id_of_a_debate_outside_the_roots_is_refused() {
    let sandbox = sandbox();
    let out = repository_at(&sandbox.repo.parent().unwrap().join("out"));
    let paused = paused_in(&sandbox, &out, "Kafka or RabbitMQ for the order events?");
    let before = everything(&out);
    let roots = json!({"roots": {"listChanged": false}});
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], roots);
    let call = session.ask("tools/call", json!({"name": "resume_debate", "arguments": {"id": paused}}));
    let listing = session.until("the roots request", |m| m["method"] == "roots/list");
    let root = json!([{"uri": format!("file://{}", sandbox.repo.display()), "name": "project"}]);
    session.send(json!({"jsonrpc": "2.0", "id": listing["id"], "result": {"roots": root}}));
    let result = session.answer(call)["result"].clone();
    assert!(is_error(&result), "{result}");
    assert!(text_of(&result).contains("outside what this server may touch"), "{result}");
    session.close();
    assert_eq!(everything(&out), before, "nothing in OUT changed");
    assert_eq!(sandbox.show(&paused)["status"], "paused");
}

/// Issue 49.2: roots that name no directory on this machine narrow what the server
/// allows to nothing; they never lift its confinement.
#[test]
fn roots_that_name_no_directory_here_narrow_the_server_to_nothing() {
    let sandbox = sandbox();
    let b = repository_at(&sandbox.repo.parent().unwrap().join("b"));
    let before = (everything(&b), everything(&sandbox.repo));
    let roots = json!({"roots": {"listChanged": false}});
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], roots);
    let remote = json!([
        {"uri": format!("file://far-host{}", sandbox.repo.display()), "name": "far"},
        {"uri": "https://example.com/project", "name": "web"}
    ]);
    let b_path = b.display().to_string();
    for arguments in [
        json!({"question": QUESTION, "offline": true, "repository": b_path}),
        json!({"question": QUESTION, "offline": true}),
    ] {
        let call = session.ask("tools/call", json!({"name": "start_debate", "arguments": arguments}));
        let listing = session.until("the roots request", |m| m["method"] == "roots/list");
        session.send(json!({"jsonrpc": "2.0", "id": listing["id"], "result": {"roots": remote}}));
        let result = session.answer(call)["result"].clone();
        assert!(is_error(&result), "{arguments}: {result}");
        assert!(text_of(&result).contains("the client's roots name no directory"), "{result}");
    }
    session.close();
    assert_eq!((everything(&b), everything(&sandbox.repo)), before, "nothing written anywhere");
}

/// Issue 49.3: a record's relative path is read in the repository the call names, never
/// in the directory the server runs in.
#[test]
fn a_relative_record_path_is_the_repositorys_not_the_servers_working_directorys() {
    let sandbox = sandbox();
    let parent = std::fs::canonicalize(sandbox.repo.parent().unwrap()).unwrap();
    let b = repository_at(&parent.join("b"));
    let (id, record) = complete_in(&sandbox, &b, QUESTION);
    // Started in the directory that holds both repositories: it may touch either.
    let mut session = Session::open(&sandbox, &parent, &[], &[], json!({}));
    let shown = session.call("show_debate", json!({"id": record, "repository": "b"}));
    assert!(!is_error(&shown), "{shown}");
    assert_eq!(shown["structuredContent"]["id"], id.as_str(), "{shown}");
    let verified = session.call("verify_decision", json!({"id": record, "repository": "b"}));
    assert!(!is_error(&verified), "{verified}");
    assert_eq!(verified["structuredContent"]["failed"], 0, "{verified}");
    let accepted = session.call("set_decision_status", json!({"id": record, "repository": "b", "status": "accepted"}));
    assert!(!is_error(&accepted), "{accepted}");
    assert_eq!(accepted["structuredContent"]["status"], "accepted", "{accepted}");
    session.close();
    assert!(git(&b, &["log", "-1", "--format=%s"]).starts_with("docs(decisions): accept"), "committed in B");
}

/// Issue 49.14: two resume_debate calls for one debate at once, its model slow enough
/// that both are in flight together: one runs it to its end, the other is told it is
/// already running; the debate is never left in a round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_resumptions_of_one_debate_at_once_run_it_once() {
    let sandbox = sandbox();
    let mock = MockLlm::with_rule(|body, _| Some(ok(body, &reply(body)).set_delay(Duration::from_millis(200)))).await;
    let config = sandbox.openai_compatible(&mock.base_url(), "", "").display().to_string();
    let env = [("DEBATE_TEST_KEY", "sk-test")];
    let mut session = Session::open(&sandbox, &sandbox.repo, &["--config", &config], &env, json!({}));
    let arguments = json!({"question": QUESTION, "max_rounds": 2});
    let call = session.call_with_progress("start_debate", arguments, "slow");
    let arguing = |m: &Value| m["params"]["message"].as_str().is_some_and(|t| t.contains("arguing"));
    session.until("the debaters to start arguing", arguing);
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": call}}));
    // A cancelled request is answered no more; the debate pauses.
    let id = wait_for("the debate to pause", || {
        let listed = sandbox.try_listed().ok()?;
        let debate = listed.first()?;
        (debate["status"] == "paused").then(|| debate["id"].as_str().unwrap().to_string())
    });

    let first = session.ask("tools/call", json!({"name": "resume_debate", "arguments": {"id": id}}));
    let second = session.ask("tools/call", json!({"name": "resume_debate", "arguments": {"id": id}}));
    let results = [session.answer(first)["result"].clone(), session.answer(second)["result"].clone()];
    let ran: Vec<&Value> = results.iter().filter(|r| !is_error(r)).collect();
    let refused: Vec<&Value> = results.iter().filter(|r| is_error(r)).collect();
    assert_eq!(ran.len(), 1, "one resumption ran: {results:?}");
    assert_eq!(ran[0]["structuredContent"]["status"], "complete", "{results:?}");
    assert!(
        refused.iter().all(|r| text_of(r).contains("already running") && text_of(r).contains(&id)),
        "the other is told it is already running: {results:?}"
    );
    session.close();
    assert_eq!(sandbox.show(&id)["status"], "complete");
}

#[test]
fn an_allowed_directory_that_is_not_there_is_refused_at_start() {
    let sandbox = sandbox();
    let out = sandbox.cmd().args(["mcp", "--allow", "no-such-directory"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--allow no-such-directory: no such directory"), "{}", text(&out.stderr));
}
