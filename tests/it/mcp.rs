//! `debate mcp` driven as a client drives it, one JSON-RPC message a line on its stdin:
//! the handshake, the tools and their schemas, an offline debate committed into a real
//! repository with progress on the way, checkpoints answered through elicitation, a call
//! cancelled and a client gone (both pause the debate), the records as resources, every
//! refusal a tool error with nothing written, malformed lines answered, and stdout
//! holding nothing but protocol messages. `mcp_python.rs` does the same with the
//! official Python client.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::llm::{MockLlm, ok, reply};
use crate::common::*;

/// The tools the issue fixes by name.
const TOOLS: [&str; 11] = [
    "check_decisions",
    "check_providers",
    "evaluate_decision",
    "list_debates",
    "resume_debate",
    "review_decision",
    "search_decisions",
    "set_decision_status",
    "show_debate",
    "start_debate",
    "verify_decision",
];

/// A running `debate mcp` and what it wrote on stdout.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: mpsc::Receiver<Value>,
    /// Messages read while waiting for another, in order.
    held: Vec<Value>,
    /// Everything on stdout, as written.
    pub stdout: Arc<Mutex<String>>,
    next_id: i64,
}

impl Session {
    /// `debate mcp` in `dir` with the sandbox's home, initialized by a client that
    /// declares `capabilities`.
    pub fn open(sandbox: &Sandbox, dir: &Path, args: &[&str], env: &[(&str, &str)], capabilities: Value) -> Session {
        let mut session = Session::spawn(sandbox, dir, args, env);
        let answer = session.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                   "clientInfo": {"name": "debate-tests", "version": "1"}}),
        );
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25", "{answer}");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    /// `debate mcp` started, nothing sent yet; `args` are the global flags, then `mcp`
    /// and its own flags when it has any.
    pub fn spawn(sandbox: &Sandbox, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Session {
        let mut cmd = sandbox.std_cmd_as(dir, &sandbox.home);
        // The global flags, then `mcp` and its own flags (`mcp --allow DIR` when given).
        cmd.args(args);
        if !args.contains(&"mcp") {
            cmd.arg("mcp");
        }
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (key, value) in env {
            cmd.env(key, value);
        }
        let mut child = cmd.spawn().expect("debate mcp starts");
        let (sender, messages) = mpsc::channel();
        let stdout = Arc::new(Mutex::new(String::new()));
        let (out, written) = (child.stdout.take().unwrap(), stdout.clone());
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                written.lock().unwrap().push_str(&format!("{line}\n"));
                // Nothing but protocol messages: every line a JSON-RPC 2.0 object.
                let message = match serde_json::from_str::<Value>(&line) {
                    Ok(message) if message["jsonrpc"] == "2.0" => message,
                    _ => json!({"not_protocol": line}),
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session { child, stdin, messages, held: Vec::new(), stdout, next_id: 1 }
    }

    pub fn send(&mut self, message: Value) {
        self.line(&message.to_string());
    }

    /// A line on the server's stdin, as it is.
    pub fn line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").and_then(|_| stdin.flush()).expect("the server reads its stdin");
    }

    /// The next message the server writes that `wanted` accepts; the others are held.
    pub fn until(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.held.iter().position(&wanted) {
            return self.held.remove(at);
        }
        loop {
            match self.messages.recv_timeout(DEADLINE) {
                Ok(message) => {
                    assert!(message.get("not_protocol").is_none(), "stdout holds more than protocol: {message}");
                    if wanted(&message) {
                        return message;
                    }
                    self.held.push(message);
                }
                Err(_) => panic!("waited {DEADLINE:?} for {what}; held: {:?}", self.held),
            }
        }
    }

    /// Send a request; its id.
    pub fn ask(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The answer to request `id`.
    pub fn answer(&mut self, id: i64) -> Value {
        self.until(&format!("the answer to request {id}"), |m| m["id"] == id && m.get("method").is_none())
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.ask(method, params);
        self.answer(id)
    }

    /// `tools/call`: its result (`content`, `structuredContent`, `isError`).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        answer.get("result").cloned().unwrap_or_else(|| panic!("{tool} answered no result: {answer}"))
    }

    /// A tool call with a progress token; its id.
    pub fn call_with_progress(&mut self, tool: &str, arguments: Value, token: &str) -> i64 {
        self.ask("tools/call", json!({"name": tool, "arguments": arguments, "_meta": {"progressToken": token}}))
    }

    /// The progress notifications for `token` held so far, in order.
    pub fn progress(&mut self, token: &str) -> Vec<Value> {
        let mine = |m: &Value| m["method"] == "notifications/progress" && m["params"]["progressToken"] == token;
        let (progress, rest): (Vec<Value>, Vec<Value>) = self.held.drain(..).partition(mine);
        self.held = rest;
        progress.into_iter().map(|m| m["params"].clone()).collect()
    }

    /// Close stdin and wait for the server to exit; its stderr.
    pub fn close(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = wait_for("debate mcp to exit once its input closed", || self.child.try_wait().unwrap());
        let mut stderr = String::new();
        let _ = std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut stderr);
        (status, stderr)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of a tool's result.
pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

/// A repository with an identity for commits, and a session in it.
#[test]
fn an_agent_checks_a_change_against_the_decisions_before_proposing_it() {
    let sandbox = repository();
    write(&sandbox.repo, "package.json", "{\"dependencies\": {\"ioredis\": \"5\"}}\n");
    write(
        &sandbox.repo,
        "docs/adr/0001-sessions.md",
        "# Sessions in Postgres\n\n## Status\n\nAccepted\n\n### Guards\n\n- `forbid dependency redis`\n",
    );
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let checked = session.call("check_decisions", json!({}));
    assert_eq!(checked["isError"], false, "{checked}");
    let found = &checked["structuredContent"]["violations"][0];
    assert_eq!(found["found"]["name"], "ioredis", "{checked}");
    assert_eq!(found["record"]["path"], "docs/adr/0001-sessions.md");
    assert_eq!(checked["structuredContent"]["exit_code"], 1);
    assert!(checked["content"][0]["text"].as_str().unwrap().contains("goes against `forbid dependency redis`"));
    let refused = session.call("check_decisions", json!({"base": "no-such-branch"}));
    assert_eq!(refused["isError"], true, "{refused}");
    let unknown = session.request("tools/call", json!({"name": "check_decisions", "arguments": {"run": "rm -rf /"}}));
    assert!(unknown.get("error").is_some() || unknown["result"]["isError"] == true, "{unknown}");
    let (status, _) = session.close();
    assert!(status.success());
}

fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    sandbox
}

