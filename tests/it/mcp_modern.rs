//! `debate mcp` at protocol 2026-07-28, one JSON-RPC line at a time as a current client
//! sends them (issue 52): no `initialize` — `server/discover`, then every request with
//! its version and the client's capabilities in `_meta`; every result with its
//! `resultType`, list results with cache hints; the tools with titles, output schemas
//! their results validate against, and annotations; a checkpoint as an input-required
//! result answered by retrying the call (no request from the server); a debate as a
//! task; the prompts; and the confinement, the same as at 2025-11-25.

use serde_json::{Value, json};

use crate::common::*;
use crate::mcp::{Session, text_of};

const MODERN: &str = "2026-07-28";

/// A request's `_meta` at 2026-07-28: the version, the client and what it can do.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "debate-tests", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities
    })
}

/// A request at 2026-07-28 with `params` and the `_meta` of a client with `capabilities`;
/// its whole answer.
fn modern(session: &mut Session, method: &str, mut params: Value, capabilities: Value) -> Value {
    params.as_object_mut().unwrap().insert("_meta".into(), meta(capabilities));
    let answer = session.request(method, params);
    if let Some(result) = answer.get("result") {
        assert!(result["resultType"].is_string(), "every 2026-07-28 result carries its resultType: {answer}");
    }
    answer
}

fn repository() -> Sandbox {
    let sandbox = Sandbox::new();
    git(&sandbox.repo, &["config", "user.name", "Test"]);
    git(&sandbox.repo, &["config", "user.email", "test@example.com"]);
    sandbox
}