fn offline(question: &str, extra: Value) -> Value {
    let mut arguments = json!({"question": question, "offline": true, "max_rounds": 2});
    arguments.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    arguments
}

#[test]
fn the_tools_are_listed_with_their_schemas_and_descriptions() {
    let sandbox = repository();
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let listed = session.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, TOOLS);
    for tool in tools {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 60), "an agent can act on it: {tool}");
        for (name, property) in schema["properties"].as_object().unwrap() {
            assert!(property["description"].as_str().is_some_and(|d| !d.is_empty()), "{} {name}", tool["name"]);
        }
    }
    let start = tools.iter().find(|t| t["name"] == "start_debate").unwrap();
    assert_eq!(start["inputSchema"]["required"], json!(["question"]));
    assert_eq!(start["inputSchema"]["properties"]["max_rounds"]["maximum"], 20);
    let status = tools.iter().find(|t| t["name"] == "set_decision_status").unwrap();
    let statuses = serde_json::to_string(&status["inputSchema"]).unwrap();
    for word in ["accepted", "rejected", "deprecated"] {
        assert!(statuses.contains(word), "{statuses}");
    }
    let search = tools.iter().find(|t| t["name"] == "search_decisions").unwrap();
    assert!(search["description"].as_str().unwrap().contains("before proposing a change"));
    let (status, _) = session.close();
    assert!(status.success());
}

#[test]
fn an_offline_debate_is_committed_and_answered_with_what_show_json_prints() {
    let sandbox = repository();
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let call = session.call_with_progress("start_debate", offline(QUESTION, json!({})), "run-1");
    let answer = session.answer(call);
    let result = &answer["result"];
    assert!(!is_error(result), "{answer}");
    let text = text_of(result);
    let id = result["structuredContent"]["id"].as_str().unwrap().to_string();
    assert!(text.starts_with(&format!("Debate {id} is complete after")), "{text}");
    assert!(text.contains("═══ Decision ═══") && text.contains("Commit:"), "the decision first, as show: {text}");
    assert!(text.contains("Checkpoints were off: this client cannot ask its user"), "{text}");
    assert_eq!(result["structuredContent"], sandbox.show(&id), "the same document as `debate show --json`");

    // Progress at each step, numbered as it grows, before the result.
    let progress = session.progress("run-1");
    let said: Vec<&str> = progress.iter().map(|p| p["message"].as_str().unwrap()).collect();
    let numbers: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    for step in ["Analysis: choosing the panel", "argument is in", "Round 1 evaluated", "Synthesis", "committed as"] {
        assert!(said.iter().any(|s| s.contains(step)), "no progress for {step:?}: {said:?}");
    }

    let log = git(&sandbox.repo, &["log", "--format=%s%n%b"]);
    assert!(log.contains("docs(decisions): Should we use Redis or Postgres for caching"), "{log}");
    assert!(log.contains(&format!("Debate-Id: {id}")), "{log}");
    assert_eq!(sandbox.records().len(), 1);
    let (status, stderr) = session.close();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains(&format!("Debate {id}")), "what the command says goes to stderr: {stderr}");
}

#[test]
fn the_records_are_found_listed_shown_searched_read_and_given_a_status() {
    let sandbox = repository();
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let result = session.call("start_debate", offline(QUESTION, json!({})));
    let id = result["structuredContent"]["id"].as_str().unwrap().to_string();

    let listed = session.call("list_debates", json!({}));
    let printed = sandbox.cmd().args(["list", "--json"]).output().unwrap();
    let printed: Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(listed["structuredContent"]["debates"], printed, "`debate list --json`'s array");
    assert!(text_of(&listed).contains(&id), "{listed}");

    let shown = session.call("show_debate", json!({"id": id.to_lowercase()[..7]}));
    assert_eq!(shown["structuredContent"], sandbox.show(&id));
    assert!(text_of(&shown).contains("═══ Round 1 ═══"), "the whole debate, as show prints it");

    let found = session.call("search_decisions", json!({"query": "caching in Redis"}));
    let record = &found["structuredContent"]["records"][0];
    assert_eq!((record["id"].as_str(), record["status"].as_str()), (Some(id.as_str()), Some("proposed")), "{found}");
    let printed = sandbox.cmd().args(["search", "caching in Redis", "--json"]).output().unwrap();
    assert_eq!(found["structuredContent"], serde_json::from_slice::<Value>(&printed.stdout).unwrap());

    let resources = session.request("resources/list", json!({}));
    let uri = format!("decision://{id}");
    let listed = resources["result"]["resources"].as_array().unwrap();
    assert!(listed.iter().any(|r| r["uri"] == uri && r["mimeType"] == "text/markdown"), "{resources}");
    let read = session.request("resources/read", json!({"uri": uri}));
    let markdown = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert_eq!(markdown, std::fs::read_to_string(&sandbox.records()[0]).unwrap());
    let missing = session.request("resources/read", json!({"uri": "decision://DEB-zzzzzz"}));
    assert!(missing["error"]["message"].as_str().unwrap().contains("no decision record"), "{missing}");

    let accepted = session.call("set_decision_status", json!({"id": id, "status": "accepted"}));
    assert!(!is_error(&accepted), "{accepted}");
    assert_eq!(accepted["structuredContent"]["status"], "accepted");
    assert!(text_of(&accepted).contains("is now accepted (was proposed); committed as"), "{accepted}");
    let wrong = session.call("set_decision_status", json!({"id": id, "status": "superseded"}));
    assert!(is_error(&wrong), "{wrong}");

    let scored = session.call("evaluate_decision", json!({"id": id, "offline": true}));
    assert!(!is_error(&scored), "{scored}");
    assert!(scored["structuredContent"]["criteria"].as_array().is_some_and(|c| !c.is_empty()), "{scored}");

    let checked = session.call("check_providers", json!({"provider": "offline"}));
    assert!(checked["structuredContent"]["providers"].is_array(), "{checked}");

    // The record as `debate verify --json` finds it; once edited, the section is named.
    let verified = session.call("verify_decision", json!({"id": id}));
    let printed = sandbox.cmd().args(["verify", &id, "--json"]).output().unwrap();
    assert_eq!(verified["structuredContent"], serde_json::from_slice::<Value>(&printed.stdout).unwrap());
    assert_eq!(verified["structuredContent"]["failed"], 0, "{verified}");
    let path = &sandbox.records()[0];
    let text = std::fs::read_to_string(path).unwrap();
    std::fs::write(path, text.replacen("## Decision Outcome", "## Decision Outcome\n\nEdited by hand.", 1)).unwrap();
    let edited = session.call("verify_decision", json!({"id": id}));
    assert_eq!(edited["structuredContent"]["failed"], 1, "{edited}");
    assert!(text_of(&edited).contains("Decision Outcome"), "the section edited: {edited}");

    // A cap refuses a model without a price before anything is sent (the offline one costs nothing).
    let capped =
        session.call("start_debate", offline("Kafka or RabbitMQ?", json!({"max_cost": 0.5, "max_tokens": 100000})));
    assert!(!is_error(&capped), "the offline provider costs nothing: {capped}");
    assert_eq!(sandbox.show(capped["structuredContent"]["id"].as_str().unwrap())["cap"]["usd"], 0.5);
    let refused = session.call("start_debate", offline("Kafka or NATS?", json!({"max_cost": -1})));
    assert!(is_error(&refused), "{refused}");
    session.close();
}