/// Whether `value` is valid by `schema`, for the keywords the output schemas use (type,
/// required, properties, items, enum, minimum); the reason when not.
fn valid(value: &Value, schema: &Value, at: &str) -> Result<(), String> {
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::Array(types) => types.iter().filter_map(Value::as_str).collect(),
            other => vec![other.as_str().unwrap()],
        };
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let integer_as_number = kind == "integer" && types.contains(&"number");
        if !types.contains(&kind) && !integer_as_number {
            return Err(format!("{at} is {kind}, not {types:?}"));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return Err(format!("{at} is {value}, not one of {allowed:?}"));
    }
    if let (Some(minimum), Some(number)) = (schema.get("minimum").and_then(Value::as_f64), value.as_f64())
        && number < minimum
    {
        return Err(format!("{at} is below {minimum}"));
    }
    if let Value::Object(object) = value {
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !object.contains_key(name.as_str().unwrap()) {
                return Err(format!("{at} lacks {name}"));
            }
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in properties {
                if let Some(inner) = object.get(name) {
                    valid(inner, property, &format!("{at}.{name}"))?;
                }
            }
        }
    }
    if let (Value::Array(items), Some(schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            valid(item, schema, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// The tools as listed at 2026-07-28, by name.
fn tools(session: &mut Session) -> serde_json::Map<String, Value> {
    let listed = modern(session, "tools/list", json!({}), json!({}));
    let result = &listed["result"];
    assert!(result["ttlMs"].is_u64() && result["cacheScope"].is_string(), "a list result's cache hints: {listed}");
    result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().into(), tool.clone()))
        .collect()
}

/// A tool's call at 2026-07-28 whose `structuredContent` validates against the tool's
/// `outputSchema`; its result.
fn call(session: &mut Session, tools: &serde_json::Map<String, Value>, tool: &str, arguments: Value) -> Value {
    let answer = modern(session, "tools/call", json!({"name": tool, "arguments": arguments}), json!({}));
    let result = answer["result"].clone();
    assert_eq!(result["resultType"], "complete", "{answer}");
    if result["isError"] != true {
        let schema = &tools[tool]["outputSchema"];
        valid(&result["structuredContent"], schema, tool).unwrap_or_else(|why| panic!("{why}: {result}"));
    }
    result
}

#[test]
fn a_current_client_discovers_the_server_and_finds_every_tool_described() {
    let sandbox = repository();
    let mut session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    let discovered = modern(&mut session, "server/discover", json!({}), json!({}));
    let result = &discovered["result"];
    let versions = result["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!(MODERN)) && versions.contains(&json!("2025-11-25")), "{discovered}");
    let server = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(
        (server["name"].as_str(), server["version"].as_str()),
        (Some("debate"), Some(env!("CARGO_PKG_VERSION")))
    );
    assert!(result["capabilities"]["prompts"].is_object() && result["capabilities"]["tools"].is_object());
    assert!(result["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object(), "{discovered}");

    // A version it does not speak: -32022, naming those it does.
    let mut params = json!({"_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let refused = session.request("tools/list", params);
    assert_eq!(refused["error"]["code"], -32022, "{refused}");
    assert!(refused["error"]["data"]["supported"].as_array().unwrap().contains(&json!(MODERN)), "{refused}");

    let tools = tools(&mut session);
    let read_only =
        ["list_debates", "show_debate", "search_decisions", "verify_decision", "check_providers", "check_decisions"];
    let calls_a_model = ["start_debate", "resume_debate", "review_decision", "evaluate_decision", "check_providers"];
    for (name, tool) in &tools {
        assert!(tool["title"].as_str().is_some_and(|t| !t.is_empty()), "{name} has a title");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name} has an output schema");
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name} refuses what it does not name");
        let hints = &tool["annotations"];
        assert_eq!(hints["readOnlyHint"], read_only.contains(&name.as_str()), "{name}: {hints}");
        assert_eq!(hints["openWorldHint"], calls_a_model.contains(&name.as_str()), "{name}: {hints}");
        if !read_only.contains(&name.as_str()) {
            assert_eq!(hints["destructiveHint"], false, "{name} removes nothing: {hints}");
        }
    }
    assert_eq!(tools["set_decision_status"]["annotations"]["idempotentHint"], true);

    let prompts = modern(&mut session, "prompts/list", json!({}), json!({}));
    assert!(prompts["result"]["ttlMs"].is_u64(), "{prompts}");
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["decide", "review"]);
    let decide =
        modern(&mut session, "prompts/get", json!({"name": "decide", "arguments": {"question": QUESTION}}), json!({}));
    let text = decide["result"]["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains(QUESTION) && text.contains("search_decisions") && text.contains("start_debate"), "{text}");
    let resources = modern(&mut session, "resources/list", json!({}), json!({}));
    assert!(resources["result"]["cacheScope"].is_string(), "{resources}");

    // Every tool's result validates against its schema.
    let debate =
        call(&mut session, &tools, "start_debate", json!({"question": QUESTION, "offline": true, "max_rounds": 2}));
    let id = debate["structuredContent"]["id"].as_str().unwrap().to_string();
    call(&mut session, &tools, "show_debate", json!({"id": id}));
    call(&mut session, &tools, "list_debates", json!({}));
    let found = call(&mut session, &tools, "search_decisions", json!({"query": "Redis caching"}));
    assert_eq!(found["structuredContent"]["records"][0]["id"], id.as_str());
    call(&mut session, &tools, "verify_decision", json!({"id": id}));
    call(&mut session, &tools, "evaluate_decision", json!({"id": id, "offline": true}));
    call(&mut session, &tools, "set_decision_status", json!({"id": id, "status": "accepted"}));
    call(&mut session, &tools, "check_providers", json!({"provider": "offline"}));
    let reviewed =
        call(&mut session, &tools, "review_decision", json!({"id": id, "objection": "Weigh the cost of Redis."}));
    assert_eq!(reviewed["structuredContent"]["status"], "complete", "{reviewed}");
    let (status, _) = session.close();
    assert!(status.success());
}

/// The answer to an input-required result's question: the call retried with it.
fn retried(session: &mut Session, tool: &str, arguments: &Value, state: &Value, answer: Value, caps: &Value) -> Value {
    let params =
        json!({"name": tool, "arguments": arguments, "inputResponses": {"checkpoint": answer}, "requestState": state});
    modern(session, "tools/call", params, caps.clone())
}

#[test]
fn a_checkpoint_is_an_input_required_result_guided_then_ended_and_the_guidance_is_recorded() {
    let sandbox = repository();
    let mut session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    let caps = json!({"elicitation": {"form": {}}});
    let arguments = json!({"question": "Kafka or RabbitMQ for the order events?", "offline": true, "max_rounds": 4});
    let params = json!({"name": "start_debate", "arguments": arguments, "_meta": {"progressToken": "run"}});
    let mut params = params;
    params["_meta"].as_object_mut().unwrap().extend(meta(caps.clone()).as_object().unwrap().clone());
    let first = session.request("tools/call", params)["result"].clone();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let asked = &first["inputRequests"]["checkpoint"];
    assert_eq!(asked["method"], "elicitation/create", "{first}");
    assert_eq!(
        asked["params"]["requestedSchema"]["properties"]["action"]["enum"],
        json!(["continue", "guide", "end", "pause"])
    );
    assert!(asked["params"]["message"].as_str().unwrap().contains("round 1 of 4 is done"), "{first}");
    let progress = session.progress("run");
    assert!(
        progress.iter().any(|p| p["total"].as_f64() == Some(6.0)),
        "the total: analysis, four rounds, synthesis: {progress:?}"
    );

    let guidance = "Weigh what running Kafka costs the on-call team.";
    let guide = json!({"action": "accept", "content": {"action": "guide", "guidance": guidance}});
    let second =
        retried(&mut session, "start_debate", &arguments, &first["requestState"], guide, &caps)["result"].clone();
    assert_eq!(second["resultType"], "input_required", "{second}");
    assert!(second["inputRequests"]["checkpoint"]["params"]["message"].as_str().unwrap().contains("round 2 of 4"));
    // The same answer again names a question no longer waited on.
    let again =
        retried(&mut session, "start_debate", &arguments, &first["requestState"], json!({"action": "cancel"}), &caps);
    assert!(text_of(&again["result"]).contains("names no question"), "{again}");

    let end = json!({"action": "accept", "content": {"action": "end"}});
    let done = retried(&mut session, "start_debate", &arguments, &second["requestState"], end, &caps)["result"].clone();
    assert_eq!(done["resultType"], "complete", "{done}");
    let debate = &done["structuredContent"];
    assert_eq!((debate["status"].as_str(), debate["ended_by"].as_str()), (Some("complete"), Some("human")), "{done}");
    assert_eq!(debate["transcript"][1]["guidance"], guidance);
    let record = std::fs::read_to_string(sandbox.repo.join(debate["record_path"].as_str().unwrap())).unwrap();
    assert!(record.contains(guidance), "the guidance is in the committed record");
    assert!(git(&sandbox.repo, &["log", "--format=%b"]).contains(debate["id"].as_str().unwrap()));
    let stdout = session.stdout.lock().unwrap().clone();
    let requests = stdout.lines().map(|line| serde_json::from_str::<Value>(line).unwrap());
    let requests: Vec<Value> = requests.filter(|m| m.get("method").is_some() && m.get("id").is_some()).collect();
    assert!(requests.is_empty(), "no request from the server: {requests:?}");
    session.close();
}

/// `tasks/…` at 2026-07-28 for a client with the tasks extension.
fn task(session: &mut Session, method: &str, id: &str, extra: Value, caps: &Value) -> Value {
    let mut params = json!({"taskId": id});
    params.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    modern(session, method, params, caps.clone())
}

/// Poll task `id` until its status is `wanted`; its state then.
fn until_status(session: &mut Session, id: &str, wanted: &str, caps: &Value) -> Value {
    wait_for(&format!("task {id} to be {wanted}"), || {
        let got = task(session, "tasks/get", id, json!({}), caps)["result"].clone();
        (got["status"] == wanted).then_some(got)
    })
}

#[test]
fn a_debate_is_a_task_for_a_client_with_the_tasks_extension() {
    let sandbox = repository();
    let mut session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    let caps = json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    let arguments = json!({"question": "GraphQL or REST for the public API?", "offline": true, "max_rounds": 3});
    let created =
        modern(&mut session, "tools/call", json!({"name": "start_debate", "arguments": arguments}), caps.clone());
    let created = created["result"].clone();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_string();
    let asking = until_status(&mut session, &id, "input_required", &caps);
    assert_eq!(asking["inputRequests"]["checkpoint"]["method"], "elicitation/create", "{asking}");
    let end = json!({"checkpoint": {"action": "accept", "content": {"action": "end"}}});
    let updated = task(&mut session, "tasks/update", &id, json!({"inputResponses": end}), &caps);
    assert!(updated["result"].is_object(), "{updated}");
    let completed = until_status(&mut session, &id, "completed", &caps);
    let result = &completed["result"];
    assert_eq!(result["structuredContent"]["status"], "complete", "{completed}");
    assert_eq!(result["structuredContent"]["ended_by"], "human");

    // Cancelled at its checkpoint: it pauses, resumable.
    let created =
        modern(&mut session, "tools/call", json!({"name": "start_debate", "arguments": arguments}), caps.clone());
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    until_status(&mut session, &id, "input_required", &caps);
    task(&mut session, "tasks/cancel", &id, json!({}), &caps);
    until_status(&mut session, &id, "cancelled", &caps);
    assert_eq!(sandbox.listed()[0]["status"], "paused");
    let unknown = task(&mut session, "tasks/get", "nope", json!({}), &caps);
    assert!(unknown["error"]["message"].as_str().unwrap().contains("no task"), "{unknown}");
    session.close();
}

#[test]
fn at_the_current_revision_a_server_started_in_a_refuses_b() {
    let sandbox = repository();
    let other = repository();
    let mut session = Session::spawn(&sandbox, &sandbox.repo, &[], &[]);
    let before = other.files();
    let b = other.repo.display().to_string();
    for (tool, arguments) in [
        ("start_debate", json!({"question": QUESTION, "offline": true, "repository": b})),
        ("list_debates", json!({"repository": b})),
    ] {
        let answer = modern(&mut session, "tools/call", json!({"name": tool, "arguments": arguments}), json!({}));
        assert!(text_of(&answer["result"]).contains("outside what this server may touch"), "{answer}");
    }
    assert_eq!(other.files(), before);
    session.close();
}