/// The answer to tool call `call`, each checkpoint asked on the way answered with
/// `action` (`continue`, …); how many were asked.
fn answered(session: &mut Session, call: i64, action: &str) -> (Value, usize) {
    let mut asked = 0;
    loop {
        let message = session.until("the result or a checkpoint", |m| {
            m["method"] == "elicitation/create" || (m["id"] == call && m.get("method").is_none())
        });
        if message["method"] != "elicitation/create" {
            return (message["result"].clone(), asked);
        }
        asked += 1;
        let content = json!({"action": action});
        session
            .send(json!({"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept", "content": content}}));
    }
}

/// A checkpoint's elicitation request: the form offers the four answers.
fn checkpoint(session: &mut Session) -> Value {
    let asked = session.until("a checkpoint", |m| m["method"] == "elicitation/create");
    let form = &asked["params"]["requestedSchema"];
    assert_eq!(form["properties"]["action"]["enum"], json!(["continue", "guide", "end", "pause"]), "{asked}");
    assert!(asked["params"]["message"].as_str().unwrap().contains("round 1 of 3 is done"), "{asked}");
    asked
}

fn start(session: &mut Session, arguments: Value) -> i64 {
    session.ask("tools/call", json!({"name": "start_debate", "arguments": arguments}))
}

#[test]
fn a_checkpoint_is_an_elicitation_request_and_cancelling_it_pauses_until_resumed() {
    let sandbox = repository();
    let elicits = json!({"elicitation": {"form": {}}});
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], elicits);

    // Guided after round 1: the guidance is round 2's.
    let call = start(&mut session, offline(QUESTION, json!({"max_rounds": 3})));
    let asked = checkpoint(&mut session);
    let guidance = "Weigh what running Redis costs the on-call team.";
    let content = json!({"action": "guide", "guidance": guidance});
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": content}}));
    let (result, _) = answered(&mut session, call, "continue");
    assert!(!is_error(&result) && !text_of(&result).contains("Checkpoints were off"), "{result}");
    let guided = sandbox.show(result["structuredContent"]["id"].as_str().unwrap());
    assert_eq!(guided["transcript"][1]["guidance"], guidance, "{guided}");

    // Cancelled: paused, and the result names resume_debate.
    let call = start(&mut session, offline("Kafka or RabbitMQ for the order events?", json!({"max_rounds": 3})));
    let asked = checkpoint(&mut session);
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "cancel"}}));
    let result = session.answer(call)["result"].clone();
    let id = result["structuredContent"]["id"].as_str().unwrap().to_string();
    assert!(!is_error(&result), "a pause the user asked for is no failure: {result}");
    assert_eq!(result["structuredContent"]["status"], "paused");
    let said = text_of(&result);
    assert!(said.contains("is paused after 1 round") && said.contains("resume_debate"), "{said}");
    assert!(said.contains("paused at the checkpoint"), "{said}");

    // resume_debate asks again, and completes.
    let call = session.ask("tools/call", json!({"name": "resume_debate", "arguments": {"id": id}}));
    let (result, asked) = answered(&mut session, call, "continue");
    assert!(asked >= 1, "the checkpoint it paused at is asked again");
    assert_eq!(result["structuredContent"]["status"], "complete", "{result}");
    assert!(git(&sandbox.repo, &["log", "--format=%b"]).contains(&format!("Debate-Id: {id}")));
    session.close();
}

/// A session in `sandbox` whose model takes 300 ms over every answer (`mock`), with a
/// debate started and its debaters arguing; the session, the call's id and the settings
/// file.
async fn arguing_slowly(sandbox: &Sandbox) -> (Session, i64, String, MockLlm) {
    let mock = MockLlm::with_rule(|body, _| Some(ok(body, &reply(body)).set_delay(Duration::from_millis(300)))).await;
    let config = sandbox.openai_compatible(&mock.base_url(), "", "").display().to_string();
    let env = [("DEBATE_TEST_KEY", "sk-test")];
    let mut session = Session::open(sandbox, &sandbox.repo, &["--config", &config], &env, json!({}));
    let call = session.call_with_progress("start_debate", json!({"question": QUESTION, "max_rounds": 3}), "slow");
    let arguing = |m: &Value| m["params"]["message"].as_str().is_some_and(|t| t.contains("arguing"));
    session.until("the debaters to start arguing", arguing);
    (session, call, config, mock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_pauses_its_debate_at_a_safe_point_and_the_server_goes_on() {
    let sandbox = repository();
    let (mut session, call, _, _mock) = arguing_slowly(&sandbox).await;
    let reason = "the user changed their mind";
    session.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": call, "reason": reason}}),
    );
    let id = wait_for("the debate to pause", || {
        let listed = sandbox.try_listed().ok()?;
        let debate = listed.first()?;
        (debate["status"] == "paused").then(|| debate["id"].as_str().unwrap().to_string())
    });
    // The server goes on: its next call is answered.
    let listed = session.call("list_debates", json!({}));
    assert_eq!(listed["structuredContent"]["debates"][0]["status"], "paused");
    let resumed = session.call("resume_debate", json!({"id": id}));
    assert_eq!(resumed["structuredContent"]["status"], "complete", "{resumed}");
    let (status, _) = session.close();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_leaves_its_debate_paused() {
    let sandbox = repository();
    let (session, _, config, _mock) = arguing_slowly(&sandbox).await;
    let (status, stderr) = session.close();
    assert!(status.success(), "{stderr}");
    let listed = sandbox.listed();
    assert_eq!(listed[0]["status"], "paused", "{listed:?}");
    let id = listed[0]["id"].as_str().unwrap();
    let resumed = sandbox.cmd().args(["--config", &config, "resume", id]).env("DEBATE_TEST_KEY", "sk-test").output();
    let resumed = resumed.unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
}

#[test]
fn bad_arguments_are_tool_errors_that_say_why_and_write_nothing() {
    let sandbox = repository();
    let plain = tempfile::tempdir().unwrap();
    write(&sandbox.repo, "docs/notes.md", "notes");
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], json!({}));
    let before = sandbox.files();
    let huge = "Redis or Postgres? ".repeat(60_000);
    let cases = [
        (json!({"question": "  "}), "the question is empty"),
        (json!({"question": "\u{200b}\u{202e}"}), "the question is empty"),
        (json!({"question": huge}), "larger than 16 KiB"),
        (json!({"question": QUESTION, "max_rounds": 0}), "rounds must be a whole number from 1 to 20"),
        (json!({"question": QUESTION, "perspectives": 9}), "2, 3 or 4 perspectives"),
        (json!({"question": QUESTION, "colour": "red"}), "unknown argument `colour`; the arguments are question"),
        (json!({"question": QUESTION, "repository": plain.path()}), "outside what this server may touch"),
        (json!({"question": QUESTION, "repository": "../elsewhere"}), "`..`"),
        (json!({"question": QUESTION, "context": ["../../etc/passwd"]}), "`..`"),
        (json!({"question": QUESTION, "context": ["docs/missing.md"]}), "docs/missing.md"),
        (json!({"question": QUESTION, "offline": true, "with": ["Nobody"]}), "Nobody"),
        (json!({"offline": true}), "error: the argument `question` is missing: it is required"),
        (json!({"question": QUESTION, "offline": "yes"}), "error: offline must be true or false, not \"yes\""),
    ];
    for (arguments, said) in cases {
        let result = session.call("start_debate", arguments.clone());
        assert!(is_error(&result), "{arguments}: {result}");
        assert!(text_of(&result).contains(said), "{arguments}: {} lacks {said:?}", text_of(&result));
    }
    for (tool, arguments, said) in [
        ("show_debate", json!({"id": "DEB-nope00"}), "no debate with id"),
        ("search_decisions", json!({"query": ""}), "the query is empty"),
        ("resume_debate", json!({"id": "DEB-nope00"}), "no debate with id"),
        ("list_debates", json!({"limit": -3}), "limit must be a whole number, 0 or more, not -3"),
    ] {
        let result = session.call(tool, arguments.clone());
        assert!(is_error(&result), "{tool} {arguments}: {result}");
        assert!(text_of(&result).contains(said), "{tool}: {} lacks {said:?}", text_of(&result));
    }
    let unknown = session.request("tools/call", json!({"name": "drop_database", "arguments": {}}));
    assert!(unknown["error"]["code"].is_i64(), "an unknown tool is a JSON-RPC error: {unknown}");
    assert_eq!(sandbox.files(), before, "nothing was written");
    assert!(!sandbox.db().exists(), "not even the state database");
    let (status, _) = session.close();
    assert!(status.success());
}

#[test]
fn a_malformed_line_gets_a_json_rpc_error_and_the_server_goes_on() {
    let sandbox = repository();
    let mut session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    // Before the handshake, a stray notification ends nothing.
    session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    session.line("this is not JSON");
    let parse = session.until("the parse error", |m| m["error"]["code"] == -32700);
    assert_eq!(parse["id"], Value::Null);
    let answer = session.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(answer["result"]["serverInfo"]["name"] == "debate", "{answer}");
    session.line(r#"{"jsonrpc":"2.0","id":"odd","params":{}}"#);
    let invalid = session.until("the invalid request's error", |m| m["id"] == "odd");
    assert_eq!(invalid["error"]["code"], -32600);
    session.line(r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#);
    session.until("the batch's error", |m| m["error"]["code"] == -32600 && m["id"].is_null());
    session.line("{\"truncated\": ");
    session.until("the second parse error", |m| m["error"]["code"] == -32700);
    let pong = session.request("ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
    let tools = session.request("tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), TOOLS.len());
    let (status, _) = session.close();
    assert!(status.success());
}

#[test]
fn input_that_ends_before_the_handshake_ends_the_server_quietly() {
    let sandbox = repository();
    let session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    let stdout = session.stdout.clone();
    let (status, stderr) = session.close();
    assert!(status.success(), "{stderr}");
    assert!(stdout.lock().unwrap().is_empty());
}

#[test]
fn the_repository_is_the_clients_first_root_and_nothing_outside_the_roots() {
    let sandbox = repository();
    let other = repository();
    let roots = json!({"roots": {"listChanged": false}});
    // Allowed both, started where no repository is: the client's root narrows it to one.
    let (parent, other_repo) = (sandbox.repo.parent().unwrap().display().to_string(), other.repo.display().to_string());
    let allow = ["mcp", "--allow", &parent, "--allow", &other_repo];
    let mut session = Session::open(&sandbox, &sandbox.home, &allow, &[], roots);
    let call = start(&mut session, offline(QUESTION, json!({})));
    let listing = session.until("the roots request", |m| m["method"] == "roots/list");
    let root = json!([{"uri": format!("file://{}", sandbox.repo.display()), "name": "project"}]);
    session.send(json!({"jsonrpc": "2.0", "id": listing["id"], "result": {"roots": root}}));
    let result = session.answer(call)["result"].clone();
    assert!(!is_error(&result), "{result}");
    assert_eq!(sandbox.records().len(), 1, "the record is in the root's repository");

    let call = start(&mut session, offline(QUESTION, json!({"repository": other.repo})));
    let listing = session.until("the roots request", |m| m["method"] == "roots/list");
    session.send(json!({"jsonrpc": "2.0", "id": listing["id"], "result": {"roots": root}}));
    let refused = session.answer(call)["result"].clone();
    assert!(is_error(&refused) && text_of(&refused).contains("outside what this server may touch"), "{refused}");
    assert!(other.records().is_empty());
    session.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_the_provider_echoes_reaches_the_client_nowhere() {
    let mock = crate::secret_gate::echoing_server().await;
    let sandbox = repository();
    let config = sandbox.openai_compatible(&mock.base_url(), "", "").display().to_string();
    let env = [("DEBATE_TEST_KEY", crate::secret_gate::KEY)];
    let mut session = Session::open(&sandbox, &sandbox.repo, &["--config", &config], &env, json!({}));
    let call = session.call_with_progress("start_debate", json!({"question": QUESTION, "max_rounds": 2}), "keys");
    let result = session.answer(call)["result"].clone();
    assert!(!is_error(&result), "{result}");
    let id = result["structuredContent"]["id"].as_str().unwrap().to_string();
    assert!(!session.progress("keys").is_empty());
    session.call("show_debate", json!({"id": id}));
    session.call("list_debates", json!({}));
    session.call("search_decisions", json!({"query": "Redis caching"}));
    session.call("check_providers", json!({}));
    session.request("resources/read", json!({"uri": format!("decision://{id}")}));
    let stdout = session.stdout.lock().unwrap().clone();
    let (_, stderr) = session.close();
    assert!(mock.requests().iter().any(|r| r["authorization"] == format!("Bearer {}", crate::secret_gate::KEY)));
    crate::secret_gate::assert_absent("what the client received", &stdout);
    crate::secret_gate::assert_absent("the server's log", &stderr);
}

#[test]
fn a_vague_questions_clarifying_question_is_asked_and_end_ends_at_a_checkpoint() {
    let sandbox = repository();
    let elicits = json!({"elicitation": {}});
    let mut session = Session::open(&sandbox, &sandbox.repo, &[], &[], elicits);
    let call = start(&mut session, offline("Should we change the cache?", json!({})));
    let asked = session.until("the clarifying question", |m| m["method"] == "elicitation/create");
    assert!(asked["params"]["message"].as_str().unwrap().contains("leaves open"), "{asked}");
    let answer = "Redis or Postgres, for the product pages";
    let content = json!({"answer": answer});
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": content}}));
    let asked = session.until("the checkpoint", |m| m["method"] == "elicitation/create");
    let content = json!({"action": "end"});
    session.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": content}}));
    let result = session.answer(call)["result"].clone();
    let debate = &result["structuredContent"];
    assert_eq!((debate["status"].as_str(), debate["rounds"].as_u64()), (Some("complete"), Some(1)), "{result}");
    assert_eq!(debate["ended_by"], "human");
    assert_eq!(debate["clarification"]["answer"], answer, "{debate}");
    session.close();
}

#[test]
fn the_manual_has_a_page_for_mcp_and_search_prints_what_it_found() {
    let sandbox = repository();
    let page = sandbox.cmd().args(["man", "mcp"]).output().unwrap();
    assert!(page.status.success(), "{}", text(&page.stderr));
    let page = text(&page.stdout);
    assert!(page.contains("debate\\-mcp") && page.contains("Model Context Protocol"), "{page}");
    let out = sandbox.cmd().args(["--offline", "-r", "1", "--no-checkpoints", QUESTION]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    write(
        &sandbox.repo,
        "docs/decisions/0001-tabs.md",
        "# Tabs over spaces\n\nStatus: accepted\n\n## Decision\nTabs.\n",
    );
    let found = sandbox.cmd().args(["search", "Redis caching"]).output().unwrap();
    let found = text(&found.stdout);
    let record = sandbox.records().into_iter().find(|p| !p.ends_with("0001-tabs.md")).unwrap();
    let relative = record.strip_prefix(&sandbox.repo).unwrap().display().to_string();
    assert!(found.starts_with(&format!("{relative}  [proposed")), "the matching record first:\n{found}");
    assert!(found.contains("docs/decisions/0001-tabs.md  [accepted]"), "then the standing decisions:\n{found}");
    let none = sandbox.cmd().args(["search", "\u{200b}"]).output().unwrap();
    assert_eq!(none.status.code(), Some(2), "{}", text(&none.stderr));
}
